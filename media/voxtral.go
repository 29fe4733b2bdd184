package media

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
)

// voxtral.go is Voxtral's audio count, which mistral_common's tokenizer makes (transformers'
// VoxtralProcessor hands the conversation to it). The clip, resampled to the tokenizer's rate,
// is padded to the next multiple of chunk_length_s seconds (to at least one window without
// chunking); its length over hop_length is the log-mel frames (ceil(length/hop − 1) when the
// hop does not divide it); a token covers int((rate // frame_rate) / hop_length) frames; the
// clip is [BEGIN_AUDIO] and ceil(frames / that) [AUDIO] tokens. With Voxtral's values
// (16 kHz, frame rate 12.5, hop 160, chunks of 30 s) every started 30 s is 375 tokens, and a
// clip one more. Source: mistralai/mistral-common@5f8a50f487ae3572c5dbde4782f91c984e9ee059
// src/mistral_common/tokens/tokenizers/audio.py (AudioConfig.chunk_frames and
// audio_length_per_tok, AudioEncoder.pad, next_multiple_of_chunk_frames, _encode_audio); the
// values are the "audio" object of the model folder's tekken.json (sampling_rate, frame_rate,
// chunk_length_s, audio_encoding_config.hop_length and window_size), which
// huggingface/transformers@63210d0e3b74c2119b7998ff65bc6a2729283626
// src/transformers/models/voxtral/processing_voxtral.py's MistralCommonTokenizer reads.

// tekkenAudio is what the rule reads of tekken.json.
type tekkenAudio struct {
	Audio *struct {
		SamplingRate   int      `json:"sampling_rate"`
		FrameRate      float64  `json:"frame_rate"`
		ChunkLengthS   *float64 `json:"chunk_length_s"`
		EncodingConfig struct {
			HopLength  int `json:"hop_length"`
			WindowSize int `json:"window_size"`
		} `json:"audio_encoding_config"`
	} `json:"audio"`
}

// Voxtral is mistral_common's audio rule with the tokenizer's values.
type Voxtral struct {
	Rate, Hop, Window int
	FrameRate         float64
	// Chunk is the samples a clip is padded to a multiple of (0: no chunking).
	Chunk int64
}

func loadVoxtral(dir string) (AudioRule, error) {
	var t tekkenAudio
	found, err := readJSON(dir, "tekken.json", &t)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "tekken.json")
	if !found || t.Audio == nil {
		return nil, fmt.Errorf("%s: voxtral's audio values are in tekken.json's \"audio\" object, which the folder lacks: %w", path, ErrNoAudioRule)
	}
	a := t.Audio
	r := Voxtral{Rate: a.SamplingRate, Hop: a.EncodingConfig.HopLength, Window: a.EncodingConfig.WindowSize, FrameRate: a.FrameRate}
	if a.ChunkLengthS != nil {
		r.Chunk = int64(*a.ChunkLengthS * float64(a.SamplingRate))
	}
	if r.Rate <= 0 || r.Hop <= 0 || r.FrameRate <= 0 || r.perToken() <= 0 || r.Chunk < 0 || (a.ChunkLengthS != nil && r.Chunk == 0) {
		return nil, fmt.Errorf("%s: sampling_rate %d, frame_rate %g, hop_length %d, chunk %d samples: not a usable audio configuration",
			path, r.Rate, r.FrameRate, r.Hop, r.Chunk)
	}
	return r, nil
}

// perToken is audio_length_per_tok: the log-mel frames one token covers.
func (r Voxtral) perToken() int {
	return int(math.Floor(float64(r.Rate)/r.FrameRate) / float64(r.Hop))
}

func (r Voxtral) Name() string {
	return fmt.Sprintf("voxtral (%d Hz, %g tokens/s, hop %d, chunks of %d samples)", r.Rate, r.FrameRate, r.Hop, r.Chunk)
}

// Tokens is [BEGIN_AUDIO] and the clip's [AUDIO] tokens.
func (r Voxtral) Tokens(a Audio) (int, error) {
	if a.SampleRate <= 0 || a.Samples <= 0 {
		return 0, errors.New("a clip without samples has no audio tokens")
	}
	n := resampled(a.Samples, a.SampleRate, r.Rate)
	switch {
	case r.Chunk > 0:
		n = (n + r.Chunk - 1) / r.Chunk * r.Chunk
	case n < int64(r.Window):
		n = int64(r.Window)
	}
	frames := n / int64(r.Hop)
	if n%int64(r.Hop) != 0 {
		// Python's math.ceil(n / hop - 1): the quotient less one, rounded up.
		frames = int64(math.Ceil(float64(n)/float64(r.Hop) - 1))
	}
	per := int64(r.perToken())
	return 1 + int((frames+per-1)/per), nil
}
