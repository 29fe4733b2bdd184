package runner

import (
	"errors"
	"fmt"
	"io"

	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/requestlog"
	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/synth/tokenizer"
	"github.com/llm-replay/replay/trace"
)

// SetAudioRule sets the rule the prompts' audio clips are counted by: --audio-tokens-per-second
// R when rate > 0, else the target model's processor's, from its folder. A folder without one
// is kept as the reason (a trace without audio needs none; checkAudioRule names it before
// anything is sent when the window has a clip).
func SetAudioRule(s *synth.Config, tokPath string, tok tokenizer.Tokenizer, rate float64) error {
	rule, err := requestlog.AudioRule(tokPath, tok, rate)
	switch {
	case err == nil:
		s.Audio = rule
	case errors.Is(err, media.ErrNoAudioRule):
		s.AudioErr = err
	default:
		return fmt.Errorf("--tokenizer: the model's audio processor: %w", err)
	}
	return nil
}

// checkAudioRule refuses a window holding audio clips when the target model has no audio rule
// (audio sent to a vision-only or text model), before the first prompt is built or sent,
// naming the first such record, why the folder has none and the flag that is the way out.
func checkAudioRule(s synth.Config, recs []trace.Record) error {
	if s.Audio != nil {
		return nil
	}
	for _, r := range recs {
		for _, m := range r.Media {
			if m.Kind == trace.MediaKindAudio {
				return fmt.Errorf("%s:%d: the request holds an audio clip, but the target model has no audio token rule (%v): give --audio-tokens-per-second R",
					r.Source, r.Line, s.AudioErr)
			}
		}
	}
	return nil
}

// sayAudio tells what the window's clips will be sent as: how many, in how many requests, how
// many distinct (each the same bytes every time it is sent), all inline as WAV; and those
// logged as MP3, which go as WAV of the same length (no well-kept pure-Go MP3 encoder).
func sayAudio(w io.Writer, recs []trace.Record) {
	clips, requests, mp3 := 0, 0, 0
	distinct := map[uint64]bool{}
	for _, r := range recs {
		has := false
		for _, m := range r.Media {
			if m.Kind != trace.MediaKindAudio {
				continue
			}
			clips++
			has = true
			distinct[m.Hash] = true
			if m.MIME == "audio/mpeg" {
				mp3++
			}
		}
		if has {
			requests++
		}
	}
	if clips == 0 {
		return
	}
	fmt.Fprintf(w, "replay: %d audio clips in %d requests (%d distinct), sent inline as input_audio WAV", clips, requests, len(distinct))
	if mp3 > 0 {
		fmt.Fprintf(w, "; %d logged as MP3, sent as WAV of the same length", mp3)
	}
	fmt.Fprintln(w)
}
