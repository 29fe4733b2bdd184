package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results/rowfile"
)

// TestSimServesExactCounts replays a trace with `replay run --endpoint` against a separate
// `replay sim --tokenizer` process, as a user would: the standalone simulator must count every
// prompt and output exactly as the client built them, like the in-process one does, for both
// APIs and both forms of --tokenizer (a Hugging Face folder, a lone tokenizer.json).
func TestSimServesExactCounts(t *testing.T) {
	bin := replayBin(t)
	tracePath := writeFidelityTrace(t)
	forms := map[string]string{
		"folder":         testenv.SampleTokenizer(),
		"tokenizer.json": filepath.Join(testenv.SampleTokenizer(), "tokenizer.json"),
	}
	for name, tok := range forms {
		t.Run(name, func(t *testing.T) {
			url := startSim(t, bin, "--tokenizer", tok)
			for _, api := range []string{"completions", "chat"} {
				out := t.TempDir()
				cmd := exec.Command(bin, "run", "--endpoint", url, "--model", "replay-sim", "--tokenizer", tok,
					"--api", api, "--max-lateness", "0", "--trace", tracePath, "--speed", "8", "--out", out)
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: replay run: %v\n%s", api, err, b)
				}
				prompt, output := readFidelity(t, out)
				t.Logf("%s %s: prompt tokens exact %.1f%%, output tokens exact %.1f%%", name, api, prompt, output)
				if prompt != 100 || output != 100 {
					t.Errorf("%s: fidelity prompt %.1f%% output %.1f%%, want 100%% both; server minus target prompt tokens: %v",
						api, prompt, output, promptMisses(t, out))
				}
			}
		})
	}
}

// writeFidelityTrace writes a small invented Mooncake trace (512-token blocks): 20 requests
// over 2 s, half of them extending one of two shared prefixes, so the simulator's prefix cache
// sees hits as well as misses.
func writeFidelityTrace(t *testing.T) string {
	t.Helper()
	var recs []testenv.MooncakeRecord
	next := 100 // fresh hash ids start here; 1-3 and 10-11 are the shared prefixes
	for i := range 20 {
		in := 200 + 137*i%1500
		blocks := (in + 511) / 512
		ids := make([]int, 0, blocks)
		for j := range blocks {
			switch {
			case i%4 == 1 && j < 3:
				ids = append(ids, 1+j)
			case i%4 == 3 && j < 2:
				ids = append(ids, 10+j)
			default:
				ids = append(ids, next)
				next++
			}
		}
		recs = append(recs, testenv.MooncakeRecord{Timestamp: float64(i * 100), InputLength: in, OutputLength: 3 + i%7*5, HashIDs: ids})
	}
	return testenv.WriteMooncake(t, "fidelity.jsonl", recs)
}

// simListening matches the address on replay sim's start-up line.
var simListening = regexp.MustCompile(`listening on (http://\S+/v1)`)

// startSim starts `replay sim` on a free port and returns its base URL; cleanup stops it.
func startSim(t *testing.T, bin string, args ...string) string {
	t.Helper()
	url, _ := startSimCmd(t, bin, args...)
	return url
}

// startSimCmd is startSim that also returns the process, for a test that stops it early.
func startSimCmd(t *testing.T, bin string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"sim", "--listen", "127.0.0.1:0"}, args...)...)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopProcess(t, cmd) })
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := simListening.FindStringSubmatch(stderr.String()); m != nil {
			return m[1], cmd
		}
	}
	t.Fatalf("replay sim did not say where it listens within 20 s:\n%s", stderr.String())
	return "", nil
}

// syncBuffer is a bytes.Buffer the process writes while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// stopProcess ends cmd as Ctrl-C would, and kills it if it lingers.
func stopProcess(t *testing.T, cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Logf("replay sim ignored SIGINT for 5 s; killing it")
		_ = cmd.Process.Kill()
		<-done
	}
}

// readFidelity returns summary.json's exact-count percentages (-1 when absent).
func readFidelity(t *testing.T, out string) (prompt, output float64) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Fidelity struct {
			Prompt *float64 `json:"prompt_tokens_exact_pct"`
			Output *float64 `json:"output_tokens_exact_pct"`
		}
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	prompt, output = -1, -1
	if sum.Fidelity.Prompt != nil {
		prompt = *sum.Fidelity.Prompt
	}
	if sum.Fidelity.Output != nil {
		output = *sum.Fidelity.Output
	}
	return prompt, output
}

// promptMisses counts requests by how many prompt tokens the server counted beyond the target.
func promptMisses(t *testing.T, out string) map[int32]int {
	t.Helper()
	rows, err := rowfile.ReadAll(filepath.Join(out, "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	m := map[int32]int{}
	for _, r := range rows {
		m[r.PromptTokens-r.TargetPromptTokens]++
	}
	return m
}
