package gatewaylog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/ingest"
)

// TestTimeMap: a Bedrock log whose records keep their time under another key (a pipeline's
// @timestamp) is refused with the line and the --map that reads it, and read with that --map;
// other fields, and --map on a text log, are refused rather than ignored.
func TestTimeMap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bedrock.jsonl")
	line := `{"schemaType":"ModelInvocationLog","@timestamp":"2025-01-24T09:20:46.847Z","modelId":"m","input":{"inputTokenCount":800},"output":{"outputTokenCount":120}}`
	if err := os.WriteFile(path, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(s Schema, m map[string]string) error {
		r, err := Read(path, s, Options{Options: ingest.Options{Format: s.Format, Map: m}, Year: 2025})
		if err != nil {
			return err
		}
		defer r.Close()
		for _, err := range ingest.All(r) {
			if err != nil {
				return err
			}
		}
		return nil
	}
	err := read(bedrockSchema, nil)
	for _, want := range []string{"bedrock.jsonl:1", `field "timestamp": missing`, "pass --map timestamp=KEY"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("no timestamp: %v\nwant %q", err, want)
		}
	}
	if err := read(bedrockSchema, map[string]string{"timestamp": "@timestamp"}); err != nil {
		t.Errorf("--map timestamp=@timestamp: %v", err)
	}
	if err := read(bedrockSchema, map[string]string{"prompt_tokens": "input.n"}); err == nil || !strings.Contains(err.Error(), "only --map timestamp=KEY applies") {
		t.Errorf("--map prompt_tokens on bedrock: %v, want it refused", err)
	}
	if err := read(vllmSchema, map[string]string{"timestamp": "t"}); err == nil || !strings.Contains(err.Error(), "lines' prefix") {
		t.Errorf("--map timestamp on vllm-log: %v, want it refused", err)
	}
}
