package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/routing"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/sim"
	"github.com/llm-replay/replay/synth/tokenizer"
)

// TestImageProbe: an endpoint that counts images otherwise than the model folder's rule (a
// simulator over loopback HTTP counting every image as 300 tokens, the folder saying Qwen2-VL)
// is probed for each distinct size before the prompts are built; the run says it counts them
// otherwise and builds with its counts, so every prompt is exact by the endpoint's usage. With
// --probe none the same run is built by the rule and misses.
func TestImageProbe(t *testing.T) {
	const n = 24
	path, tokPath := imageLog(t, n, false), qwen2VLFolder(t)
	url := countingSim(t, tokPath, func(sc *sim.Config) { sc.Images = media.Fixed(300) })
	run := func(probe string) (float64, []int32, string) {
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
		if err != nil || len(rows) != n {
			t.Fatalf("--probe %s: %d rows (%v)\n%s", probe, len(rows), err, stderr.String())
		}
		var off []int32
		for _, r := range rows {
			off = append(off, r.PromptTokens-r.TargetPromptTokens)
			// The server's media count, its usage less the text built: 300 an image, whatever
			// the rule the prompt was built with said.
			if r.Images > 0 && r.ServerMediaTokens != 300*r.Images {
				t.Errorf("--probe %s: row %s: %d images, the server's media tokens %d (want %d), the rule's %d", probe, r.RequestID, r.Images, r.ServerMediaTokens, 300*r.Images, r.MediaTokens)
			}
		}
		pct := -1.0
		if f := sum.Fidelity.PromptTokensExactPct; f != nil {
			pct = *f
		}
		return pct, off, stderr.String()
	}
	pct, off, says := run(ProbeAuto)
	if pct != 100 || !strings.Contains(says, "replay: probe: ") || !strings.Contains(says, "image sizes otherwise than qwen2_vl") {
		t.Fatalf("--probe auto: prompts exact %.1f%% (target misses %v); the run says:\n%s", pct, off, says)
	}
	t.Logf("--probe auto: %s", line(says, "replay: probe: "))
	pct, _, says = run(ProbeNone)
	if pct >= 100 || strings.Contains(says, "replay: probe: ") {
		t.Fatalf("--probe none: prompts exact %.1f%%, want below 100 (the rule is not the endpoint's); the run says:\n%s", pct, says)
	}
	t.Logf("--probe none: prompts exact %.1f%% (the folder's rule, not the endpoint's)", pct)
}

// TestImageProbeOneImage: an endpoint that takes one image a request refuses the probe's
// pair, as vLLM does under --limit-mm-per-prompt (vllm/entrypoints/chat_utils.py: "At most 1
// image(s) may be provided in one prompt.", HTTP 400); the probe says so and measures each
// size against a twin without any image, and the prompts are still built with the endpoint's
// counts. The endpoint: the simulator on loopback counting every image as 300, behind a proxy
// that refuses the probe's request with more than one.
func TestImageProbeOneImage(t *testing.T) {
	const n = 12
	path, tokPath := imageLog(t, n, false), qwen2VLFolder(t)
	url := countingSim(t, tokPath, func(sc *sim.Config) { sc.Images = media.Fixed(300) })
	target, err := neturl.Parse(strings.TrimSuffix(url, "/v1"))
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	refused := 0
	var mu sync.Mutex
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		// The probe's pair only: the log's own requests, some holding several images, pass
		// (what is tested is the probe).
		if bytes.Contains(body, []byte(probeText)) && bytes.Count(body, []byte(`"type":"image_url"`)) > 1 {
			mu.Lock()
			refused++
			mu.Unlock()
			http.Error(w, `{"error":{"message":"At most 1 image(s) may be provided in one prompt.","type":"BadRequestError","code":400}}`, http.StatusBadRequest)
			return
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	var stderr bytes.Buffer
	cfg := Config{
		Trace: path, Ingest: ingest.Options{Format: ingest.FormatOpenAILog}, Out: t.TempDir(),
		Tokenizer: tokPath, Schedule: scheduler.Config{Speed: 10}, Checks: "none",
		Stderr: &stderr, Stdout: io.Discard,
	}
	cfg.Client.BaseURL, cfg.Client.Model = front.URL+"/v1", "replay-sim"
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	says := stderr.String()
	if refused != 1 || !strings.Contains(says, "refused two media in one request") || !strings.Contains(says, "image sizes otherwise than qwen2_vl") {
		t.Fatalf("%d pairs refused (want 1: then one image against none); the run says:\n%s", refused, says)
	}
	if f := sum.Fidelity.PromptTokensExactPct; f == nil || *f != 100 {
		t.Errorf("prompt tokens exact %v, want 100%%\n%s", f, says)
	}
	t.Logf("%s", line(says, "refused two media"))
}

// countingSim starts the simulator on loopback counting as the model folder at tokPath says,
// then as set changes it (an endpoint that counts media otherwise), and returns its URL.
func countingSim(t *testing.T, tokPath string, set func(*sim.Config)) string {
	t.Helper()
	tok, err := tokenizer.Load(tokPath)
	if err != nil {
		t.Fatal(err)
	}
	sc := roomySim(0)
	if err := ServerCounting(tokPath, tok, &sc); err != nil {
		t.Fatal(err)
	}
	set(&sc)
	url, stop, err := sim.Listen(context.Background(), "127.0.0.1:0", sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	return url
}

// line is the first line of s holding prefix.
func line(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, prefix) {
			return l
		}
	}
	return ""
}

// TestMediaListen: images logged by URL are sent, under --media-listen, as URLs of their
// stand-ins at replay's own server, which the simulator fetches over loopback (as vLLM fetches
// an image URL); each is fetched at its logged size, counted, and the prompts are exact.
func TestMediaListen(t *testing.T) {
	var b strings.Builder
	for i := range 12 {
		fmt.Fprintf(&b, `{"timestamp":%g,"request":{"model":"vl","max_tokens":3,"messages":[{"role":"user","content":[{"type":"text","text":"What is in photo %d?"},{"type":"image_url","image_url":{"url":"https://cdn.example.com/photos/%d.jpg"}}]}]},"response":{"usage":{"completion_tokens":3}}}`+"\n", float64(i)*0.05, i, i%4)
	}
	path := filepath.Join(t.TempDir(), "urls.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cfg := Config{
		Trace: path, Ingest: ingest.Options{Format: ingest.FormatOpenAILog, ImageSize: "800x600"}, Out: t.TempDir(),
		Tokenizer: qwen2VLFolder(t), Schedule: scheduler.Config{Speed: 10}, Sim: roomySim(0),
		MediaListen: "127.0.0.1:0", Stderr: &stderr, Stdout: io.Discard,
		OnPlan: func(p Plan) error {
			for _, r := range p.Requests {
				for _, part := range r.Messages[len(r.Messages)-1].Parts {
					if part.Type == chat.PartImage && !strings.HasPrefix(part.ImageURL, "http://127.0.0.1:") {
						t.Errorf("request %d: image sent as %.40q, want a URL at the media server", r.Index, part.ImageURL)
					}
				}
			}
			return nil
		},
	}
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if sum.Requests.OK != 12 || !strings.Contains(stderr.String(), "served 12 image fetches") {
		t.Fatalf("%d of 12 ok; the run says:\n%s", sum.Requests.OK, stderr.String())
	}
	if f := sum.Fidelity.PromptTokensExactPct; f == nil || *f != 100 {
		t.Errorf("prompt tokens exact: %v, want 100%%\n%s", f, stderr.String())
	}
	t.Logf("%s", line(stderr.String(), "--media-listen"))
}

// TestImageProbeMapped: a --model-map run probes each target model as its prompts are built,
// with the base model's name: the log's "vl" mapped to the simulator's "m1" (counting every
// image as 300, its folder saying Qwen2-VL) is built with the endpoint's counts and exact.
func TestImageProbeMapped(t *testing.T) {
	path, tokPath := imageLog(t, 12, false), qwen2VLFolder(t)
	url := countingSim(t, tokPath, func(sc *sim.Config) { sc.ModelName, sc.Images = "m1", media.Fixed(300) })
	mapFile := filepath.Join(t.TempDir(), "models.yaml")
	if err := os.WriteFile(mapFile, []byte("vl: {model: m1, tokenizer: "+tokPath+"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := routing.ParseMap(mapFile, "")
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cfg := Config{
		Trace: path, Ingest: ingest.Options{Format: ingest.FormatOpenAILog}, Out: t.TempDir(),
		Tokenizer: tokPath, Schedule: scheduler.Config{Speed: 10}, Checks: "none", Routing: Routing{ModelMap: m},
		Stderr: &stderr, Stdout: io.Discard,
	}
	cfg.Client.BaseURL, cfg.Client.Model = url, "m1"
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	says := stderr.String()
	if !strings.Contains(says, "image sizes otherwise than qwen2_vl") {
		t.Fatalf("no probe of m1's images; the run says:\n%s", says)
	}
	if f := sum.Fidelity.PromptTokensExactPct; f == nil || *f != 100 {
		t.Errorf("prompt tokens exact %v, want 100%%\n%s", f, says)
	}
}
