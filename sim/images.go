package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/llm-replay/replay/media"
)

// images.go reads a chat message's image_url parts as a vision engine does (and walks the
// parts for audio.go's input_audio ones): the image inline as a data URL, its size from its
// header (media.ReadHeader), counted by the model's rule (Config.Images, the one replay's
// builder counts with) and so charged as prefill; its content hash is part of the prompt's
// cache blocks, so equal images share a cached prefix and different ones do not. An image by
// http URL is fetched, as vLLM and SGLang fetch one, its fetch in the request's time to first
// token, but only from this machine (a loopback host: replay's --media-listen); any other URL
// is refused.

// Image is one image of a message (chat's image_url, apiimages.go's forms): its size and a
// hash of its bytes.
type Image struct {
	Width, Height int
	Hash          uint64
}

// contentPart is one part of a content list.
type contentPart struct {
	Type       string          `json:"type"`
	Text       string          `json:"text"`
	ImageURL   json.RawMessage `json:"image_url"`
	InputAudio json.RawMessage `json:"input_audio"`
}

// partMedia is a message's images and audio clips.
type partMedia struct {
	images []Image
	clips  []Clip
}

// chatContent is a chat message's text and media: a content list with image_url or
// input_audio parts is its text parts one after the other and its media; any other content is
// messageText's.
func chatContent(raw json.RawMessage) (string, partMedia, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' || (!bytes.Contains(raw, []byte(`"image_url"`)) && !bytes.Contains(raw, []byte(`"input_audio"`))) {
		s, err := messageText(raw)
		return s, partMedia{}, err
	}
	var parts []contentPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", partMedia{}, err
	}
	var b strings.Builder
	var mm partMedia
	for i, p := range parts {
		switch p.Type {
		case "text":
			b.WriteString(p.Text)
		case "image_url":
			img, err := readImage(p.ImageURL)
			if err != nil {
				return "", partMedia{}, fmt.Errorf("part %d: %w", i, err)
			}
			mm.images = append(mm.images, img)
		case "input_audio":
			c, err := readClip(p.InputAudio)
			if err != nil {
				return "", partMedia{}, fmt.Errorf("part %d: %w", i, err)
			}
			mm.clips = append(mm.clips, c)
		}
	}
	return b.String(), mm, nil
}

func readImage(raw json.RawMessage) (Image, error) {
	var u struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal(raw, &u); err != nil || u.URL == "" {
		return Image{}, errors.New("image_url: want {\"url\": \"data:...\"}")
	}
	img, err := imageOf(u.URL)
	if err != nil {
		return Image{}, fmt.Errorf("image_url: %w", err)
	}
	return img, nil
}

// dataURLImage is the image a data URL holds: its size from its header and a hash of its bytes.
func imageOf(u string) (Image, error) {
	var mime string
	var data []byte
	var err error
	if strings.HasPrefix(strings.ToLower(u), "data:") {
		mime, data, err = media.ParseDataURL(u)
	} else {
		mime, data, err = fetchImage(u)
	}
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

// fetchClient fetches images by URL; its timeout bounds a fetch as an engine's does.
// A redirect is followed only to a loopback host, as the first URL must be.
var fetchClient = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(r *http.Request, via []*http.Request) error {
	if !loopback(r.URL) {
		return fmt.Errorf("redirected to %s: the simulator fetches images from this machine only", r.URL.Redacted())
	}
	if len(via) >= 5 {
		return errors.New("more than 5 redirects")
	}
	return nil
}}

// loopback reports whether u's host is this machine's loopback.
func loopback(u *url.URL) bool {
	ip := net.ParseIP(u.Hostname())
	return u.Hostname() == "localhost" || (ip != nil && ip.IsLoopback())
}

// maxFetchBytes bounds a fetched image.
const maxFetchBytes = 64 << 20

// fetchImage GETs an image from a loopback host: its declared type and bytes.
func fetchImage(raw string) (string, []byte, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "", nil, fmt.Errorf("%q: neither a data URL nor an http(s) URL", raw)
	}
	if !loopback(u) {
		return "", nil, fmt.Errorf("%s: the simulator fetches images from this machine only (a loopback host, as replay --media-listen 127.0.0.1:PORT serves them)", u.Redacted())
	}
	resp, err := fetchClient.Get(raw)
	if err != nil {
		return "", nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", nil, fmt.Errorf("GET %s: HTTP %d", u.Redacted(), resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxFetchBytes+1))
	if err != nil {
		return "", nil, fmt.Errorf("GET %s: %w", u.Redacted(), err)
	}
	if len(data) > maxFetchBytes {
		return "", nil, fmt.Errorf("GET %s: over %d MiB", u.Redacted(), maxFetchBytes>>20)
	}
	mime, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	return strings.TrimSpace(mime), data, nil
}
