package main

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results/rowfile"
)

// sentinelKey is an API key no output may hold.
const sentinelKey = "sk-replay-sentinel-7f3a9c0e5b1d"

// The API key reaches the endpoint and nothing else: not the process's arguments, not
// stdout or stderr, not any file of the run (journal included, read while the run goes), not
// a row's error message even when the server quotes the key back.
func TestSecretsStayOut(t *testing.T) {
	bin := replayBin(t)
	var seen, quoted atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.NotFound(w, r) // the metrics scrape
			return
		}
		if r.Header.Get("Authorization") == "Bearer "+sentinelKey {
			seen.Add(1)
		}
		// A careless gateway that echoes the credential in its error.
		quoted.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"key %s is not allowed (header %q)"}}`, sentinelKey, r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(sentinelKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	trace := writeRateTrace(t, 200, 50, 8)
	runs := map[string][]string{
		"env, simulator": {"run", "--trace", trace, "--api-key-env", "REPLAY_SENTINEL_KEY", "--speed", "1", "--max-lateness", "0"},
		"file, echoing endpoint": {"run", "--trace", trace, "--api-key-file", keyFile, "--endpoint", srv.URL + "/v1",
			"--model", "m", "--tokenizer", testenv.SampleTokenizer(), "--max-error-rate", "1", "--speed", "4", "--max-lateness", "0"},
	}
	for name, args := range runs {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			cmd := exec.Command(bin, append(args, "--out", out)...)
			cmd.Env = append(os.Environ(), "REPLAY_SENTINEL_KEY="+sentinelKey)
			var stdout, stderr syncBuffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// While it runs: its arguments and its files so far.
			var looked int
			for cmd.ProcessState == nil && looked < 50 {
				argv, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", cmd.Process.Pid))
				if err == nil && strings.Contains(string(argv), sentinelKey) {
					t.Fatal("the key is in the process's arguments")
				}
				checkNoKey(t, out)
				looked++
				time.Sleep(20 * time.Millisecond)
			}
			_ = cmd.Wait()
			checkNoKey(t, out)
			for stream, b := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
				if strings.Contains(b, sentinelKey) {
					t.Fatalf("the key is in %s:\n%s", stream, b)
				}
			}
		})
	}
	if seen.Load() == 0 || seen.Load() != quoted.Load() {
		t.Fatalf("the endpoint saw the key on %d of %d requests: want all", seen.Load(), quoted.Load())
	}
}

// checkNoKey fails when any file under dir holds the sentinel key.
func checkNoKey(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil // a file renamed or removed meanwhile
		}
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), sentinelKey) {
			t.Fatalf("the key is in %s", p)
		}
		// Parquet pages are compressed: look in the rows themselves once the file is whole.
		if strings.HasSuffix(p, ".parquet") {
			if rows, err := rowfile.ReadAll(p); err == nil {
				for _, r := range rows {
					if strings.Contains(fmt.Sprintf("%+v", r), sentinelKey) {
						t.Fatalf("the key is in row %s of %s: %q", r.RequestID, p, r.ErrorMessage)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
