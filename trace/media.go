package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The kinds of MediaPart: an image (chat's image_url part) and an audio clip (input_audio).
const (
	MediaKindImage = "image"
	MediaKindAudio = "audio"
)

// MediaPart is one image or audio clip a logged request carried, where it was among the request's content
// parts, and what it cost: never its bytes or pixels, only what a replay needs to send a
// stand-in the engine counts and caches as it did the original.
type MediaPart struct {
	// Kind is MediaKindImage or MediaKindAudio.
	Kind string `json:"kind"`
	// MIME is the image's format by its magic bytes (image/png, image/jpeg, image/webp,
	// image/gif); for an image logged by URL, the type its name suggests, else image/png. A
	// clip's is audio/wav or audio/mpeg (MP3), by its magic bytes.
	MIME string `json:"mime"`
	// Width and Height are read from an image's header (or --image-size for a URL); 0 for a
	// clip.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
	// SampleRate, Channels, Bits and Samples are a clip's, read from its headers: samples per
	// second, channels, bits per sample (WAV's; 0 for MP3) and its length in samples per
	// channel (an MP3's gapless length); its duration is Samples/SampleRate. 0 for an image.
	SampleRate int   `json:"sample_rate,omitempty"`
	Channels   int   `json:"channels,omitempty"`
	Bits       int   `json:"bits,omitempty"`
	Samples    int64 `json:"samples,omitempty"`
	// Detail is the part's logged detail ("low", "high", "auto"), "" when it had none.
	Detail string `json:"detail,omitempty"`
	// Hash is a keyed hash of the image's or clip's bytes (of an image's URL when logged by
	// URL), like block hashes: equal media, equal hashes; they cannot be recovered from it.
	Hash uint64 `json:"hash"`
	// Message is the index of the message that held it, Part its index among that message's
	// content parts and Parts their number (the others are text parts).
	Message int `json:"message"`
	Part    int `json:"part"`
	Parts   int `json:"parts"`
	// Tokens is the prompt tokens it added by the rule the log was read with; PromptTokens
	// includes them, so the text's share is PromptTokens less every part's Tokens.
	Tokens int `json:"tokens"`
	// URL says it was logged by reference, an http(s) URL or an uploaded file's id (Responses
	// input_image's file_id, a Messages file source), not inline data: its size is --image-size's.
	URL bool `json:"url,omitempty"`
	// SizeInferred says a URL's size was not in the log nor given (--image-size): Width and
	// Height are the squarest size the logged rule counts Tokens for, Tokens the line's logged prompt
	// count less what its text explains (media.InferSize).
	SizeInferred bool `json:"size_inferred,omitempty"`
}

// MediaTokens is the prompt tokens rec's media parts added by the rule it was read with.
func (r *Record) MediaTokens() int {
	n := 0
	for _, m := range r.Media {
		n += m.Tokens
	}
	return n
}

// MediaClips is how many of rec's media parts are audio clips.
func (r *Record) MediaClips() int {
	n := 0
	for _, m := range r.Media {
		if m.Kind == MediaKindAudio {
			n++
		}
	}
	return n
}

// EncodeMedia is parts as the media column's JSON text (a list of MediaPart), nil for none.
func EncodeMedia(parts []MediaPart) ([]byte, error) {
	if parts == nil {
		return nil, nil
	}
	return json.Marshal(parts)
}

// DecodeMedia reads the media column's JSON text back, refusing members it does not know and
// values no logged image or clip has.
func DecodeMedia(text []byte) ([]MediaPart, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	var parts []MediaPart
	if err := dec.Decode(&parts); err != nil {
		return nil, err
	}
	for i, m := range parts {
		if m.Tokens < 0 || m.Part < 0 || m.Part >= m.Parts || m.Message < 0 {
			return nil, fmt.Errorf("part %d: %+v is not a logged part: its place or tokens are out of range", i, m)
		}
		switch m.Kind {
		case MediaKindImage:
			if m.Width <= 0 || m.Height <= 0 || m.SampleRate != 0 || m.Channels != 0 || m.Bits != 0 || m.Samples != 0 {
				return nil, fmt.Errorf("part %d: %+v is not a logged image", i, m)
			}
		case MediaKindAudio:
			if m.SampleRate <= 0 || m.Channels <= 0 || m.Samples <= 0 || m.Bits < 0 || m.Width != 0 || m.Height != 0 || m.URL || m.Detail != "" ||
				(m.MIME != "audio/wav" && m.MIME != "audio/mpeg") {
				return nil, fmt.Errorf("part %d: %+v is not a logged audio clip", i, m)
			}
		default:
			return nil, fmt.Errorf("part %d: kind %q: want %q or %q", i, m.Kind, MediaKindImage, MediaKindAudio)
		}
	}
	return parts, nil
}
