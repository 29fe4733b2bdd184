package requestlog

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/llm-replay/replay/trace"
)

// apiPaths are the endpoints' path endings, longest first where one ends another
// (/chat/completions before /completions).
var apiPaths = []struct{ suffix, api string }{
	{"/chat/completions", trace.APIChat},
	{"/completions", trace.APICompletions},
	{"/responses", trace.APIResponses},
	{"/messages", trace.APIMessages},
	{"/embeddings", trace.APIEmbeddings},
}

// apiFromPath is the API of a logged URL or path ("/v1/chat/completions",
// "https://gw/v1/messages?beta=true"): its query and fragment ignored, then its ending.
func apiFromPath(p string) (string, bool) {
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	p = strings.TrimSuffix(p, "/")
	for _, a := range apiPaths {
		if strings.HasSuffix(p, a.suffix) || p == a.suffix[1:] {
			return a.api, true
		}
	}
	return "", false
}

// api decides which API the line's request was sent to: the mapped path when the line has
// one, else the body's shape (see apiFromShape).
func (l line) api(req map[string]any) (string, error) {
	v, ok, err := l.get("path")
	if err != nil {
		return "", err
	}
	if ok {
		s, isStr := v.(string)
		if !isStr {
			return "", bad(l.m.name("path"), "not a string")
		}
		api, known := apiFromPath(s)
		if !known {
			return "", bad(l.m.name("path"), "%q is not an endpoint of the chat, completions, responses, messages or embeddings APIs", s)
		}
		return api, nil
	}
	resp, _ := l.responseObject()
	return apiFromShape(req, resp, l.m.name("request"), l.m.name("path"))
}

// apiFromShape tells the API from the body (and the logged response, when there is one): a
// prompt is a completion; messages are chat unless something only Anthropic's Messages API
// has is there (anthropicShaped); an input is a Responses request or an embeddings one
// (inputAPI). name is the body's field and pathField the path field, for errors.
func apiFromShape(req, resp map[string]any, name, pathField string) (string, error) {
	switch req["prompt"].(type) {
	case string, []any: // an object is the Responses API's prompt template, told by its input
		return trace.APICompletions, nil
	}
	if req["messages"] != nil {
		if anthropicShaped(req, resp) {
			return trace.APIMessages, nil
		}
		return trace.APIChat, nil
	}
	if req["input"] != nil {
		return inputAPI(req, resp, name, pathField)
	}
	return "", bad(name, "neither messages (chat, messages), prompt (completions) nor input (responses, embeddings)")
}

// anthropicOnly are body members of Anthropic's Messages API that OpenAI's chat API lacks
// (https://docs.anthropic.com/en/api/messages).
var anthropicOnly = []string{"system", "stop_sequences", "thinking"}

// anthropicBlocks are content block types only Anthropic's messages have (OpenAI's parts are
// text, image_url, input_audio, file, refusal).
var anthropicBlocks = map[string]bool{"tool_use": true, "tool_result": true, "thinking": true, "redacted_thinking": true}

// anthropicShaped reports whether a body with messages is Anthropic's: a member only it has,
// a content block only it has (an image or document with a source), or a logged response of
// type "message" (OpenAI's is an object "chat.completion").
func anthropicShaped(req, resp map[string]any) bool {
	for _, k := range anthropicOnly {
		if req[k] != nil {
			return true
		}
	}
	if t, _ := resp["type"].(string); t == "message" {
		return true
	}
	msgs, _ := req["messages"].([]any)
	for _, mv := range msgs {
		m, _ := mv.(map[string]any)
		blocks, _ := m["content"].([]any)
		for _, bv := range blocks {
			b, _ := bv.(map[string]any)
			t, _ := b["type"].(string)
			if anthropicBlocks[t] || ((t == "image" || t == "document") && b["source"] != nil) {
				return true
			}
		}
	}
	return false
}

// responsesOnly are body members of the Responses API that embeddings lack
// (https://platform.openai.com/docs/api-reference/responses/create).
var responsesOnly = []string{"instructions", "max_output_tokens", "text", "reasoning", "previous_response_id",
	"tools", "tool_choice", "parallel_tool_calls", "truncation", "store", "include", "background", "conversation", "max_tool_calls"}

// embeddingsOnly are members only an embeddings request has
// (https://platform.openai.com/docs/api-reference/embeddings/create).
var embeddingsOnly = []string{"encoding_format", "dimensions"}

// inputAPI tells a Responses request from an embeddings one: by a member only one has, the
// logged response's object ("response", or "list" of embeddings), or the input's shape
// (items are objects; embeddings take strings and token ids). A lone string input with
// nothing else to tell is an error: only the path can say.
func inputAPI(req, resp map[string]any, name, pathField string) (string, error) {
	for _, k := range responsesOnly {
		if req[k] != nil {
			return trace.APIResponses, nil
		}
	}
	for _, k := range embeddingsOnly {
		if req[k] != nil {
			return trace.APIEmbeddings, nil
		}
	}
	switch obj, _ := resp["object"].(string); obj {
	case "response":
		return trace.APIResponses, nil
	case "list":
		return trace.APIEmbeddings, nil
	}
	if list, ok := req["input"].([]any); ok && len(list) > 0 {
		switch list[0].(type) {
		case map[string]any:
			return trace.APIResponses, nil
		case string, json.Number, []any:
			return trace.APIEmbeddings, nil
		}
	}
	where := "a path field (--map path=FIELD)"
	if pathField != "" {
		where = fmt.Sprintf("the request's path as %q (or name its field with --map path=FIELD)", pathField)
	}
	return "", bad(name+".input", "a string input is a Responses or an embeddings request and nothing else in the line tells which: log %s", where)
}
