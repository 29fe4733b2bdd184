package media

import (
	"errors"
	"fmt"
	"math"
)

// AudioRule is how a model's processor counts an audio clip: the prompt tokens one clip adds,
// its placeholders and the tokens the processor wraps them in. As with images, the chat
// template's text around a clip is counted with the message's text, where audio parts render
// nothing.
type AudioRule interface {
	// Name says which rule this is, for messages.
	Name() string
	// Tokens is the prompt tokens clip a adds.
	Tokens(a Audio) (int, error)
}

// ErrNoAudioRule is wrapped by LoadAudio's error when a folder names no family replay has an
// audio rule for; --audio-tokens-per-second R is the way out.
var ErrNoAudioRule = errors.New("no audio token rule for this model (give --audio-tokens-per-second R)")

// LoadAudio chooses the audio rule of the model whose folder holds path (a tokenizer.json or
// its folder) as Hugging Face's AutoProcessor chooses the processor: by config.json's
// model_type, with the feature extractor's values from preprocessor_config.json. count counts
// the processor's wrapper text. A folder without config.json, or of a family without an audio
// rule (a text or vision model), is an error wrapping ErrNoAudioRule.
func LoadAudio(path string, count Counter) (AudioRule, error) {
	dir, cfg, err := readModelConfig(path, ErrNoAudioRule)
	if err != nil {
		return nil, err
	}
	switch cfg.ModelType {
	case "qwen2_audio", "qwen2_5_omni":
		return loadQwen2Audio(dir, cfg.ModelType, count)
	case "voxtral":
		return loadVoxtral(dir)
	case "":
		return nil, fmt.Errorf("%s: config.json has no model_type: %w", dir, ErrNoAudioRule)
	}
	return nil, fmt.Errorf("%s: model_type %q takes no audio replay knows of: %w", dir, cfg.ModelType, ErrNoAudioRule)
}

// TokensPerSecond is --audio-tokens-per-second R: a clip adds ceil(R × seconds) prompt tokens,
// seconds its samples over its rate, computed as R·samples/rate in float64 and rounded up (a
// part of a token is a whole one: a processor pads a clip's last window rather than drop it).
func TokensPerSecond(r float64) AudioRule { return perSecond(r) }

type perSecond float64

func (r perSecond) Name() string { return fmt.Sprintf("--audio-tokens-per-second %g", float64(r)) }

func (r perSecond) Tokens(a Audio) (int, error) {
	if a.SampleRate <= 0 || a.Samples <= 0 {
		return 0, fmt.Errorf("a clip of %d samples at %d Hz has no duration", a.Samples, a.SampleRate)
	}
	return int(math.Ceil(float64(r) * float64(a.Samples) / float64(a.SampleRate))), nil
}
