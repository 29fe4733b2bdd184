package client

import (
	openai "github.com/sashabaranov/go-openai"

	"github.com/llm-replay/replay/chat"
)

// parts.go sends a chat message whose content is a list of parts (text, images and audio
// clips, as a replayed request with media has: chat.Message.Parts) in chat's wire shape:
// {"type":"text","text":...}, {"type":"image_url","image_url":{"url":...,"detail":...}} and
// {"type":"input_audio","input_audio":{"data":BASE64,"format":"wav"}}
// (https://platform.openai.com/docs/api-reference/chat/create, content parts). Messages
// without parts keep chat.Message's plain encoding.

// partsRequest is chatRequest with messages that may hold parts.
type partsRequest struct {
	openai.ChatCompletionRequest
	Messages []any `json:"messages"`
}

type wirePartMessage struct {
	Role       string     `json:"role"`
	Content    []wirePart `json:"content"`
	Name       string     `json:"name,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type wirePart struct {
	Type     string     `json:"type"`
	Text     *string    `json:"text,omitempty"`
	ImageURL *wireImage `json:"image_url,omitempty"`
	Audio    *wireAudio `json:"input_audio,omitempty"`
}

type wireAudio struct {
	Data   string `json:"data"`
	Format string `json:"format"`
}

type wireImage struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

// hasParts reports whether any message is sent as parts.
func hasParts(msgs []chat.Message) bool {
	for _, m := range msgs {
		if m.Parts != nil {
			return true
		}
	}
	return false
}

// withParts is req's body with msgs, those with parts in the parts shape.
func withParts(req chatRequest) partsRequest {
	out := partsRequest{ChatCompletionRequest: req.ChatCompletionRequest, Messages: make([]any, len(req.Messages))}
	for i, m := range req.Messages {
		if m.Parts == nil {
			out.Messages[i] = m
			continue
		}
		w := wirePartMessage{Role: m.Role, Name: m.Name, ToolCallID: m.ToolCallID, Content: make([]wirePart, len(m.Parts))}
		for j, p := range m.Parts {
			switch p.Type {
			case chat.PartImage:
				w.Content[j] = wirePart{Type: p.Type, ImageURL: &wireImage{URL: p.ImageURL, Detail: p.Detail}}
				continue
			case chat.PartAudio:
				w.Content[j] = wirePart{Type: p.Type, Audio: &wireAudio{Data: p.AudioData, Format: p.AudioFormat}}
				continue
			}
			text := p.Text
			w.Content[j] = wirePart{Type: chat.PartText, Text: &text}
		}
		out.Messages[i] = w
	}
	return out
}

// partsSize is the bytes msgs' parts add to a body, for sizing its buffer.
func partsSize(m chat.Message) int {
	n := 0
	for _, p := range m.Parts {
		n += 48 + len(p.ImageURL) + len(p.Text) + len(p.AudioData)
	}
	return n
}
