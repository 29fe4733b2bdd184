package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"

	"github.com/llm-replay/replay/media"
)

// audio.go reads a chat message's input_audio parts as an audio engine does: the clip inline
// as base64 data, its rate, channels and length from its headers (media.ReadAudio), counted by
// the model's audio rule (Config.Audio, the one replay's builder counts with) and so charged as
// prefill; its content hash is part of the prompt's cache blocks, as an image's is.

// Clip is one audio clip of a chat message: what the rules read of it and a hash of its bytes.
type Clip struct {
	media.Audio
	Hash uint64
}

func readClip(raw json.RawMessage) (Clip, error) {
	var ia struct {
		Data   string `json:"data"`
		Format string `json:"format"`
	}
	if err := json.Unmarshal(raw, &ia); err != nil || ia.Data == "" {
		return Clip{}, errors.New(`input_audio: want {"data": BASE64, "format": "wav"|"mp3"}`)
	}
	data, err := media.DecodeBase64(ia.Data, media.MaxAudioBytes)
	if err != nil {
		return Clip{}, fmt.Errorf("input_audio: data: %w", err)
	}
	a, err := media.ReadAudio(data, ia.Format)
	if err != nil {
		return Clip{}, fmt.Errorf("input_audio: %w", err)
	}
	h := fnv.New64a()
	h.Write(data)
	return Clip{Audio: a, Hash: h.Sum64()}, nil
}

// mediaTokens is the prompt tokens of a chat request's images and clips by the configured
// rules.
func mediaTokens(cfg *Config, msgs []Message) (int, error) {
	n, err := imageTokens(cfg, msgs)
	if err != nil {
		return 0, err
	}
	for i, m := range msgs {
		for _, c := range m.Audio {
			if cfg.Audio == nil {
				return 0, fmt.Errorf("request body: field \"messages[%d].content\": an audio clip, but the simulator has no audio token rule (a tokenizer folder whose config.json names an audio model, or --audio-tokens-per-second)", i)
			}
			t, err := cfg.Audio.Tokens(c.Audio)
			if err != nil {
				return 0, fmt.Errorf("request body: field \"messages[%d].content\": %w", i, err)
			}
			n += t
		}
	}
	return n, nil
}
