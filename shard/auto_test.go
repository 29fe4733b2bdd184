package shard

import (
	"strings"
	"testing"
)

// env is a fixed environment for Resolve: what a scheduler would have set.
func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// Every combination a scheduler (or a person) sets: Slurm's array variables as sbatch(1)
// documents them (in full, count only, first and last only, with a step, starting above 0),
// Kubernetes' index with its count from the env or the flag, and K/N as before.
func TestResolve(t *testing.T) {
	slurm := []string{SlurmJobID, "17", SlurmTaskID, "2", SlurmTaskCount, "4", SlurmTaskMin, "0", SlurmTaskMax, "3", SlurmTaskStep, "1"}
	cases := []struct {
		name, flag string
		env        []string
		k, n       int
		from       string
	}{
		{"K/N untouched by the env", "1/4", slurm, 1, 4, "--shard 1/4"},
		{"slurm, every variable", "auto", slurm, 2, 4, "SLURM_ARRAY_TASK_ID=2 of SLURM_ARRAY_TASK_COUNT=4"},
		{"slurm, count only", "auto", []string{SlurmTaskID, "3", SlurmTaskCount, "4"}, 3, 4, ""},
		{"slurm, min and max only", "auto", []string{SlurmTaskID, "1", SlurmTaskMin, "0", SlurmTaskMax, "3"}, 1, 4,
			"SLURM_ARRAY_TASK_ID=1 of SLURM_ARRAY_TASK_MIN=0..SLURM_ARRAY_TASK_MAX=3"},
		{"slurm, array from 1", "auto", []string{SlurmTaskID, "1", SlurmTaskCount, "4", SlurmTaskMin, "1", SlurmTaskMax, "4"}, 0, 4, ""},
		{"slurm, last task of an array from 1", "auto", []string{SlurmTaskID, "4", SlurmTaskCount, "4", SlurmTaskMin, "1", SlurmTaskMax, "4"}, 3, 4, ""},
		{"slurm, stepped array", "auto", []string{SlurmTaskID, "20", SlurmTaskCount, "5", SlurmTaskMin, "10", SlurmTaskMax, "30", SlurmTaskStep, "5"}, 2, 5, ""},
		{"slurm, count from auto/N", "auto/4", []string{SlurmTaskID, "2"}, 2, 4, "SLURM_ARRAY_TASK_ID=2 of --shard auto/4"},
		{"slurm, count from REPLAY_SHARDS", "auto", []string{SlurmTaskID, "2", ShardsEnv, "4"}, 2, 4, "SLURM_ARRAY_TASK_ID=2 of REPLAY_SHARDS=4"},
		{"slurm, agreeing auto/N", "auto/4", slurm, 2, 4, ""},
		{"slurm, one-task array", "auto", []string{SlurmTaskID, "0", SlurmTaskCount, "1", SlurmTaskMin, "0", SlurmTaskMax, "0"}, 0, 1, ""},
		{"kubernetes, count from env", "auto", []string{K8sIndex, "3", ShardsEnv, "4"}, 3, 4, "JOB_COMPLETION_INDEX=3 of REPLAY_SHARDS=4"},
		{"kubernetes, count from flag", "auto/4", []string{K8sIndex, "0"}, 0, 4, "JOB_COMPLETION_INDEX=0 of --shard auto/4"},
		{"kubernetes, both agreeing", " auto/4 ", []string{K8sIndex, "1", ShardsEnv, "4"}, 1, 4, ""},
	}
	for _, c := range cases {
		sh, err := Resolve(c.flag, env(c.env...))
		if err != nil || sh.K != c.k || sh.N != c.n || (c.from != "" && sh.From != c.from) {
			t.Errorf("%s: Resolve(%q) = %+v, %v; want %d/%d from %q", c.name, c.flag, sh, err, c.k, c.n, c.from)
		}
	}
}

// Each way the environment cannot give a share is an error naming --shard and what is wrong.
func TestResolveErrors(t *testing.T) {
	cases := []struct {
		name, flag string
		env        []string
		want       string
	}{
		{"nothing set", "auto", nil, "no scheduler's index"},
		{"a Slurm job, not an array", "auto", []string{SlurmJobID, "17"}, "not a task of a job array"},
		{"both schedulers", "auto", []string{SlurmTaskID, "0", SlurmTaskCount, "2", K8sIndex, "0", ShardsEnv, "2"}, "both"},
		{"slurm, no count anywhere", "auto", []string{SlurmTaskID, "1"}, "how many tasks"},
		{"slurm, bad id", "auto", []string{SlurmTaskID, "two", SlurmTaskCount, "4"}, `SLURM_ARRAY_TASK_ID="two"`},
		{"slurm, negative id", "auto", []string{SlurmTaskID, "-1", SlurmTaskCount, "4"}, "non-negative"},
		{"slurm, bad count", "auto", []string{SlurmTaskID, "1", SlurmTaskCount, "4x"}, "SLURM_ARRAY_TASK_COUNT"},
		{"slurm, zero count", "auto", []string{SlurmTaskID, "0", SlurmTaskCount, "0"}, "at least 1 task"},
		{"slurm, id beyond count", "auto", []string{SlurmTaskID, "4", SlurmTaskCount, "4"}, "want fewer than 4"},
		{"slurm, id below min", "auto", []string{SlurmTaskID, "0", SlurmTaskCount, "4", SlurmTaskMin, "1", SlurmTaskMax, "4"}, "not in the array"},
		{"slurm, id off the step", "auto", []string{SlurmTaskID, "11", SlurmTaskCount, "3", SlurmTaskMin, "10", SlurmTaskMax, "30", SlurmTaskStep, "5"}, "not in the array"},
		{"slurm, zero step", "auto", []string{SlurmTaskID, "1", SlurmTaskCount, "3", SlurmTaskStep, "0"}, "step"},
		{"slurm, array with gaps", "auto", []string{SlurmTaskID, "3", SlurmTaskCount, "3", SlurmTaskMin, "1", SlurmTaskMax, "7"}, "gaps"},
		{"slurm, max below min", "auto", []string{SlurmTaskID, "3", SlurmTaskMin, "3", SlurmTaskMax, "1"}, "below"},
		{"slurm, auto/N disagreeing", "auto/8", []string{SlurmTaskID, "1", SlurmTaskCount, "4"}, "8 shards but the job array has 4"},
		{"slurm, REPLAY_SHARDS disagreeing", "auto", []string{SlurmTaskID, "1", SlurmTaskCount, "4", ShardsEnv, "3"}, "3 shards but the job array has 4"},
		{"kubernetes, no count", "auto", []string{K8sIndex, "1"}, "not the count"},
		{"kubernetes, bad index", "auto", []string{K8sIndex, "x", ShardsEnv, "4"}, `JOB_COMPLETION_INDEX="x"`},
		{"kubernetes, index beyond count", "auto", []string{K8sIndex, "4", ShardsEnv, "4"}, "below the count"},
		{"kubernetes, bad REPLAY_SHARDS", "auto", []string{K8sIndex, "1", ShardsEnv, "four"}, `REPLAY_SHARDS="four"`},
		{"kubernetes, zero REPLAY_SHARDS", "auto", []string{K8sIndex, "0", ShardsEnv, "0"}, "at least 1"},
		{"flag and env disagree", "auto/4", []string{K8sIndex, "1", ShardsEnv, "2"}, "which is it"},
		{"auto/ without N", "auto/", []string{K8sIndex, "1"}, "auto/N"},
		{"auto/0", "auto/0", []string{K8sIndex, "0"}, "auto/N"},
		{"auto/x", "auto/x", []string{SlurmTaskID, "0"}, "auto/N"},
		{"K/N still checked", "4/4", nil, "0 <= K < N"},
		{"a near miss of auto", "Auto", []string{SlurmTaskID, "0"}, "want K/N"},
	}
	for _, c := range cases {
		sh, err := Resolve(c.flag, env(c.env...))
		if err == nil || !strings.HasPrefix(err.Error(), "--shard ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Resolve(%q) = %+v, %v; want an error naming --shard and %q", c.name, c.flag, sh, err, c.want)
		}
	}
}

// Whatever the flag and the environment hold, Resolve never panics, and a share it returns
// is one ParseShard would accept (0 <= K < N), said where it came from.
func FuzzResolve(f *testing.F) {
	f.Add("auto", "2", "4", "0", "3", "1", "", "")
	f.Add("auto/4", "", "", "", "", "", "3", "")
	f.Add("auto", "", "", "", "", "", "1", "4")
	f.Fuzz(func(t *testing.T, flag, id, count, lo, hi, step, index, shards string) {
		getenv := env(SlurmTaskID, id, SlurmTaskCount, count, SlurmTaskMin, lo, SlurmTaskMax, hi,
			SlurmTaskStep, step, K8sIndex, index, ShardsEnv, shards)
		sh, err := Resolve(flag, getenv)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--shard ") {
				t.Fatalf("error %q does not name --shard", err)
			}
			return
		}
		if sh.N < 1 || sh.K < 0 || sh.K >= sh.N || sh.From == "" {
			t.Fatalf("Resolve(%q) = %+v: want 0 <= K < N and a source", flag, sh)
		}
	})
}
