package runner

import (
	"context"
	"encoding/base64"
	"fmt"

	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/trace"
)

// audioprobe.go is the probe of the window's audio clips (mediaprobe.go sends it): each
// distinct clip (rate, channels, length) measured at the endpoint as a WAV stand-in of its
// shape, the part a replay sends for it, and where any counts otherwise than the model's
// audio rule, the prompts built with the endpoint's counts (media.MeasuredAudio).

// probeAudio measures each of clips at the endpoint and, where it counts any otherwise than
// sc.Audio, puts a rule with its counts there.
func probeAudio(ctx context.Context, cfg Config, sc *synth.Config, pr *prober, base string, clips []media.Audio, past int) error {
	m := media.MeasuredAudio{Base: sc.Audio, Counts: map[media.Clip]int{}, By: base}
	var differ []string
	for _, a := range clips {
		what := fmt.Sprintf("clips of %d samples at %d Hz", a.Samples, a.SampleRate)
		got, err := pr.mediaTokens(ctx, what, clipPart(a))
		if err != nil || got < 0 {
			return pr.cannot(cfg, err)
		}
		m.Counts[media.ClipOf(a)] = got
		shown := fmt.Sprintf("%.2f s at %d Hz", float64(a.Samples)/float64(a.SampleRate), a.SampleRate)
		switch want, err := sc.Audio.Tokens(a); {
		case err != nil:
			differ = append(differ, fmt.Sprintf("%s: %d (the rule: %v)", shown, got, err))
		case want != got:
			differ = append(differ, fmt.Sprintf("%s: %d, the rule %d", shown, got, want))
		}
	}
	sayProbe(cfg.Stderr, base, sc.Audio.Name(), "clip lengths", len(clips), past, differ)
	if len(differ) > 0 {
		sc.Audio, sc.AudioErr = m, nil
	}
	return nil
}

// clipPart makes the probe's i-th input_audio part for clips shaped as a: the WAV stand-in
// a replay sends for such a clip (media.BuildAudio), drawn apart for each i.
func clipPart(a media.Audio) func(int) (map[string]any, error) {
	return func(i int) (map[string]any, error) {
		clip, err := media.BuildAudio(uint64(a.Samples)<<20^uint64(a.SampleRate)^0x70726f6265^uint64(i)<<60, a)
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "input_audio", "input_audio": map[string]any{"data": base64.StdEncoding.EncodeToString(clip.Data), "format": "wav"}}, nil
	}
}

// clipShapes is the window's distinct clips (rate, channels, length) in the order first met,
// at most maxProbeSizes, and how many more there are. Without an audio rule there is none to
// correct: checkAudioRule has stopped such a window.
func clipShapes(recs []trace.Record) ([]media.Audio, int) {
	seen := map[media.Clip]bool{}
	var out []media.Audio
	past := 0
	for _, r := range recs {
		for _, m := range r.Media {
			if m.Kind != trace.MediaKindAudio {
				continue
			}
			a := media.Audio{Format: media.WAV, SampleRate: m.SampleRate, Channels: m.Channels, Bits: m.Bits, Samples: m.Samples}
			if m.MIME == "audio/mpeg" { // sent as a WAV of its length, as synth sends it
				a.Format = media.MP3
			}
			if seen[media.ClipOf(a)] {
				continue
			}
			seen[media.ClipOf(a)] = true
			if len(out) == maxProbeSizes {
				past++
				continue
			}
			out = append(out, a)
		}
	}
	return out, past
}
