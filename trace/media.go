package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// MediaKindImage is MediaPart.Kind for an image (the one kind replayed so far).
const MediaKindImage = "image"

// MediaPart is one image a logged request carried, where it was among the request's content
// parts, and what it cost: never its bytes or pixels, only what a replay needs to send a
// stand-in the engine counts and caches as it did the original.
type MediaPart struct {
	// Kind is MediaKindImage.
	Kind string `json:"kind"`
	// MIME is the image's format by its magic bytes (image/png, image/jpeg, image/webp,
	// image/gif); for an image logged by URL, the type its name suggests, else image/png.
	MIME string `json:"mime"`
	// Width and Height are read from the image's header (or --image-size for a URL).
	Width  int `json:"width"`
	Height int `json:"height"`
	// Detail is the part's logged detail ("low", "high", "auto"), "" when it had none.
	Detail string `json:"detail,omitempty"`
	// Hash is a keyed hash of the image's bytes (of its URL when logged by URL), like block
	// hashes: equal images, equal hashes; the image cannot be recovered from it.
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
}

// MediaTokens is the prompt tokens rec's media parts added by the rule it was read with.
func (r *Record) MediaTokens() int {
	n := 0
	for _, m := range r.Media {
		n += m.Tokens
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
// values no logged image has.
func DecodeMedia(text []byte) ([]MediaPart, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	var parts []MediaPart
	if err := dec.Decode(&parts); err != nil {
		return nil, err
	}
	for i, m := range parts {
		if m.Kind != MediaKindImage || m.Width <= 0 || m.Height <= 0 || m.Tokens < 0 || m.Part < 0 || m.Part >= m.Parts || m.Message < 0 {
			return nil, fmt.Errorf("part %d: %+v is not a logged image", i, m)
		}
	}
	return parts, nil
}
