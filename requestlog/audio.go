package requestlog

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/synth/tokenizer"
	"github.com/llm-replay/replay/trace"
)

// audio.go reads the audio clips of chat messages, input_audio parts in OpenAI's shape
// ({"type":"input_audio","input_audio":{"data":BASE64,"format":"wav"|"mp3"}},
// https://platform.openai.com/docs/api-reference/chat/create), into trace.MediaParts of kind
// audio: the format, rate, channels and length from the clip's headers (media.ReadAudio), a
// keyed hash of its bytes, and the prompt tokens the served model's processor turns it into
// (Options.Audio). The bytes are dropped once read.

// audioPart reads an input_audio part's data and format.
func audioPart(po map[string]any, pf string) (loggedPart, error) {
	lp := loggedPart{kind: trace.MediaKindAudio, field: pf + ".input_audio.data"}
	ia, ok := po["input_audio"].(map[string]any)
	if !ok {
		return lp, bad(pf+".input_audio", "missing or not an object")
	}
	if lp.data, ok = ia["data"].(string); !ok {
		return lp, bad(lp.field, "missing or not a string")
	}
	if f, ok := ia["format"].(string); ok {
		lp.format = f
	} else if ia["format"] != nil {
		return lp, bad(pf+".input_audio.format", "not a string")
	}
	return lp, nil
}

// errNoAudioRule is a line's clip when no rule counts audio: every line with one would fail
// alike, so the reader stops at the first even under --on-error skip.
var errNoAudioRule = errors.New("the request holds an audio clip, but no audio token rule is known")

func (r *Reader) readAudio(lp loggedPart, h *blockHasher) (trace.MediaPart, error) {
	m := trace.MediaPart{Kind: trace.MediaKindAudio, Message: lp.message, Part: lp.part, Parts: lp.parts}
	data, err := decodeAudioData(lp.data)
	var a media.Audio
	if err == nil {
		a, err = media.ReadAudio(data, lp.format)
	}
	if err != nil {
		return m, &fieldError{field: lp.field, err: err}
	}
	m.MIME, m.SampleRate, m.Channels, m.Bits, m.Samples = a.MIME(), a.SampleRate, a.Channels, a.Bits, a.Samples
	m.Hash = h.mediaHash("audio", data)
	if r.opts.Audio == nil {
		why := r.opts.AudioErr
		if why == nil {
			why = media.ErrNoAudioRule
		}
		return m, &fieldError{field: lp.field, err: fmt.Errorf("%w: %w", errNoAudioRule, why)}
	}
	n, err := r.opts.Audio.Tokens(a)
	if err != nil {
		return m, &fieldError{field: lp.field, err: fmt.Errorf("%s (%s, %.3f s): %w", r.opts.Audio.Name(), a.Format, a.Seconds(), err)}
	}
	m.Tokens = n
	return m, nil
}

// decodeAudioData decodes an input_audio part's base64 data (padding may be left off), within
// media.MaxAudioBytes.
func decodeAudioData(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(strings.ToLower(s), "data:") {
		return nil, errors.New("a data URL where input_audio takes bare base64 data")
	}
	return media.DecodeBase64(s, media.MaxAudioBytes)
}

// AudioRule is the rule a request log's clips are counted by: --audio-tokens-per-second R
// when rate > 0, else the model's own from the folder of the tokenizer at tokPath
// (media.LoadAudio, its wrapper text counted by tok). err wraps media.ErrNoAudioRule when the
// folder names no family with one: the caller keeps it for the first clip (a log without audio
// needs no rule).
func AudioRule(tokPath string, tok tokenizer.Tokenizer, rate float64) (media.AudioRule, error) {
	if rate > 0 {
		return media.TokensPerSecond(rate), nil
	}
	return media.LoadAudio(tokPath, func(s string) int { return len(tok.Encode(s, false)) })
}

// SetAudio fills the audio options from --audio-tokens-per-second (0 for the model's own rule,
// read from the folder of the tokenizer at tokPath). A folder without a rule is not an error
// here (AudioErr keeps why): only a line with a clip needs one.
func (o *Options) SetAudio(tokPath string, rate float64) error {
	if rate < 0 || math.IsNaN(rate) || math.IsInf(rate, 0) {
		return fmt.Errorf("--audio-tokens-per-second %g: must be a finite number, positive (0: the model's own rule)", rate)
	}
	rule, err := AudioRule(tokPath, o.Tokenizer, rate)
	switch {
	case err == nil:
		o.Audio = rule
	case errors.Is(err, media.ErrNoAudioRule):
		o.AudioErr = err
	default:
		return fmt.Errorf("--tokenizer: the model's audio processor: %w", err)
	}
	return nil
}
