package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/scheduler"
)

// BenchmarkImageLateness replays an image-heavy chat log (20 req/s for 15 s, every request
// with two distinct 1024×1024 images, PNG and JPEG, each built for it) and, in the same
// invocation, the same log with its images taken out, against `replay sim --zero-cost` in its
// own process, and reports both runs' send lateness and their ratio: the images are built with
// the plan, before the clock, so they should cost the schedule nothing measurable. Run with
// -benchtime 1x on a quiet machine.
func BenchmarkImageLateness(b *testing.B) {
	tokPath := qwen2VLFolderB(b)
	url := startSim(b, "--zero-cost", "--tokenizer", tokPath)
	withImages, without := imageBenchLogs(b, 300, 20)
	for b.Loop() {
		run := func(path string) (p50, p99 float64) {
			cfg := Config{
				Trace: path, Ingest: ingest.Options{Format: ingest.FormatOpenAILog}, Out: b.TempDir(),
				Client: client.Config{BaseURL: url, Model: "replay-sim"}, Tokenizer: tokPath,
				Schedule: scheduler.Config{Speed: 1}, Checks: "none", Probe: ProbeNone,
				Stderr: io.Discard, Stdout: io.Discard, MaxErrorRate: 1,
			}
			sum, err := Run(context.Background(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			if sum.Requests.OK != 300 {
				b.Fatalf("%s: %d of 300 ok", path, sum.Requests.OK)
			}
			return sum.Lateness.P50, sum.Lateness.P99
		}
		ip50, ip99 := run(withImages)
		tp50, tp99 := run(without)
		b.ReportMetric(ip50*1000, "images_lateness_p50_us")
		b.ReportMetric(ip99*1000, "images_lateness_p99_us")
		b.ReportMetric(tp50*1000, "text_lateness_p50_us")
		b.ReportMetric(tp99*1000, "text_lateness_p99_us")
		b.ReportMetric(ip99/tp99, "p99_images/text")
	}
}

// qwen2VLFolderB is qwen2VLFolder for a benchmark.
func qwen2VLFolderB(b *testing.B) string {
	src := filepath.Join(os.Getenv("REPLAY_TOKENIZER_CACHE"), "qwen3")
	if _, err := os.Stat(filepath.Join(src, "tokenizer.json")); err != nil {
		b.Skipf("the qwen3 tokenizer is not in REPLAY_TOKENIZER_CACHE (scripts/fetch-tokenizers.sh): %v", err)
	}
	dir := b.TempDir()
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json"} {
		if err := os.Symlink(filepath.Join(src, f), filepath.Join(dir, f)); err != nil {
			b.Fatal(err)
		}
	}
	for name, text := range map[string]string{
		"config.json":              `{"model_type": "qwen2_vl"}`,
		"preprocessor_config.json": `{"min_pixels": 3136, "max_pixels": 12845056, "patch_size": 14, "merge_size": 2}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// imageBenchLogs writes n chat requests at rate a second, each with two distinct images, and
// the same requests without them.
func imageBenchLogs(b *testing.B, n, rate int) (string, string) {
	dir := b.TempDir()
	with, err := os.Create(filepath.Join(dir, "images.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	text, err := os.Create(filepath.Join(dir, "text.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	ew, et := json.NewEncoder(with), json.NewEncoder(text)
	for i := range n {
		prompt := map[string]any{"type": "text", "text": fmt.Sprintf("Request %d: compare these two pictures.", i)}
		parts := []any{prompt}
		for k, mime := range []string{media.PNG, media.JPEG} {
			img, err := media.Build(uint64(i*2+k+1)*0x9e3779b97f4a7c15, 1024, 1024, mime)
			if err != nil {
				b.Fatal(err)
			}
			parts = append(parts, map[string]any{"type": "image_url", "image_url": map[string]any{"url": media.DataURL(img.MIME, img.Data)}})
		}
		line := func(content []any) map[string]any {
			return map[string]any{"timestamp": float64(i) / float64(rate),
				"request":  map[string]any{"model": "vl", "stream": true, "max_tokens": 16, "messages": []any{map[string]any{"role": "user", "content": content}}},
				"response": map[string]any{"usage": map[string]any{"completion_tokens": 16}}}
		}
		if err := ew.Encode(line(parts)); err != nil {
			b.Fatal(err)
		}
		if err := et.Encode(line([]any{prompt})); err != nil {
			b.Fatal(err)
		}
	}
	if err := with.Close(); err != nil {
		b.Fatal(err)
	}
	if err := text.Close(); err != nil {
		b.Fatal(err)
	}
	return with.Name(), text.Name()
}
