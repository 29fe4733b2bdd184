package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// The environment `--shard auto` reads. Slurm sets the SLURM_ARRAY_* variables in every task
// of a job array (sbatch(1), "OUTPUT ENVIRONMENT VARIABLES"); Kubernetes sets
// JOB_COMPLETION_INDEX in every pod of an Indexed Job but gives no count, which the manifest
// passes in as ShardsEnv (the downward API exposes no Job field).
const (
	SlurmTaskID    = "SLURM_ARRAY_TASK_ID"
	SlurmTaskCount = "SLURM_ARRAY_TASK_COUNT"
	SlurmTaskMin   = "SLURM_ARRAY_TASK_MIN"
	SlurmTaskMax   = "SLURM_ARRAY_TASK_MAX"
	SlurmTaskStep  = "SLURM_ARRAY_TASK_STEP"
	SlurmJobID     = "SLURM_JOB_ID"
	K8sIndex       = "JOB_COMPLETION_INDEX"
	ShardsEnv      = "REPLAY_SHARDS"
)

// Share is one process's share of a sharded run: K (from 0) of N, and where it came from
// (e.g. "SLURM_ARRAY_TASK_ID=2 of SLURM_ARRAY_TASK_COUNT=4") for the line that says so.
type Share struct {
	K, N int
	From string
}

// Resolve parses --shard's value: "K/N" as ParseShard does, or "auto" (K and N from the
// scheduler that started the process, read through getenv) or "auto/N" (K from the
// scheduler, N given; checked against the scheduler's count where it has one).
func Resolve(s string, getenv func(string) string) (Share, error) {
	v := strings.TrimSpace(s)
	if v != "auto" && !strings.HasPrefix(v, "auto/") {
		k, n, err := ParseShard(s)
		return Share{K: k, N: n, From: "--shard " + v}, err
	}
	given, err := givenCount(v, getenv)
	if err != nil {
		return Share{}, err
	}
	slurm, k8s := getenv(SlurmTaskID) != "", getenv(K8sIndex) != ""
	var sh Share
	switch {
	case slurm && k8s:
		return Share{}, fmt.Errorf("--shard auto: both %s and %s are set: which scheduler started this process? give --shard K/N", SlurmTaskID, K8sIndex)
	case slurm:
		sh, err = slurmShare(getenv, given)
	case k8s:
		sh, err = k8sShare(getenv, given)
	case getenv(SlurmJobID) != "":
		return Share{}, fmt.Errorf("--shard auto: a Slurm job (%s=%s) but not a task of a job array (no %s): submit it with sbatch --array=0-N-1, one task a shard",
			SlurmJobID, getenv(SlurmJobID), SlurmTaskID)
	default:
		return Share{}, fmt.Errorf("--shard auto: no scheduler's index in the environment: want %s (a Slurm job array's task) or %s (a Kubernetes Indexed Job's pod, with %s or --shard auto/N for the count); elsewhere give --shard K/N",
			SlurmTaskID, K8sIndex, ShardsEnv)
	}
	if err != nil {
		return Share{}, fmt.Errorf("--shard auto: %w", err)
	}
	return sh, nil
}

// count is an N given besides the scheduler's index, and where it came from.
type count struct {
	n    int
	from string // "--shard auto/4" or "REPLAY_SHARDS=4"; "" when none was given
}

// givenCount reads N from "auto/N", else from REPLAY_SHARDS; the two must agree.
func givenCount(v string, getenv func(string) string) (count, error) {
	var c count
	if ns, ok := strings.CutPrefix(v, "auto/"); ok {
		n, err := strconv.Atoi(ns)
		if err != nil || n < 1 {
			return c, fmt.Errorf("--shard %q: want auto, or auto/N with N a count of shards of at least 1", v)
		}
		c = count{n, "--shard " + v}
	}
	env := getenv(ShardsEnv)
	if env == "" {
		return c, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(env))
	if err != nil || n < 1 {
		return c, fmt.Errorf("--shard auto: %s=%q: want a count of shards of at least 1", ShardsEnv, env)
	}
	if c.from != "" && c.n != n {
		return c, fmt.Errorf("--shard auto: %s gives %d shards but %s=%d: which is it?", c.from, c.n, ShardsEnv, n)
	}
	if c.from == "" {
		c = count{n, fmt.Sprintf("%s=%d", ShardsEnv, n)}
	}
	return c, nil
}

// slurmShare is a job array task's share: K is the task's place in the array (its id less
// the array's first, over the step), N the array's task count. An array with gaps
// (--array=1,3,7) numbers its tasks in a way no K/N follows, so it is refused.
func slurmShare(getenv func(string) string, given count) (Share, error) {
	id, err := envInt(getenv, SlurmTaskID, 0)
	if err != nil {
		return Share{}, err
	}
	lo, err := envInt(getenv, SlurmTaskMin, 0)
	if err != nil {
		return Share{}, err
	}
	step, err := envInt(getenv, SlurmTaskStep, 1)
	if err != nil {
		return Share{}, err
	}
	if step < 1 {
		return Share{}, fmt.Errorf("%s=%d: want a step of at least 1", SlurmTaskStep, step)
	}
	if id < lo || (id-lo)%step != 0 {
		return Share{}, fmt.Errorf("%s=%d is not in the array from %s=%d by %d", SlurmTaskID, id, SlurmTaskMin, lo, step)
	}
	n, from, err := slurmCount(getenv, lo, step)
	if err != nil {
		return Share{}, err
	}
	if n == 0 && given.from == "" {
		return Share{}, fmt.Errorf("%s=%d but neither %s nor %s says how many tasks: set %s or give --shard auto/N",
			SlurmTaskID, id, SlurmTaskCount, SlurmTaskMax, ShardsEnv)
	}
	if n == 0 {
		n, from = given.n, given.from
	} else if given.from != "" && given.n != n {
		return Share{}, fmt.Errorf("%s gives %d shards but the job array has %d tasks (%s)", given.from, given.n, n, from)
	}
	k := (id - lo) / step
	if k >= n {
		return Share{}, fmt.Errorf("%s=%d is task %d of an array of %d (%s): want fewer than %d", SlurmTaskID, id, k, n, from, n)
	}
	return Share{K: k, N: n, From: fmt.Sprintf("%s=%d of %s", SlurmTaskID, id, from)}, nil
}

// slurmCount is the array's task count, from SLURM_ARRAY_TASK_COUNT or from its first and
// last ids; 0 when the environment has neither. Where both are there they must agree.
func slurmCount(getenv func(string) string, lo, step int) (int, string, error) {
	n, err := envInt(getenv, SlurmTaskCount, 0)
	if err != nil {
		return 0, "", err
	}
	if getenv(SlurmTaskCount) != "" && n < 1 {
		return 0, "", fmt.Errorf("%s=%d: want at least 1 task", SlurmTaskCount, n)
	}
	if getenv(SlurmTaskMax) == "" {
		if n == 0 {
			return 0, "", nil
		}
		return n, fmt.Sprintf("%s=%d", SlurmTaskCount, n), nil
	}
	hi, err := envInt(getenv, SlurmTaskMax, 0)
	if err != nil {
		return 0, "", err
	}
	if hi < lo {
		return 0, "", fmt.Errorf("%s=%d is below %s=%d", SlurmTaskMax, hi, SlurmTaskMin, lo)
	}
	span := (hi-lo)/step + 1
	if n != 0 && n != span {
		return 0, "", fmt.Errorf("%s=%d but the ids run from %d to %d by %d (%d tasks): an array with gaps (e.g. --array=1,3,7) has no K/N; submit --array=0-%d",
			SlurmTaskCount, n, lo, hi, step, span, n-1)
	}
	if n != 0 {
		return n, fmt.Sprintf("%s=%d", SlurmTaskCount, n), nil
	}
	return span, fmt.Sprintf("%s=%d..%s=%d", SlurmTaskMin, lo, SlurmTaskMax, hi), nil
}

// k8sShare is an Indexed Job pod's share: K is its completion index, N the count given.
func k8sShare(getenv func(string) string, given count) (Share, error) {
	k, err := envInt(getenv, K8sIndex, 0)
	if err != nil {
		return Share{}, err
	}
	if given.from == "" {
		return Share{}, fmt.Errorf("%s=%d gives this pod's index but not the count: set %s to the Job's completions in the pod's env, or give --shard auto/N",
			K8sIndex, k, ShardsEnv)
	}
	if k >= given.n {
		return Share{}, fmt.Errorf("%s=%d with %s: want an index below the count", K8sIndex, k, given.from)
	}
	return Share{K: k, N: given.n, From: fmt.Sprintf("%s=%d of %s", K8sIndex, k, given.from)}, nil
}

// envInt reads a non-negative integer from name; def when it is unset.
func envInt(getenv func(string) string, name string, def int) (int, error) {
	s := strings.TrimSpace(getenv(name))
	if s == "" {
		return def, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%s=%q: want a non-negative integer", name, getenv(name))
	}
	return v, nil
}
