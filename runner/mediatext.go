package runner

import (
	"context"
	"fmt"

	"github.com/llm-replay/replay/engine"
	"github.com/llm-replay/replay/trace"
)

// mediatext.go decides how the text of a prompt holding images or clips is counted. A
// model's processor (vLLM, SGLang, Hugging Face) tokenizes the prompt whole, placeholders
// in. llama.cpp's server cuts the rendered prompt where each part was and tokenizes every
// piece of text alone (mtmd_tokenize), so a SentencePiece vocabulary that prefixes a space
// ("▁") prefixes each piece: LLaVA-1.5 on its Vicuna or Mistral vocabulary counts 1 to 3
// tokens more an image than the whole text has. Replay builds such prompts exact to the
// server's count when the endpoint is llama.cpp (--engine llamacpp, or detected).

// mediaText sets p.synth.MediaSplitsText when the window holds media and the endpoint is
// llama.cpp. A paired run builds one prompt for every endpoint: the first endpoint decides.
func (p *plan) mediaText(ctx context.Context, cfg Config, recs []trace.Record) error {
	if cfg.Client.BaseURL == "" || p.verbatim || !holdsMedia(recs) {
		return nil
	}
	eng, err := engine.ParseEngine(cfg.Engine)
	if err != nil {
		return err
	}
	base, err := baseURL(cfg.Client.BaseURL)
	if err != nil {
		return err
	}
	how := "--engine"
	if eng == engine.Auto {
		hc, err := preflightClient(cfg, Endpoint{URL: cfg.Client.BaseURL, Model: cfg.Client.Model, APIKey: cfg.Client.APIKey}, base)
		if err != nil {
			return err
		}
		det, err := engine.Detect(ctx, hc, base)
		if err != nil {
			return err
		}
		eng, how = det.Engine, "detected"
	}
	if eng != engine.LlamaCpp {
		return nil
	}
	p.synth.MediaSplitsText = true
	fmt.Fprintf(cfg.Stderr, "replay: %s is llama.cpp (%s), which tokenizes the text between a prompt's images and clips piece by piece: each prompt's text is counted as it does\n", base, how)
	return nil
}

// holdsMedia says whether any record carries an image or a clip.
func holdsMedia(recs []trace.Record) bool {
	for _, r := range recs {
		if len(r.Media) > 0 {
			return true
		}
	}
	return false
}
