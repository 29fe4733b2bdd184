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

	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/trace"
)

// imageprobe.go measures, before any prompt is built, how the endpoint counts each distinct
// image size of the window: a chat request holding two images of the size after a text and
// its twin holding one (max_tokens 1), the difference of their usage.prompt_tokens being what
// the engine charges for one image, wrapper and all. The text around the images is the same
// in both twins, so how the engine tokenizes it does not enter the count (llama.cpp
// tokenizes the text after an image apart: a twin without any image would charge the image
// for that). An engine that takes one image a request (vLLM's --limit-mm-per-prompt) refuses
// the pair; the probe then measures one image against none, said. An engine may count
// otherwise than the model's processor (llama.cpp clamps Qwen images to its own token range),
// and a replay's lengths are only as exact as this count: where it differs from the rule the
// prompts would be built with, the run says so and builds with the endpoint's. --probe none
// sends nothing but the trace's requests; the built-in simulator counts by the rule itself
// and is never probed. Probe requests are no rows and are counted nowhere.

// Probe values (Config.Probe; "" is ProbeAuto).
const (
	ProbeAuto = "auto"
	ProbeNone = "none"
)

// maxProbeSizes bounds the sizes probed: two requests each, before the run. Sizes past it are
// counted by the rule (the run says how many).
const maxProbeSizes = 32

// probeText is the text both twins carry.
const probeText = "Describe the image in one word."

// probeImages probes the endpoint of cfg for the window's image sizes and, where it counts
// any otherwise than p.synth.Images, puts a rule with its counts there.
func (p *plan) probeImages(ctx context.Context, cfg Config, recs []trace.Record) error {
	if cfg.Probe == ProbeNone || cfg.Client.BaseURL == "" || p.verbatim {
		return nil
	}
	sizes, past := imageSizes(recs)
	if len(sizes) == 0 {
		return nil
	}
	if p.models != nil {
		fmt.Fprintf(cfg.Stderr, "replay: probe: not run for a --model-map run; each model's images are counted by its own folder's rule\n")
		return nil
	}
	base, err := baseURL(cfg.Client.BaseURL)
	if err != nil {
		return err
	}
	hc, err := preflightClient(cfg, Endpoint{URL: cfg.Client.BaseURL, Model: cfg.Client.Model, APIKey: cfg.Client.APIKey}, base)
	if err != nil {
		return err
	}
	pr := &imageProber{hc: hc, url: base + "/chat/completions", model: cfg.Client.Model, key: cfg.Client.APIKey, stderr: cfg.Stderr}
	m := media.Measured{Base: p.synth.Images, Counts: map[media.Size]int{}, By: base}
	var differ []string
	for _, s := range sizes {
		got, err := pr.imageTokens(ctx, s)
		if err != nil || got < 0 {
			return pr.cannot(cfg, err)
		}
		m.Counts[media.Size{Width: s.Width, Height: s.Height}] = got
		switch want, err := ruleTokens(p.synth.Images, s); {
		case err != nil:
			differ = append(differ, fmt.Sprintf("%dx%d: %d (the rule: %v)", s.Width, s.Height, got, err))
		case want != got:
			differ = append(differ, fmt.Sprintf("%dx%d: %d, the rule %d", s.Width, s.Height, got, want))
		}
	}
	sayProbe(cfg.Stderr, base, p.synth.Images, len(sizes), past, differ)
	if len(differ) > 0 {
		p.synth.Images, p.synth.ImagesErr = m, nil
	}
	return nil
}

// ruleTokens is rule's count of the probed size (an error when there is no rule).
func ruleTokens(rule media.Rule, s probeSize) (int, error) {
	if rule == nil {
		return 0, media.ErrNoRule
	}
	return rule.Tokens(s.Width, s.Height)
}

// sayProbe says what the probe found.
func sayProbe(w io.Writer, base string, rule media.Rule, n, past int, differ []string) {
	name := "no rule (the model's folder has none)"
	if rule != nil {
		name = rule.Name()
	}
	more := ""
	if past > 0 {
		more = fmt.Sprintf("; %d more sizes past the first %d are counted by the rule", past, maxProbeSizes)
	}
	if len(differ) == 0 {
		fmt.Fprintf(w, "replay: probe: %s counts the window's %d image sizes as %s does%s\n", base, n, name, more)
		return
	}
	shown := differ
	if len(shown) > 6 {
		shown = append(shown[:6:6], fmt.Sprintf("%d more", len(differ)-6))
	}
	fmt.Fprintf(w, "replay: probe: %s counts %d of the window's %d image sizes otherwise than %s (%s): the prompts are built with its counts%s\n",
		base, len(differ), n, name, strings.Join(shown, "; "), more)
}

// probeSize is one distinct image of the window to probe: its size, and the format and detail
// it was first logged with.
type probeSize struct {
	Width, Height int
	MIME, Detail  string
}

// imageSizes is the window's distinct image sizes in the order first met, at most
// maxProbeSizes, and how many more there are.
func imageSizes(recs []trace.Record) ([]probeSize, int) {
	seen := map[media.Size]bool{}
	var out []probeSize
	past := 0
	for _, r := range recs {
		for _, m := range r.Media {
			k := media.Size{Width: m.Width, Height: m.Height}
			if m.Kind != trace.MediaKindImage || seen[k] {
				continue
			}
			seen[k] = true
			if len(out) == maxProbeSizes {
				past++
				continue
			}
			out = append(out, probeSize{m.Width, m.Height, m.MIME, m.Detail})
		}
	}
	return out, past
}

// imageProber sends the probe's requests.
type imageProber struct {
	hc         *http.Client
	url, model string
	key        string
	stderr     io.Writer
	// single is set once the endpoint refused two images in one request; without is then
	// the twin without any (-2 until asked).
	single  bool
	without int
}

// imageTokens is the endpoint's count of one image of size s: two such images against one,
// else (the pair refused) one against none; -1 when the answers have no usage.
func (pr *imageProber) imageTokens(ctx context.Context, s probeSize) (int, error) {
	one, err := pr.promptTokens(ctx, s, 1)
	if err != nil || one < 0 {
		return -1, err
	}
	if !pr.single {
		two, err := pr.promptTokens(ctx, s, 2)
		switch {
		case err == nil && two < 0:
			return -1, nil
		case err == nil:
			return two - one, nil
		case !errors.As(err, new(refusal)):
			return -1, err
		}
		pr.single, pr.without = true, -2
		fmt.Fprintf(pr.stderr, "replay: probe: %s refused two images in one request (%v): each size is measured against a twin without any image, the text after the image counted in\n", pr.url, err)
	}
	if pr.without == -2 {
		if pr.without, err = pr.promptTokens(ctx, s, 0); err != nil || pr.without < 0 {
			return -1, err
		}
	}
	return one - pr.without, nil
}

// refusal is an answer other than 200 to the probe's pair: the status and what the server said.
type refusal struct{ said string }

func (r refusal) Error() string { return r.said }

// promptTokens is the endpoint's prompt count of the probe's request with n images of size s
// after its text, each drawn apart; -1 when the answer has no usage.
func (pr *imageProber) promptTokens(ctx context.Context, s probeSize, n int) (int, error) {
	parts := []map[string]any{{"type": "text", "text": probeText}}
	what := fmt.Sprintf("with %d %dx%d images", n, s.Width, s.Height)
	for i := range n {
		img, err := media.Build(uint64(s.Width)<<32|uint64(s.Height)^0x70726f6265^uint64(i)<<60, s.Width, s.Height, s.MIME)
		if err != nil {
			return 0, err
		}
		iu := map[string]any{"url": media.DataURL(img.MIME, img.Data)}
		if s.Detail != "" {
			iu["detail"] = s.Detail
		}
		parts = append(parts, map[string]any{"type": "image_url", "image_url": iu})
	}
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
		return 0, setupf("the endpoint refused the image probe's request %s (POST %s: HTTP %d: %s): is it serving a vision model with its projector? (--probe none sends nothing but the trace's requests)",
			what, pr.url, resp.StatusCode, said)
	}
	var ans struct {
		Usage *struct {
			PromptTokens *int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(b, &ans); err != nil {
		return 0, fmt.Errorf("POST %s %s: the answer is not JSON: %w", pr.url, what, err)
	}
	if ans.Usage == nil || ans.Usage.PromptTokens == nil {
		return -1, nil
	}
	return *ans.Usage.PromptTokens, nil
}

// cannot is the probe giving up: a refusal stops the run (every image request would fail
// alike); an answer without usage leaves the rule, said.
func (pr *imageProber) cannot(cfg Config, err error) error {
	if err != nil {
		return err
	}
	fmt.Fprintf(cfg.Stderr, "replay: probe: %s gives no usage.prompt_tokens, so its image counts cannot be measured: the prompts are built with the model's rule\n", pr.url)
	return nil
}

// truncate is s cut to n bytes at most.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
