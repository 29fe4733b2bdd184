package runner

import (
	"context"
	"fmt"

	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/trace"
)

// imageprobe.go is the probe of the window's image sizes (mediaprobe.go sends it): each
// distinct size measured at the endpoint, and where any counts otherwise than the model's rule,
// the prompts built with the endpoint's counts (media.Measured).

// probeImages measures each of sizes at the endpoint and, where it counts any otherwise than
// sc.Images, puts a rule with its counts there.
func probeImages(ctx context.Context, cfg Config, sc *synth.Config, pr *prober, base string, sizes []probeSize, past int) error {
	m := media.Measured{Base: sc.Images, Counts: map[media.Size]int{}, By: base}
	var differ []string
	for _, s := range sizes {
		what := fmt.Sprintf("%dx%d images", s.Width, s.Height)
		got, err := pr.mediaTokens(ctx, what, s.part)
		if err != nil || got < 0 {
			return pr.cannot(cfg, err)
		}
		m.Counts[media.Size{Width: s.Width, Height: s.Height}] = got
		switch want, err := ruleTokens(sc.Images, s); {
		case err != nil:
			differ = append(differ, fmt.Sprintf("%dx%d: %d (the rule: %v)", s.Width, s.Height, got, err))
		case want != got:
			differ = append(differ, fmt.Sprintf("%dx%d: %d, the rule %d", s.Width, s.Height, got, want))
		}
	}
	name := "no rule (the model's folder has none)"
	if sc.Images != nil {
		name = sc.Images.Name()
	}
	sayProbe(cfg.Stderr, base, name, "image sizes", len(sizes), past, differ)
	if len(differ) > 0 {
		sc.Images, sc.ImagesErr = m, nil
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

// probeSize is one distinct image of the window to probe: its size, and the format and detail
// it was first logged with.
type probeSize struct {
	Width, Height int
	MIME, Detail  string
}

// part is the i-th image part of the probe's requests: a stand-in of the size, drawn apart
// for each i.
func (s probeSize) part(i int) (map[string]any, error) {
	img, err := media.Build(uint64(s.Width)<<32|uint64(s.Height)^0x70726f6265^uint64(i)<<60, s.Width, s.Height, s.MIME)
	if err != nil {
		return nil, err
	}
	iu := map[string]any{"url": media.DataURL(img.MIME, img.Data)}
	if s.Detail != "" {
		iu["detail"] = s.Detail
	}
	return map[string]any{"type": "image_url", "image_url": iu}, nil
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
