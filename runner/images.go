package runner

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/requestlog"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/synth/tokenizer"
	"github.com/llm-replay/replay/trace"
)

// SetImageRule sets the rule the prompts' images are counted by: --image-tokens N when n > 0,
// else the target model's processor's, from its folder. A folder without one is kept as the
// reason, for the first record with an image to name (a trace without images needs none).
func SetImageRule(s *synth.Config, tokPath string, tok tokenizer.Tokenizer, n int) error {
	rule, err := requestlog.ImageRule(tokPath, tok, n)
	switch {
	case err == nil:
		s.Images = rule
	case errors.Is(err, media.ErrNoRule):
		s.ImagesErr = err
	default:
		return fmt.Errorf("--tokenizer: the model's image processor: %w", err)
	}
	return nil
}

// sayImages tells what the window's images will be sent as: how many, in how many requests,
// how many distinct (each the same bytes every time it is sent), all inline as data URLs; and
// those logged as WebP, which go as PNG of the same size (the standard library writes no WebP).
func sayImages(w io.Writer, recs []trace.Record, mediaURL string) {
	images, requests, webp, urls, inferred := 0, 0, 0, 0, 0
	distinct := map[uint64]bool{}
	for _, r := range recs {
		if len(r.Media) > 0 {
			requests++
		}
		for _, m := range r.Media {
			images++
			distinct[m.Hash] = true
			if m.MIME == media.WebP {
				webp++
			}
			if m.URL {
				urls++
			}
			if m.SizeInferred {
				inferred++
			}
		}
	}
	if images == 0 {
		return
	}
	fmt.Fprintf(w, "replay: %d images in %d requests (%d distinct), sent inline as data URLs", images, requests, len(distinct))
	sized := "sized by --image-size"
	switch {
	case inferred == urls:
		sized = "sized from their lines' logged prompt tokens"
	case inferred > 0:
		sized = fmt.Sprintf("%d sized from their lines' logged prompt tokens, the rest by --image-size", inferred)
	}
	switch {
	case urls > 0 && mediaURL != "":
		fmt.Fprintf(w, "; %d logged by URL, %s, sent as URLs the engine fetches from %s (--media-listen)", urls, sized, mediaURL)
	case urls > 0:
		fmt.Fprintf(w, "; %d logged by URL, %s, inlined (--media-listen HOST:PORT sends them as URLs the engine fetches)", urls, sized)
	}
	if webp > 0 {
		fmt.Fprintf(w, "; %d logged as WebP, sent as PNG of the same size", webp)
	}
	fmt.Fprintln(w)
}

// sayImageRules says which rules counted the log's images as logged (the logged total less
// their count is the text replayed exact), and, where a logged model name named no hosted
// family, that the served model's own rule was taken for it.
func sayImageRules(w io.Writer, path string, rules map[string]int64) {
	if len(rules) == 0 {
		return
	}
	names := slices.Sorted(maps.Keys(rules))
	parts := make([]string, len(names))
	own := false
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s: %d", n, rules[n])
		own = own || strings.HasSuffix(n, "(the served model's own)")
	}
	fmt.Fprintf(w, "replay: %s: the logged images were counted as logged by %s\n", path, strings.Join(parts, "; "))
	if own {
		fmt.Fprintf(w, "replay: %s: a logged model name that names no hosted family (gpt-4o…, claude-…, gemini-…) is taken as counted as the served model counts; --logged-model ID|DIR names the model that did\n", path)
	}
}

// serveMedia starts --media-listen's server when the window has images logged as URLs.
func (p *plan) serveMedia(cfg Config, recs []trace.Record) error {
	if cfg.MediaListen == "" || p.verbatim {
		return nil
	}
	urls := 0
	for _, r := range recs {
		for _, m := range r.Media {
			if m.URL {
				urls++
			}
		}
	}
	if urls == 0 {
		fmt.Fprintf(cfg.Stderr, "replay: --media-listen: no image of the window was logged as a URL; every image is sent inline\n")
		return nil
	}
	s, err := startMediaServer(cfg.MediaListen, cfg.Client.BaseURL == "", cfg.Stderr)
	if err != nil {
		return err
	}
	p.media, p.synth.MediaURL = s, s.url
	return nil
}

// mediaRow sets the row's media figures: the logged media parts the request carried, their
// tokens by the rule its prompt was built with and as the server counted them (its usage less
// the text built), and the bytes of those inlined in its body.
func mediaRow(row *results.Row, r *synth.Request) {
	for _, m := range r.Record.Media {
		switch m.Kind {
		case trace.MediaKindImage:
			row.Images++
		default:
			row.AudioClips++
		}
	}
	if len(r.Record.Media) == 0 {
		return
	}
	row.MediaTokens = int32(r.MediaTokens)
	row.ServerMediaTokens = -1
	if row.PromptTokens >= 0 {
		row.ServerMediaTokens = row.PromptTokens - (row.TargetPromptTokens - row.MediaTokens)
	}
	for _, msg := range r.Messages {
		for _, p := range msg.Parts {
			row.MediaBytes += int64(media.DataURLBytes(p.ImageURL) + media.Base64Bytes(p.AudioData))
		}
	}
}
