package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/llm-replay/replay/media"
)

// images.go reads a chat message's image_url parts as a vision engine does: the image inline
// as a data URL, its size from its header (media.ReadHeader), counted by the model's rule
// (Config.Images, the one replay's builder counts with) and so charged as prefill; its content
// hash is part of the prompt's cache blocks, so equal images share a cached prefix and
// different ones do not. Images by http URL are refused: the simulator fetches nothing.

// Image is one image of a message (chat's image_url, apiimages.go's forms): its size and a
// hash of its bytes.
type Image struct {
	Width, Height int
	Hash          uint64
}

// contentPart is one part of a content list.
type contentPart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	ImageURL json.RawMessage `json:"image_url"`
}

// chatContent is a chat message's text and images: a content list with image_url parts is
// its text parts one after the other and its images; any other content is messageText's.
func chatContent(raw json.RawMessage) (string, []Image, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' || !bytes.Contains(raw, []byte(`"image_url"`)) {
		s, err := messageText(raw)
		return s, nil, err
	}
	var parts []contentPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", nil, err
	}
	var b strings.Builder
	var imgs []Image
	for i, p := range parts {
		switch p.Type {
		case "text":
			b.WriteString(p.Text)
		case "image_url":
			img, err := readImage(p.ImageURL)
			if err != nil {
				return "", nil, fmt.Errorf("part %d: %w", i, err)
			}
			imgs = append(imgs, img)
		}
	}
	return b.String(), imgs, nil
}

func readImage(raw json.RawMessage) (Image, error) {
	var u struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal(raw, &u); err != nil || u.URL == "" {
		return Image{}, errors.New("image_url: want {\"url\": \"data:...\"}")
	}
	img, err := dataURLImage(u.URL)
	if err != nil {
		return Image{}, fmt.Errorf("image_url: %w", err)
	}
	return img, nil
}

// dataURLImage is the image a data URL holds: its size from its header and a hash of its bytes.
func dataURLImage(u string) (Image, error) {
	if !strings.HasPrefix(strings.ToLower(u), "data:") {
		return Image{}, errors.New("only data URLs are accepted (the simulator fetches nothing)")
	}
	mime, data, err := media.ParseDataURL(u)
	if err != nil {
		return Image{}, err
	}
	hd, err := media.ReadHeader(data, mime)
	if err != nil {
		return Image{}, err
	}
	h := fnv.New64a()
	h.Write(data)
	return Image{Width: hd.Width, Height: hd.Height, Hash: h.Sum64()}, nil
}

// imageTokens is the prompt tokens of a chat request's images by the configured rule.
func imageTokens(cfg *Config, msgs []Message) (int, error) {
	n := 0
	for i, m := range msgs {
		for _, img := range m.Images {
			if cfg.Images == nil {
				return 0, fmt.Errorf("request body: field \"messages[%d].content\": an image, but the simulator has no image token rule (a tokenizer folder whose config.json names a vision model, or --image-tokens)", i)
			}
			t, err := cfg.Images.Tokens(img.Width, img.Height)
			if err != nil {
				return 0, fmt.Errorf("request body: field \"messages[%d].content\": %w", i, err)
			}
			n += t
		}
	}
	return n, nil
}
