package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/scheduler"
)

// qwen2VLFolder is a Qwen2-VL model folder for the tests: Qwen3's tokenizer (its vocabulary
// holds Qwen2-VL's <|vision_start|>, <|image_pad|> and <|vision_end|>) and chat template, with
// the config.json model_type and preprocessor_config.json values Qwen/Qwen2-VL-2B-Instruct
// publishes (min_pixels 3136, max_pixels 12845056, patch 14, merge 2), written here.
func qwen2VLFolder(t *testing.T) string {
	return qwenFolder(t, map[string]string{
		"config.json":              `{"architectures": ["Qwen2VLForConditionalGeneration"], "model_type": "qwen2_vl", "vision_config": {"patch_size": 14, "spatial_merge_size": 2}}`,
		"preprocessor_config.json": `{"min_pixels": 3136, "max_pixels": 12845056, "patch_size": 14, "temporal_patch_size": 2, "merge_size": 2, "image_processor_type": "Qwen2VLImageProcessor"}`,
	})
}

// qwenFolder is a model folder of Qwen3's tokenizer and chat template (fetched) and files,
// written here.
func qwenFolder(t *testing.T, files map[string]string) string {
	t.Helper()
	src := testenv.Tokenizer(t, "qwen3")
	dir := t.TempDir()
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json"} {
		if err := os.Symlink(filepath.Join(src, f), filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// imageLog writes a chat request log of n requests, each with 0 to 4 images drawn from a pool
// shared across requests (20×20 to 4000×3000, and 3000×100; PNG, JPEG and GIF), between text
// parts, and returns its path. With mixed, the requests go round the chat, Responses and
// Messages APIs, each with its own image form (image_url, input_image, a base64 image block).
func imageLog(t *testing.T, n int, mixed bool) string {
	t.Helper()
	pool := []struct {
		w, h int
		mime string
	}{{20, 20, media.PNG}, {4000, 3000, media.JPEG}, {3000, 100, media.PNG}, {640, 480, media.JPEG}, {1300, 876, media.PNG}, {333, 777, media.GIF}, {56, 28, media.JPEG}}
	urls := make([]string, len(pool))
	for i, p := range pool {
		img, err := media.Build(uint64(1000+i), p.w, p.h, p.mime)
		if err != nil {
			t.Fatal(err)
		}
		urls[i] = media.DataURL(img.MIME, img.Data)
	}
	rng := rand.New(rand.NewPCG(46, 1))
	var b strings.Builder
	for i := range n {
		parts := []loggedPart{{text: fmt.Sprintf("Request %d: what do these show?", i)}}
		for range rng.IntN(5) {
			part := loggedPart{url: urls[rng.IntN(len(urls))]}
			if rng.IntN(3) == 0 {
				part.detail = "high"
			}
			parts = append(parts, part)
			if rng.IntN(2) == 0 {
				parts = append(parts, loggedPart{text: "and this one, in detail please"})
			}
		}
		api := "chat"
		if mixed {
			api = []string{"chat", "responses", "messages"}[i%3]
		}
		line := imageLine(api, float64(i)*0.02, parts)
		raw, err := json.Marshal(line)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(raw)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "vision.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// loggedPart is a user message's content part: text, or an image as a data URL with its detail.
type loggedPart struct{ text, url, detail string }

// imageLine is a request log line of a system prompt and a user message of parts, as the api
// (chat, responses or messages) logs it: chat's image_url parts, the Responses API's
// input_text and input_image parts, the Messages API's text and base64 image blocks (which
// have no detail).
func imageLine(api string, at float64, parts []loggedPart) map[string]any {
	var content []any
	for _, p := range parts {
		switch {
		case p.url == "" && api == "responses":
			content = append(content, map[string]any{"type": "input_text", "text": p.text})
		case p.url == "":
			content = append(content, map[string]any{"type": "text", "text": p.text})
		case api == "chat":
			iu := map[string]any{"url": p.url}
			if p.detail != "" {
				iu["detail"] = p.detail
			}
			content = append(content, map[string]any{"type": "image_url", "image_url": iu})
		case api == "responses":
			part := map[string]any{"type": "input_image", "image_url": p.url}
			if p.detail != "" {
				part["detail"] = p.detail
			}
			content = append(content, part)
		default:
			mt, data, _ := strings.Cut(strings.TrimPrefix(p.url, "data:"), ";base64,")
			content = append(content, map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": mt, "data": data}})
		}
	}
	const system = "You describe images."
	user := map[string]any{"role": "user", "content": content}
	switch api {
	case "responses":
		return map[string]any{"timestamp": at, "path": "/v1/responses", "request": map[string]any{"model": "vl", "max_output_tokens": 4,
			"instructions": system, "input": []any{user}}, "response": map[string]any{"usage": map[string]any{"output_tokens": 4}}}
	case "messages":
		return map[string]any{"timestamp": at, "path": "/v1/messages", "request": map[string]any{"model": "vl", "max_tokens": 4,
			"system": system, "messages": []any{user}}, "response": map[string]any{"usage": map[string]any{"output_tokens": 4}}}
	}
	return map[string]any{"timestamp": at, "request": map[string]any{"model": "vl", "max_tokens": 4, "messages": []any{
		map[string]any{"role": "system", "content": system}, user}}, "response": map[string]any{"usage": map[string]any{"completion_tokens": 4}}}
}

// TestImageLogReplay replays a generated vision log against the in-process simulator over
// loopback HTTP, counted by the Qwen2-VL rule of the model folder on both sides: every logged
// image is sent as a stand-in of its logged size and format, where it was among the text parts,
// the same logged image as the same bytes every time and different ones apart, and the
// simulator's prompt count is exactly every request's target.
func TestImageLogReplay(t *testing.T) {
	t.Run("chat", func(t *testing.T) { testImageLogReplay(t, false) })
	t.Run("mixed", func(t *testing.T) { testImageLogReplay(t, true) })
}

// testImageLogReplay is TestImageLogReplay over a chat log, or one mixed across the chat,
// Responses and Messages APIs, each request replayed on its own API.
func testImageLogReplay(t *testing.T, mixed bool) {
	const n = 40
	path, tokPath := imageLog(t, n, mixed), qwen2VLFolder(t)
	var stderr bytes.Buffer
	images := 0
	cfg := Config{
		Trace: path, Ingest: ingest.Options{Format: ingest.FormatOpenAILog}, Out: t.TempDir(),
		Tokenizer: tokPath, Schedule: scheduler.Config{Speed: 10}, Sim: roomySim(0),
		Stderr: &stderr, Stdout: io.Discard,
		OnPlan: func(p Plan) error {
			images = checkImagePlan(t, p)
			return nil
		},
	}
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	rows, err := rowfile.ReadAll(filepath.Join(cfg.Out, "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != n || sum.Requests.OK != n || images < n {
		t.Fatalf("%d rows, %d images, summary %+v\n%s", len(rows), images, sum.Requests, stderr.String())
	}
	most, rowImages, withImages := int32(0), int64(0), int64(0)
	apis := map[string]int{}
	for _, r := range rows {
		apis[r.API]++
		rowImages += int64(r.Images)
		if r.Images > 0 {
			withImages++
			if r.MediaTokens <= 0 || r.MediaBytes <= 0 || r.MediaTokens >= r.TargetPromptTokens {
				t.Errorf("request %s: %d images, media tokens %d of %d, %d bytes", r.RequestID, r.Images, r.MediaTokens, r.TargetPromptTokens, r.MediaBytes)
			}
		} else if r.MediaTokens != 0 || r.MediaBytes != 0 {
			t.Errorf("request %s: no image, media tokens %d, %d bytes", r.RequestID, r.MediaTokens, r.MediaBytes)
		}
		most = max(most, r.TargetPromptTokens)
		if r.PromptTokens != r.TargetPromptTokens {
			t.Errorf("request %s: target %d prompt tokens, the simulator counted %d", r.RequestID, r.TargetPromptTokens, r.PromptTokens)
		}
	}
	t.Logf("%d requests (%v), %d images, longest prompt %d tokens", n, apis, images, most)
	if mixed && (apis["chat"] == 0 || apis["responses"] == 0 || apis["messages"] == 0) {
		t.Errorf("requests by API %v: want every one of chat, responses and messages", apis)
	}
	if !strings.Contains(stderr.String(), fmt.Sprintf("replay: %d images in", images)) {
		t.Errorf("the run does not say how many images it sends:\n%s", stderr.String())
	}
	if f := sum.Fidelity.PromptTokensExactPct; f == nil || *f != 100 {
		t.Errorf("prompt tokens exact: %v, want 100%%", f)
	}
	md := sum.Media
	if md == nil || md.Images != rowImages || int(rowImages) != images || md.Requests != withImages {
		t.Fatalf("summary media %+v; rows carry %d images in %d requests, the plan %d", md, rowImages, withImages, images)
	}
	total := int64(0)
	for _, name := range analysis.MediaPopulations {
		total += md.Populations[name].Requests
	}
	if total != n || md.Populations[analysis.MediaNone].Requests != n-withImages || md.BytesSent <= 0 {
		t.Errorf("media populations %v: want the %d requests split, %d without images", md.Populations, n, n-withImages)
	}
	t.Logf("media: %d requests with %d images, %d tokens, %d bytes inline; TTFT p50 text only %v, 2+ images %v",
		md.Requests, md.Images, md.MediaTokens, md.BytesSent, md.Populations[analysis.MediaNone].TTFT, md.Populations[analysis.MediaTwoImages].TTFT)
}

// checkImagePlan checks every planned request's image parts against its record's logged
// images, and the same logged image's bytes across requests; it returns the images seen.
func checkImagePlan(t *testing.T, p Plan) int {
	t.Helper()
	byHash := map[uint64]string{}
	byURL := map[string]uint64{}
	seen := 0
	for _, r := range p.Requests {
		last := r.Messages[len(r.Messages)-1]
		var imgs []chat.Part
		text := ""
		for _, part := range last.Parts {
			if part.Type == chat.PartImage {
				imgs = append(imgs, part)
			} else {
				text += part.Text
			}
		}
		if len(imgs) != len(r.Record.Media) || (len(imgs) > 0 && text != last.Content) {
			t.Fatalf("request %d: %d image parts for %d logged images; parts' text %q, content %q", r.Index, len(imgs), len(r.Record.Media), text, last.Content)
		}
		for k, part := range imgs {
			m := r.Record.Media[k]
			mime, data, err := media.ParseDataURL(part.ImageURL)
			if err != nil {
				t.Fatal(err)
			}
			got, err := media.ReadHeader(data, mime)
			if err != nil || got != (media.Image{MIME: m.MIME, Width: m.Width, Height: m.Height}) || part.Detail != m.Detail {
				t.Fatalf("request %d image %d: sent %+v (detail %q), logged %+v", r.Index, k, got, part.Detail, m)
			}
			if u, ok := byHash[m.Hash]; ok && u != part.ImageURL {
				t.Fatalf("request %d image %d: the same logged image sent as different bytes", r.Index, k)
			}
			if h, ok := byURL[part.ImageURL]; ok && h != m.Hash {
				t.Fatalf("request %d image %d: two logged images sent as the same bytes", r.Index, k)
			}
			byHash[m.Hash], byURL[part.ImageURL] = part.ImageURL, m.Hash
			seen++
		}
	}
	if len(byHash) < 5 {
		t.Fatalf("only %d distinct images in the plan", len(byHash))
	}
	return seen
}
