package runner

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/sim"
)

// qwen2AudioFolder is a Qwen2-Audio model folder for the tests: Qwen3's tokenizer and chat
// template, with the config.json model_type and preprocessor_config.json values
// Qwen/Qwen2-Audio-7B-Instruct publishes (Whisper features: 16 kHz, hop 160, 30 s chunks).
func qwen2AudioFolder(t *testing.T) string {
	return qwenFolder(t, map[string]string{
		"config.json":              `{"model_type": "qwen2_audio"}`,
		"preprocessor_config.json": `{"chunk_length": 30, "feature_extractor_type": "WhisperFeatureExtractor", "feature_size": 128, "hop_length": 160, "n_fft": 400, "n_samples": 480000, "nb_max_frames": 3000, "padding_side": "right", "padding_value": 0.0, "processor_class": "Qwen2AudioProcessor", "return_attention_mask": true, "sampling_rate": 16000}`,
	})
}

// TestAudioProbe: an endpoint that counts clips otherwise than the model folder's rule (the
// simulator on loopback counting 50 tokens a second, the folder saying Qwen2-Audio's 25) is
// probed for each distinct clip before the prompts are built, with the WAV stand-ins a replay
// sends: the run says so and builds with its counts, so every prompt is exact by the
// endpoint's usage, and the rows' server media tokens are its. With --probe none the same run
// is built by the rule and misses.
func TestAudioProbe(t *testing.T) {
	tokPath := qwen2AudioFolder(t)
	var log strings.Builder
	shapes := []media.Audio{{SampleRate: 16000, Channels: 1, Bits: 16, Samples: 64321}, {SampleRate: 8000, Channels: 2, Bits: 16, Samples: 12000}, {SampleRate: 44100, Channels: 1, Bits: 16, Samples: 99000}}
	for i := range 9 {
		clip, err := media.BuildAudio(uint64(i%4), shapes[i%3])
		if err != nil {
			t.Fatal(err)
		}
		line, _ := json.Marshal(map[string]any{"timestamp": float64(i) * 0.05, "request": map[string]any{"model": "audio", "max_tokens": 3,
			"messages": []any{map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "text", "text": fmt.Sprintf("Clip %d: what is said here?", i)},
				map[string]any{"type": "input_audio", "input_audio": map[string]any{"data": base64.StdEncoding.EncodeToString(clip.Data), "format": "wav"}}}}}},
			"response": map[string]any{"usage": map[string]any{"completion_tokens": 3}}})
		fmt.Fprintf(&log, "%s\n", line)
	}
	path := filepath.Join(t.TempDir(), "audio.jsonl")
	if err := os.WriteFile(path, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	rule := media.TokensPerSecond(50)
	url := countingSim(t, tokPath, func(sc *sim.Config) { sc.Audio = rule })
	run := func(probe string) (float64, string) {
		var stderr bytes.Buffer
		cfg := Config{
			Trace: path, Ingest: ingest.Options{Format: ingest.FormatOpenAILog}, Out: t.TempDir(),
			Tokenizer: tokPath, Schedule: scheduler.Config{Speed: 10}, Probe: probe, Checks: "none",
			Stderr: &stderr, Stdout: io.Discard,
		}
		cfg.Client.BaseURL, cfg.Client.Model = url, "replay-sim"
		sum, err := Run(context.Background(), cfg)
		if err != nil && !strings.Contains(err.Error(), "prompt") {
			t.Fatalf("--probe %s: %v\n%s", probe, err, stderr.String())
		}
		rows, err := rowfile.ReadAll(filepath.Join(cfg.Out, "requests.parquet"))
		if err != nil || len(rows) != 9 {
			t.Fatalf("--probe %s: %d rows (%v)", probe, len(rows), err)
		}
		for _, r := range rows {
			want, _ := rule.Tokens(shapes[(int(r.OriginalTimestampNS)/50e6)%3])
			if r.AudioClips != 1 || r.ServerMediaTokens != int32(want) {
				t.Errorf("--probe %s: row %s: %d clips, the server's media tokens %d, want %d (the rule's %d)", probe, r.RequestID, r.AudioClips, r.ServerMediaTokens, want, r.MediaTokens)
			}
		}
		return *sum.Fidelity.PromptTokensExactPct, stderr.String()
	}
	pct, says := run(ProbeAuto)
	if pct != 100 || !strings.Contains(says, "clip lengths otherwise than qwen2_audio") {
		t.Fatalf("--probe auto: prompts exact %.1f%%; the run says:\n%s", pct, says)
	}
	t.Logf("--probe auto: %s", line(says, "replay: probe: "))
	if pct, says = run(ProbeNone); pct >= 100 || strings.Contains(says, "replay: probe: ") {
		t.Fatalf("--probe none: prompts exact %.1f%%, want below 100; the run says:\n%s", pct, says)
	}
}
