package client

import (
	"fmt"
	"strings"

	"github.com/llm-replay/replay/chat"
)

// apiparts.go sends a message of parts (text and images: chat.Message.Parts) on the Responses
// and Messages APIs, in each API's own wire shape (parts.go writes chat's):
//   - Responses (https://platform.openai.com/docs/api-reference/responses/create, input
//     message content): {"type":"input_text","text":...} and
//     {"type":"input_image","image_url":"data:...","detail":...}, detail only when logged.
//   - Messages (https://docs.anthropic.com/en/api/messages, content blocks):
//     {"type":"text","text":...} and
//     {"type":"image","source":{"type":"base64","media_type":...,"data":...}}: the image's
//     data URL split into its type and its base64 (the API has no detail).
//
// Messages without parts keep chat.Message's plain encoding.

type wireInputMessage struct {
	Role    string          `json:"role"`
	Content []wireInputPart `json:"content"`
}

type wireInputPart struct {
	Type     string  `json:"type"`
	Text     *string `json:"text,omitempty"`
	ImageURL string  `json:"image_url,omitempty"`
	Detail   string  `json:"detail,omitempty"`
}

type wireBlockMessage struct {
	Role    string      `json:"role"`
	Content []wireBlock `json:"content"`
}

type wireBlock struct {
	Type   string           `json:"type"`
	Text   *string          `json:"text,omitempty"`
	Source *wireImageSource `json:"source,omitempty"`
}

type wireImageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// inputMessages is msgs as Responses input items, those with parts in the parts shape.
func inputMessages(msgs []chat.Message) []any {
	out := make([]any, len(msgs))
	for i, m := range msgs {
		if m.Parts == nil {
			out[i] = m
			continue
		}
		w := wireInputMessage{Role: m.Role, Content: make([]wireInputPart, len(m.Parts))}
		for j, p := range m.Parts {
			if p.Type == chat.PartImage {
				w.Content[j] = wireInputPart{Type: "input_image", ImageURL: p.ImageURL, Detail: p.Detail}
				continue
			}
			text := p.Text
			w.Content[j] = wireInputPart{Type: "input_text", Text: &text}
		}
		out[i] = w
	}
	return out
}

// blockMessages is msgs as Messages API messages, those with parts as content blocks; an
// image whose URL is no base64 data URL is an error naming it.
func blockMessages(msgs []chat.Message) ([]any, error) {
	out := make([]any, len(msgs))
	for i, m := range msgs {
		if m.Parts == nil {
			out[i] = m
			continue
		}
		w := wireBlockMessage{Role: m.Role, Content: make([]wireBlock, len(m.Parts))}
		for j, p := range m.Parts {
			if p.Type != chat.PartImage {
				text := p.Text
				w.Content[j] = wireBlock{Type: chat.PartText, Text: &text}
				continue
			}
			mt, data, ok := base64DataURL(p.ImageURL)
			if !ok {
				return nil, fmt.Errorf("client: message %d, part %d: the %s API takes an image as base64 data, not %.40q", i, j, kindMessages, p.ImageURL)
			}
			w.Content[j] = wireBlock{Type: "image", Source: &wireImageSource{Type: "base64", MediaType: mt, Data: data}}
		}
		out[i] = w
	}
	return out, nil
}

// base64DataURL splits "data:TYPE;base64,DATA" into TYPE and DATA.
func base64DataURL(u string) (mime, data string, ok bool) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return "", "", false
	}
	meta, data, ok := strings.Cut(rest, ",")
	mime, enc, _ := strings.Cut(meta, ";")
	if !ok || enc != "base64" || mime == "" {
		return "", "", false
	}
	return mime, data, true
}
