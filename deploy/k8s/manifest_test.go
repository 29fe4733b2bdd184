package k8s

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// startPlaceholder is what the submitter replaces with the shared start; submitSed is the
// guide's command for it (deploy/README.md, and check.sh renders the Job with it).
const (
	startPlaceholder = "@START_AT@"
	submitSed        = `sed "s/@START_AT@/$(( $(date +%s) + 90 ))/" deploy/k8s/replay-job.yaml`
	indexAnnotation  = "metadata.annotations['batch.kubernetes.io/job-completion-index']"
)

// manifests is one YAML file's objects, decoded strictly into the Kubernetes API's types.
type manifests struct {
	jobs []*batchv1.Job
	pvcs []*corev1.PersistentVolumeClaim
	pods []*corev1.Pod
}

// decode splits a multi-document YAML file and decodes each document strictly by its kind:
// an unknown or duplicate field is an error, as `kubectl apply --validate=strict` makes it.
func decode(t *testing.T, name string, b []byte) manifests {
	t.Helper()
	var m manifests
	for i, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(b), -1) {
		if strings.TrimSpace(stripComments(doc)) == "" {
			continue
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			t.Fatalf("%s: document %d: %v", name, i, err)
		}
		var obj any
		switch tm.APIVersion + " " + tm.Kind {
		case "batch/v1 Job":
			j := new(batchv1.Job)
			m.jobs, obj = append(m.jobs, j), j
		case "v1 PersistentVolumeClaim":
			p := new(corev1.PersistentVolumeClaim)
			m.pvcs, obj = append(m.pvcs, p), p
		case "v1 Pod":
			p := new(corev1.Pod)
			m.pods, obj = append(m.pods, p), p
		default:
			t.Fatalf("%s: document %d: %s %s: not a kind this test knows", name, i, tm.APIVersion, tm.Kind)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
			t.Fatalf("%s: document %d (%s): %v", name, i, tm.Kind, err)
		}
	}
	return m
}

func stripComments(doc string) string {
	var out []string
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// renderedJob is the Job file as submitted: check.sh renders it with the guide's sed
// (REPLAY_JOB_YAML); under a plain `go test` the same substitution is made here.
func renderedJob(t *testing.T) (raw, rendered []byte) {
	t.Helper()
	raw, err := os.ReadFile("replay-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if p := os.Getenv("REPLAY_JOB_YAML"); p != "" {
		if rendered, err = os.ReadFile(p); err != nil {
			t.Fatal(err)
		}
		return raw, rendered
	}
	start := strconv.FormatInt(time.Now().Unix()+90, 10)
	return raw, []byte(strings.ReplaceAll(string(raw), startPlaceholder, start))
}

// TestJob checks the Indexed Job: N pods at once, the shard from the completion index, the
// shared start, per-shard folders on the results volume, non-root, resources, no retries.
func TestJob(t *testing.T) {
	raw, rendered := renderedJob(t)
	if !strings.Contains(string(raw), startPlaceholder) {
		t.Fatalf("replay-job.yaml has no %s for the submitter to replace", startPlaceholder)
	}
	m := decode(t, "replay-job.yaml", rendered)
	if len(m.jobs) != 1 {
		t.Fatalf("%d Jobs, want 1", len(m.jobs))
	}
	j := m.jobs[0]
	n := checkIndexed(t, &j.Spec)
	pod := &j.Spec.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q: want Never (a restarted container would send its share again)", pod.RestartPolicy)
	}
	checkNonRoot(t, "Job", pod)
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := &pod.Containers[0]
	checkEnvRefs(t, c)
	checkIndexEnv(t, c)
	checkShard(t, c, n)
	checkStart(t, c)
	mounts := checkVolumes(t, pod, c, volumes(t).pvcs)
	out := flag(t, c, "--out")
	if !strings.HasPrefix(out, mounts["results"]+"/") || !strings.Contains(out, "$(JOB_COMPLETION_INDEX)") {
		t.Errorf("--out %q: want a per-shard folder (with $(JOB_COMPLETION_INDEX)) on the results volume at %s", out, mounts["results"])
	}
	for _, f := range []string{"--trace", "--tokenizer"} {
		if p := flag(t, c, f); !strings.HasPrefix(p, mounts["inputs"]+"/") {
			t.Errorf("%s %q: not on the inputs volume at %s", f, p, mounts["inputs"])
		}
	}
	checkResources(t, c)
}

// checkIndexed checks the Job's completion settings and returns N.
func checkIndexed(t *testing.T, s *batchv1.JobSpec) int {
	t.Helper()
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("completionMode %s: want Indexed", deref(s.CompletionMode))
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions != *s.Parallelism || *s.Completions < 1 {
		t.Fatalf("completions %s, parallelism %s: want both N (every shard at once)", deref(s.Completions), deref(s.Parallelism))
	}
	n := *s.Completions
	if n != 4 {
		t.Errorf("completions %d: the guide's example is 4 shards", n)
	}
	if s.BackoffLimitPerIndex == nil || *s.BackoffLimitPerIndex != 0 {
		t.Errorf("backoffLimitPerIndex %s: want 0 (a shard tried again would send its share late)", deref(s.BackoffLimitPerIndex))
	}
	if s.MaxFailedIndexes == nil || *s.MaxFailedIndexes != n || s.BackoffLimit == nil || *s.BackoffLimit < n {
		t.Errorf("maxFailedIndexes %s, backoffLimit %s: want N and at least N, so one shard's failure never stops the others", deref(s.MaxFailedIndexes), deref(s.BackoffLimit))
	}
	return int(n)
}

// checkNonRoot checks that the pod runs as a numeric non-root user without privileges.
func checkNonRoot(t *testing.T, what string, pod *corev1.PodSpec) {
	t.Helper()
	sc := pod.SecurityContext
	if sc == nil {
		t.Errorf("%s: no pod securityContext: want runAsNonRoot and a non-zero runAsUser", what)
	} else if sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
		t.Errorf("%s: runAsNonRoot %s, runAsUser %s: want true and a non-zero user", what, deref(sc.RunAsNonRoot), deref(sc.RunAsUser))
	}
	for _, c := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
		csc := c.SecurityContext
		if csc == nil || csc.AllowPrivilegeEscalation == nil || *csc.AllowPrivilegeEscalation ||
			csc.Capabilities == nil || !slices.Contains(csc.Capabilities.Drop, "ALL") {
			t.Errorf("%s: container %s: want allowPrivilegeEscalation false and every capability dropped", what, c.Name)
		}
	}
}

// checkEnvRefs fails on a $(VAR) in args that the container does not define: Kubernetes
// leaves such a reference as it is, so replay would get the literal text.
func checkEnvRefs(t *testing.T, c *corev1.Container) {
	t.Helper()
	defined := map[string]bool{}
	for _, e := range c.Env {
		defined[e.Name] = true
	}
	for _, a := range c.Args {
		for _, ref := range regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`).FindAllStringSubmatch(a, -1) {
			if !defined[ref[1]] {
				t.Errorf("arg %q refers to $(%s), which the container's env does not define", a, ref[1])
			}
		}
	}
}

// checkIndexEnv checks that JOB_COMPLETION_INDEX comes from the pod's completion index.
func checkIndexEnv(t *testing.T, c *corev1.Container) {
	t.Helper()
	e := env(c, "JOB_COMPLETION_INDEX")
	if e == nil || e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != indexAnnotation {
		t.Errorf("env JOB_COMPLETION_INDEX %+v: want it from %s", e, indexAnnotation)
	}
}

// checkShard checks that the pod takes its share as a Slurm task does: --shard auto, K from
// JOB_COMPLETION_INDEX, N from REPLAY_SHARDS set in the pod's env to the Job's completions.
func checkShard(t *testing.T, c *corev1.Container, n int) {
	t.Helper()
	if got := flag(t, c, "--shard"); got != "auto" {
		t.Errorf("--shard %q: want auto (K and N from the pod's env)", got)
	}
	e := env(c, "REPLAY_SHARDS")
	if e == nil || e.ValueFrom != nil || e.Value != strconv.Itoa(n) {
		t.Errorf("env REPLAY_SHARDS %+v: want the value %d, the Job's completions", e, n)
	}
}

// checkStart checks that --start-at comes from an env var the submitter set to a parseable
// instant in the near future.
func checkStart(t *testing.T, c *corev1.Container) {
	t.Helper()
	arg := flag(t, c, "--start-at")
	name, ok := strings.CutPrefix(arg, "$(")
	name, ok2 := strings.CutSuffix(name, ")")
	if !ok || !ok2 {
		t.Fatalf("--start-at %q: want it from an env var, $(NAME)", arg)
	}
	e := env(c, name)
	if e == nil {
		t.Fatalf("--start-at %s: no env %s", arg, name)
	}
	if !regexp.MustCompile(`^\d+(\.\d{1,9})?$`).MatchString(e.Value) {
		t.Fatalf("env %s %q: want Unix seconds, as the guide's command renders it", name, e.Value)
	}
	sec, _ := strconv.ParseFloat(e.Value, 64)
	if d := time.Until(time.Unix(int64(sec), 0)); d < 0 || d > time.Hour {
		t.Errorf("env %s %s: %v from now, want a little in the future", name, e.Value, d.Round(time.Second))
	}
}

// checkVolumes checks that results and inputs are the file's PersistentVolumeClaims, mounted
// (inputs read-only), and returns each volume's mount path.
func checkVolumes(t *testing.T, pod *corev1.PodSpec, c *corev1.Container, pvcs []*corev1.PersistentVolumeClaim) map[string]string {
	t.Helper()
	claims := map[string]*corev1.PersistentVolumeClaim{}
	for _, p := range pvcs {
		claims[p.Name] = p
	}
	mounts := map[string]string{}
	for _, vm := range c.VolumeMounts {
		mounts[vm.Name] = vm.MountPath
		if vm.Name == "inputs" && !vm.ReadOnly {
			t.Errorf("inputs mounted writable: the shards only read the trace")
		}
	}
	for _, name := range []string{"results", "inputs"} {
		i := slices.IndexFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == name })
		if i < 0 || pod.Volumes[i].PersistentVolumeClaim == nil {
			t.Fatalf("no %s volume from a PersistentVolumeClaim", name)
		}
		claim := claims[pod.Volumes[i].PersistentVolumeClaim.ClaimName]
		if claim == nil || !slices.Contains(claim.Spec.AccessModes, corev1.ReadWriteMany) {
			t.Errorf("volume %s: claim %q is not in the file with ReadWriteMany (pods on several nodes share it)", name, pod.Volumes[i].PersistentVolumeClaim.ClaimName)
		}
		if mounts[name] == "" {
			t.Errorf("volume %s is not mounted", name)
		}
	}
	if mounts["results"] != "/results" {
		t.Errorf("results mounted at %q, want /results (the guide's paths)", mounts["results"])
	}
	return mounts
}

// checkResources checks that the container requests CPU and memory and caps memory.
func checkResources(t *testing.T, c *corev1.Container) {
	t.Helper()
	r := c.Resources
	if r.Requests.Cpu().IsZero() || r.Requests.Memory().IsZero() || r.Limits.Memory().IsZero() {
		t.Errorf("container %s resources %+v: want CPU and memory requests and a memory limit", c.Name, r)
	}
}

// volumes is replay-volumes.yaml: the claims and the pod that copies files to and from them.
func volumes(t *testing.T) manifests {
	t.Helper()
	b, err := os.ReadFile("replay-volumes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, "replay-volumes.yaml", b)
}

// TestVolumes checks that the files pod mounts both claims, writable (the trace goes in,
// the results come out), as a non-root user.
func TestVolumes(t *testing.T) {
	v := volumes(t)
	if len(v.pvcs) != 2 || len(v.pods) != 1 {
		t.Fatalf("%d claims and %d pods, want 2 and 1", len(v.pvcs), len(v.pods))
	}
	pod := &v.pods[0].Spec
	checkNonRoot(t, "files Pod", pod)
	var claims []string
	for _, vol := range pod.Volumes {
		if vol.PersistentVolumeClaim != nil && !vol.PersistentVolumeClaim.ReadOnly {
			claims = append(claims, vol.PersistentVolumeClaim.ClaimName)
		}
	}
	for _, p := range v.pvcs {
		if !slices.Contains(claims, p.Name) {
			t.Errorf("the files pod does not mount claim %s writable", p.Name)
		}
	}
}

// TestMergePod checks the merge pod: it merges exactly the Job's shard folders, non-root, on
// the same results claim.
func TestMergePod(t *testing.T) {
	_, rendered := renderedJob(t)
	job := decode(t, "replay-job.yaml", rendered).jobs[0]
	b, err := os.ReadFile("replay-merge.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, "replay-merge.yaml", b)
	if len(m.pods) != 1 || len(m.pods[0].Spec.Containers) != 1 {
		t.Fatalf("want one Pod with one container (the merge)")
	}
	pod := &m.pods[0].Spec
	checkNonRoot(t, "merge Pod", pod)
	c := &pod.Containers[0]
	if len(c.Args) == 0 || c.Args[0] != "merge" || c.Image != job.Spec.Template.Spec.Containers[0].Image {
		t.Fatalf("init container %s: args %q, image %s: want replay merge on the Job's image", c.Name, c.Args, c.Image)
	}
	var want []string
	for k := 0; k < int(*job.Spec.Completions); k++ {
		want = append(want, fmt.Sprintf("/results/shard-%d", k))
	}
	i := slices.Index(c.Args, "--out")
	if i < 0 || i+1 >= len(c.Args) || !slices.Equal(c.Args[i+2:], want) {
		t.Errorf("merge args %q: want --out DIR then %q", c.Args, want)
	}
	jobClaim := job.Spec.Template.Spec.Volumes[slices.IndexFunc(job.Spec.Template.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == "results" })]
	if len(pod.Volumes) != 1 || pod.Volumes[0].PersistentVolumeClaim == nil || pod.Volumes[0].PersistentVolumeClaim.ClaimName != jobClaim.PersistentVolumeClaim.ClaimName {
		t.Errorf("merge pod volumes %+v: want the Job's results claim", pod.Volumes)
	}
}

// TestDockerfile checks the image definition: a static build, and a final stage that runs as
// a numeric non-root user and needs no shell (no RUN, an exec-form ENTRYPOINT).
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	stages := dockerStages(string(b))
	if len(stages) < 2 {
		t.Fatalf("%d stages, want a build stage and a final one", len(stages))
	}
	if !slices.ContainsFunc(stages[0], func(in string) bool {
		return strings.HasPrefix(in, "RUN ") && strings.Contains(in, "CGO_ENABLED=0") && strings.Contains(in, "go build")
	}) {
		t.Error("the build stage does not build with CGO_ENABLED=0")
	}
	final := stages[len(stages)-1]
	user := ""
	for _, in := range final {
		if v, ok := strings.CutPrefix(in, "USER "); ok {
			user = strings.TrimSpace(v)
		}
		if strings.HasPrefix(in, "RUN ") {
			t.Errorf("final stage runs %q: it must need no shell", in)
		}
		if v, ok := strings.CutPrefix(in, "ENTRYPOINT "); ok && !strings.HasPrefix(strings.TrimSpace(v), "[") {
			t.Errorf("ENTRYPOINT %s: the shell form needs /bin/sh; use the exec form", v)
		}
	}
	uid, _, _ := strings.Cut(user, ":")
	if n, err := strconv.Atoi(uid); err != nil || n == 0 {
		t.Errorf("final stage USER %q: want a numeric non-root user (runAsNonRoot cannot check a name)", user)
	}
}

// dockerStages splits a Dockerfile into stages, each a list of instructions with their
// keyword upper-cased and continuation lines joined; comments and blank lines are dropped.
func dockerStages(src string) [][]string {
	var stages [][]string
	var cur strings.Builder
	flush := func() {
		in := strings.TrimSpace(cur.String())
		cur.Reset()
		if in == "" {
			return
		}
		kw, rest, _ := strings.Cut(in, " ")
		kw = strings.ToUpper(kw)
		if kw == "FROM" {
			stages = append(stages, nil)
		}
		if len(stages) > 0 {
			stages[len(stages)-1] = append(stages[len(stages)-1], kw+" "+rest)
		}
	}
	for _, l := range strings.Split(src, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		if s, ok := strings.CutSuffix(strings.TrimRight(l, " \t"), `\`); ok {
			cur.WriteString(s + " ")
			continue
		}
		cur.WriteString(l)
		flush()
	}
	flush()
	return stages
}

// TestGuideCommands keeps the guide and this test on the same commands: the submit command
// renders the start the way check.sh does, and the merge is the one the merge pod runs.
func TestGuideCommands(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	check, err := os.ReadFile("check.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kubectl apply -f deploy/k8s/replay-volumes.yaml", submitSed + " | kubectl apply -f -",
		"kubectl apply -f deploy/k8s/replay-merge.yaml", "replay merge --out merged /results/shard-*", "--shard $k/4 --start-at $start"} {
		if !strings.Contains(string(guide), want) {
			t.Errorf("deploy/README.md lacks %q", want)
		}
	}
	if !strings.Contains(string(check), submitSed) {
		t.Errorf("check.sh does not render the Job with the guide's %s", submitSed)
	}
}

func flag(t *testing.T, c *corev1.Container, name string) string {
	t.Helper()
	i := slices.Index(c.Args, name)
	if i < 0 || i+1 >= len(c.Args) {
		t.Fatalf("container %s: no %s VALUE in args %q", c.Name, name, c.Args)
	}
	return c.Args[i+1]
}

func env(c *corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

// deref shows an optional field's value, or that it is unset.
func deref[T any](p *T) string {
	if p == nil {
		return "(unset)"
	}
	return fmt.Sprint(*p)
}
