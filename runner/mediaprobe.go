package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/trace"
)

// mediaprobe.go measures, before any prompt is built, how the endpoint counts each distinct
// image size and audio clip of the window (imageprobe.go, audioprobe.go): a chat request
// holding two such parts after a text and its twin holding one (max_tokens 1), the difference
// of their usage.prompt_tokens being what the engine charges for one, wrapper and all. The
// text around the parts is the same in both twins, so how the engine tokenizes it does not
// enter the count (llama.cpp tokenizes the text after an image apart: a twin without any image
// would charge the image for that). An engine that takes one image a request (vLLM's
// --limit-mm-per-prompt) refuses the pair; the probe then measures one against none, said. An
// engine may count otherwise than the model's processor (llama.cpp clamps Qwen images to its
// own token range), and a replay's lengths are only as exact as this count: where it differs
// from the rule the prompts would be built with, the run says so and builds with the
// endpoint's. --probe none sends nothing but the trace's requests; the built-in simulator
// counts by the rule itself and is never probed. Probe requests are no rows and are counted
// nowhere.

// Probe values (Config.Probe; "" is ProbeAuto).
const (
	ProbeAuto = "auto"
	ProbeNone = "none"
)

// maxProbeSizes bounds the image sizes, and apart the clips, probed: two requests each, before
// the run. Those past it are counted by the rule (the run says how many).
const maxProbeSizes = 32

// probeText is the text both twins carry.
const probeText = "Describe it in one word."

// probeMedia probes the endpoint of cfg for the window's image sizes and clip lengths and,
// where it counts any otherwise than p.synth's rules, puts rules with its counts there. A
// --model-map run probes each model as its prompts are built (buildWith).
func (p *plan) probeMedia(ctx context.Context, cfg Config, recs []trace.Record) error {
	if p.models != nil {
		return nil
	}
	return probeFor(ctx, cfg, &p.synth, cfg.Client.Model, recs)
}

// probeFor probes the endpoint of cfg, serving model, for recs' image sizes and clip lengths
// and puts rules with its counts in sc where it counts any otherwise than sc's.
func probeFor(ctx context.Context, cfg Config, sc *synth.Config, model string, recs []trace.Record) error {
	if cfg.Probe == ProbeNone || cfg.Client.BaseURL == "" || cfg.Body == BodyVerbatim {
		return nil
	}
	sizes, past := imageSizes(recs)
	clips, clipsPast := clipShapes(recs)
	if len(sizes) == 0 && len(clips) == 0 {
		return nil
	}
	base, err := baseURL(cfg.Client.BaseURL)
	if err != nil {
		return err
	}
	hc, err := preflightClient(cfg, Endpoint{URL: cfg.Client.BaseURL, Model: model, APIKey: cfg.Client.APIKey}, base)
	if err != nil {
		return err
	}
	pr := &prober{hc: hc, url: base + "/chat/completions", model: model, key: cfg.Client.APIKey, stderr: cfg.Stderr, without: -2}
	if len(sizes) > 0 {
		if err := probeImages(ctx, cfg, sc, pr, base, sizes, past); err != nil {
			return err
		}
	}
	if len(clips) > 0 {
		return probeAudio(ctx, cfg, sc, pr, base, clips, clipsPast)
	}
	return nil
}

// sayProbe says what the probe found of the window's n distinct kinds ("image sizes", "clip
// lengths") against the rule named name.
func sayProbe(w io.Writer, base, name, kinds string, n, past int, differ []string) {
	more := ""
	if past > 0 {
		more = fmt.Sprintf("; %d more %s past the first %d are counted by the rule", past, kinds, maxProbeSizes)
	}
	if len(differ) == 0 {
		fmt.Fprintf(w, "replay: probe: %s counts the window's %d %s as %s does%s\n", base, n, kinds, name, more)
		return
	}
	shown := differ
	if len(shown) > 6 {
		shown = append(shown[:6:6], fmt.Sprintf("%d more", len(differ)-6))
	}
	fmt.Fprintf(w, "replay: probe: %s counts %d of the window's %d %s otherwise than %s (%s): the prompts are built with its counts%s\n",
		base, len(differ), n, kinds, name, strings.Join(shown, "; "), more)
}

// prober sends the probe's requests.
type prober struct {
	hc         *http.Client
	url, model string
	key        string
	stderr     io.Writer
	// single is set once the endpoint refused two media in one request; without is then
	// the twin without any (-2 until asked).
	single  bool
	without int
}

// mediaTokens is the endpoint's count of one part made by part (what names the parts for
// messages): two such parts against one, else (the pair refused) one against none; -1 when
// the answers have no usage.
func (pr *prober) mediaTokens(ctx context.Context, what string, part func(int) (map[string]any, error)) (int, error) {
	one, err := pr.promptTokens(ctx, what, part, 1)
	if err != nil || one < 0 {
		return -1, err
	}
	if !pr.single {
		two, err := pr.promptTokens(ctx, what, part, 2)
		switch {
		case err == nil && two < 0:
			return -1, nil
		case err == nil:
			return two - one, nil
		case !errors.As(err, new(refusal)):
			return -1, err
		}
		pr.single = true
		fmt.Fprintf(pr.stderr, "replay: probe: %s refused two media in one request (%v): each is measured against a twin without any, the text after it counted in\n", pr.url, err)
	}
	if pr.without == -2 {
		if pr.without, err = pr.promptTokens(ctx, what, part, 0); err != nil || pr.without < 0 {
			return -1, err
		}
	}
	return one - pr.without, nil
}

// refusal is an answer other than 200 to the probe's pair: the status and what the server said.
type refusal struct{ said string }

func (r refusal) Error() string { return r.said }

// promptTokens is the endpoint's prompt count of the probe's request with n parts made by
// part after its text; -1 when the answer has no usage.
func (pr *prober) promptTokens(ctx context.Context, what string, part func(int) (map[string]any, error), n int) (int, error) {
	parts := []map[string]any{{"type": "text", "text": probeText}}
	for i := range n {
		p, err := part(i)
		if err != nil {
			return 0, err
		}
		parts = append(parts, p)
	}
	what = fmt.Sprintf("with %d %s", n, what)
	body, err := json.Marshal(map[string]any{"model": pr.model, "max_tokens": 1, "temperature": 0, "stream": false,
		"messages": []map[string]any{{"role": "user", "content": parts}}})
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, pr.url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := pr.hc.Do(req)
	if err != nil {
		return 0, fmt.Errorf("POST %s %s: %w", pr.url, what, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		said := withoutKey(strings.TrimSpace(truncate(string(b), 300)), pr.key)
		if n == 2 {
			return 0, refusal{fmt.Sprintf("HTTP %d: %s", resp.StatusCode, said)}
		}
		return 0, setupf("the endpoint refused the media probe's request %s (POST %s: HTTP %d: %s): is it serving a multimodal model with its projector? (--probe none sends nothing but the trace's requests)",
			what, pr.url, resp.StatusCode, said)
	}
	return usagePrompt(b, pr.url, what)
}

// usagePrompt is an answer's usage.prompt_tokens, -1 when it has none.
func usagePrompt(b []byte, url, what string) (int, error) {
	var ans struct {
		Usage *struct {
			PromptTokens *int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(b, &ans); err != nil {
		return 0, fmt.Errorf("POST %s %s: the answer is not JSON: %w", url, what, err)
	}
	if ans.Usage == nil || ans.Usage.PromptTokens == nil {
		return -1, nil
	}
	return *ans.Usage.PromptTokens, nil
}

// cannot is the probe giving up: a refusal stops the run (every image request would fail
// alike); an answer without usage leaves the rule, said.
func (pr *prober) cannot(cfg Config, err error) error {
	if err != nil {
		return err
	}
	fmt.Fprintf(cfg.Stderr, "replay: probe: %s gives no usage.prompt_tokens, so its media counts cannot be measured: the prompts are built with the model's rules\n", pr.url)
	return nil
}

// truncate is s cut to n bytes at most.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
