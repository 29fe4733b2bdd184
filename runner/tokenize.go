package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/engine"
	"github.com/llm-replay/replay/tokcheck"
	"github.com/llm-replay/replay/trace"
)

// The values of Config.TokenizeCheck.
const (
	TokenizeAuto = "auto" // on when the engine is known to serve a tokenize route
	TokenizeNone = "none"
	TokenizeOn   = "on"
)

// tokenizeTimeout bounds the whole cross-check: a server that tokenizes slowly costs the run's
// end at most this, and the Result says how many it checked.
const tokenizeTimeout = 2 * time.Minute

// tokenizeCheck asks the endpoint's tokenize route for an evenly spaced sample of the plan's
// prompts, after the measured run (it must not perturb timing), and compares with the
// targeted prompt tokens the rows record. Nil when the check is off or cannot apply; why it
// cannot is printed to w.
func tokenizeCheck(cfg Config, p *plan, tg *target, notSent int, w io.Writer) *analysis.TokenizeCheck {
	mode := strings.ToLower(cfg.TokenizeCheck)
	if mode == "" || mode == TokenizeNone || tg.eng == nil {
		return nil
	}
	d, known := tokcheck.ForEngine(string(tg.eng.choice.Engine))
	if mode == TokenizeAuto && (!known || tg.simulated || tg.eng.choice.Simulator != "") {
		// replay sim speaks vLLM's dialect but serves no tokenize route; its counts are the
		// run's own tokenizer's (tokenizer_sha256 says when they are not).
		return nil
	}
	if !known {
		d = tokcheck.LlamaCpp // --tokenize-check on against an engine not named: llama.cpp's route
	}
	why := ""
	switch {
	case p.verbatim:
		why = "the bodies were sent verbatim, so replay counted no prompt"
	case p.stream != nil:
		why = "the plan was built as the run went and kept no prompts"
	}
	if why != "" {
		fmt.Fprintf(w, "replay: tokenize cross-check not run: %s\n", why)
		return nil
	}
	idx := tokcheck.Sample(len(p.reqs), tokcheck.MaxSample)
	prompts := make([]tokcheck.Prompt, 0, len(idx))
	for _, i := range idx {
		r := &p.reqs[i]
		if r.Inputs != nil {
			continue // an embeddings batch: several texts, which one /tokenize call does not count
		}
		chatAPI := trace.ChatFamily(string(r.API))
		// A prompt's images are not in the text the route tokenizes (their parts marshal as
		// the text alone), so it is compared with the text's share, counted whole as the route
		// counts it (llama.cpp counts a prompt's text piece by piece around its images).
		want := r.TargetPromptTokens - r.MediaTokens
		if r.MediaTokens > 0 && r.TextTokens > 0 {
			want = r.TextTokens
		}
		pr := tokcheck.Prompt{ID: requestID(r, false), Chat: chatAPI, Text: r.Prompt, Want: int64(want)}
		if chatAPI {
			m, err := json.Marshal(r.Messages)
			if err != nil {
				fmt.Fprintf(w, "replay: tokenize cross-check: request %s: %v\n", pr.ID, err)
				continue
			}
			pr.Messages = m
		}
		prompts = append(prompts, pr)
	}
	root, err := engine.ServerRoot(tg.eng.base)
	if err != nil {
		fmt.Fprintf(w, "replay: tokenize cross-check not run: %v\n", err)
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), tokenizeTimeout)
	defer cancel()
	s := tokcheck.Server{HTTP: tg.eng.http, Base: root, Model: tg.model, Dialect: d}
	return tokcheck.Check(ctx, s, prompts, max(0, len(p.reqs)-notSent))
}

// CheckTokenizeCheck is nil when mode is a word --tokenize-check takes.
func CheckTokenizeCheck(mode string) error {
	switch strings.ToLower(mode) {
	case "", TokenizeAuto, TokenizeNone, TokenizeOn:
		return nil
	}
	return fmt.Errorf("--tokenize-check %q: want %s, %s or %s", mode, TokenizeAuto, TokenizeNone, TokenizeOn)
}
