package media

import (
	"fmt"
	"path/filepath"
)

// qwen2audio.go is Qwen2-Audio's audio count. Its processor hands a clip, resampled to the
// feature extractor's rate, to WhisperFeatureExtractor with padding "max_length" and truncation
// (the defaults): the clip is cut to n_samples (chunk_length seconds) and padded to it, and the
// attention mask, taken every hop_length samples, holds ceil(samples/hop_length) ones. The
// processor turns that length L into (L-1)//2+1 (the encoder's stride-2 convolution) and then
// (that-2)//2+1 (its pooling) <|AUDIO|> placeholders, and, the placeholder standing alone,
// wraps them in <|audio_bos|> and <|audio_eos|>. Sources:
// huggingface/transformers@718881e4f5ad7c1c32e6422a775dada915d874ac
// src/transformers/models/qwen2_audio/processing_qwen2_audio.py (Qwen2AudioProcessor.__call__:
// padding "max_length", feature_attention_mask.sum(-1), input_length and num_audio_tokens, the
// bos/eos wrapping); huggingface/transformers@2b8974103c658294f0a354ec9bdb45c120ea8d6b
// src/transformers/models/whisper/feature_extraction_whisper.py (__call__: max_length
// n_samples, truncation=True, attention_mask[:, ::hop_length]); the defaults below are
// WhisperFeatureExtractor's (sampling_rate 16000, hop_length 160, chunk_length 30) and are what
// Qwen/Qwen2-Audio-7B-Instruct's preprocessor_config.json holds, which is read when present. A
// 30 s clip is 3000 frames, 1500 after the convolution, 750 tokens: 25 a second.
//
// Qwen2.5-Omni's processor counts a clip alike: the same extractor call (padding "max_length",
// truncation left at its default) and the same two steps from the mask's sum to its audio
// placeholders, which its chat template wraps in the same <|audio_bos|> and <|audio_eos|>:
// huggingface/transformers@45a60df69833d734eaf56edb702988fbbd1e9321
// src/transformers/models/qwen2_5_omni/processing_qwen2_5_omni.py (Qwen2_5OmniProcessor.__call__:
// input_lengths and audio_lengths). Its preprocessor_config.json holds the extractor's values
// beside the image processor's.
//
// Resampling: engines resample a clip to the extractor's rate before extracting (vLLM with
// librosa.resample, whose output has ceil(n·target/source) samples), so a clip of n samples at
// rate r has ceil(n·16000/r) at 16 kHz.

// whisperPreprocessor is what the rule reads of preprocessor_config.json.
type whisperPreprocessor struct {
	SamplingRate *int `json:"sampling_rate"`
	HopLength    *int `json:"hop_length"`
	ChunkLength  *int `json:"chunk_length"`
	NSamples     *int `json:"n_samples"`
}

// Qwen2Audio is Qwen2-Audio's (and Qwen2.5-Omni's) rule with its feature extractor's values.
type Qwen2Audio struct {
	// Family is the model_type it was loaded for ("" reads as qwen2_audio).
	Family              string
	Rate, Hop, NSamples int
	// Wrap is the tokens of <|audio_bos|> and <|audio_eos|> as the model's tokenizer encodes
	// them: 2, both special (2 when no counter is given).
	Wrap int
}

func loadQwen2Audio(dir, family string, count Counter) (AudioRule, error) {
	var p whisperPreprocessor
	if _, err := readJSON(dir, "preprocessor_config.json", &p); err != nil {
		return nil, err
	}
	r := Qwen2Audio{Family: family, Rate: 16000, Hop: 160, NSamples: 30 * 16000, Wrap: 2}
	if p.SamplingRate != nil {
		r.Rate = *p.SamplingRate
	}
	if p.HopLength != nil {
		r.Hop = *p.HopLength
	}
	switch {
	case p.NSamples != nil:
		r.NSamples = *p.NSamples
	case p.ChunkLength != nil:
		r.NSamples = *p.ChunkLength * r.Rate
	default:
		r.NSamples = 30 * r.Rate
	}
	if count != nil {
		r.Wrap = count("<|audio_bos|><|audio_eos|>")
	}
	if r.Rate <= 0 || r.Hop <= 0 || r.NSamples < r.Hop {
		return nil, fmt.Errorf("%s: sampling_rate %d, hop_length %d, n_samples %d: not a usable feature extractor",
			filepath.Join(dir, "preprocessor_config.json"), r.Rate, r.Hop, r.NSamples)
	}
	return r, nil
}

func (r Qwen2Audio) Name() string {
	family := r.Family
	if family == "" {
		family = "qwen2_audio"
	}
	return fmt.Sprintf("%s (whisper features at %d Hz, hop %d, %d samples)", family, r.Rate, r.Hop, r.NSamples)
}

// Tokens is the placeholders of the clip's feature frames plus the two wrapper tokens.
func (r Qwen2Audio) Tokens(a Audio) (int, error) {
	if a.SampleRate <= 0 || a.Samples <= 0 {
		return 0, fmt.Errorf("a clip of %d samples at %d Hz has no duration", a.Samples, a.SampleRate)
	}
	n := resampled(a.Samples, a.SampleRate, r.Rate)
	n = min(n, int64(r.NSamples))
	frames := (n + int64(r.Hop) - 1) / int64(r.Hop)
	return Qwen2AudioPlaceholders(int(frames)) + r.Wrap, nil
}

// Qwen2AudioPlaceholders is the processor's <|AUDIO|> count for a feature length of frames.
// The divisions are Python's //, which rounds down: a clip of one or two frames has none.
func Qwen2AudioPlaceholders(frames int) int {
	input := floorDiv(frames-1, 2) + 1
	return floorDiv(input-2, 2) + 1
}

// floorDiv is Python's a // b for b > 0.
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// resampled is a clip's length in samples at rate to, from n at rate from: ceil(n·to/from).
func resampled(n int64, from, to int) int64 {
	if from == to {
		return n
	}
	return (n*int64(to) + int64(from) - 1) / int64(from)
}
