package requestlog

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// parseEmbeddingsRequest reads an embeddings body's input ("Create embeddings",
// https://platform.openai.com/docs/api-reference/embeddings/create): a string, a list of
// strings, one list of token ids or a list of them. Text is counted with the tokenizer's
// specials, as vLLM encodes it unless the body's add_special_tokens (a vLLM extension) says
// otherwise (vllm-project/vllm@020638a6b026e4d96f34e6e7ed12c3390fbf7416:
// vllm/entrypoints/pooling/base/protocol.py, CompletionRequestMixin.add_special_tokens,
// default true); token ids are counted as they are.
func parseEmbeddingsRequest(req map[string]any, name string, e *entry) error {
	switch v := req["add_special_tokens"].(type) {
	case nil:
	case bool:
		e.addSpecial = v
	default:
		return bad(name+".add_special_tokens", "not a boolean")
	}
	f := name + ".input"
	switch in := req["input"].(type) {
	case string:
		e.inputs = []string{in}
		return nil
	case []any:
		if len(in) == 0 {
			return bad(f, "empty")
		}
		e.inputList = true
		switch in[0].(type) {
		case string:
			return embeddingTexts(in, f, e)
		case json.Number:
			ids, err := tokenIDs(in, f)
			e.inputIDs = [][]int{ids}
			return err
		case []any:
			for i, x := range in {
				list, _ := x.([]any)
				ids, err := tokenIDs(list, fmt.Sprintf("%s[%d]", f, i))
				if err != nil {
					return err
				}
				e.inputIDs = append(e.inputIDs, ids)
			}
			return nil
		}
	}
	return bad(f, "not a string, a list of strings, a list of token ids or a list of those")
}

// embeddingTexts reads a list of strings.
func embeddingTexts(in []any, f string, e *entry) error {
	e.inputs = make([]string, len(in))
	for i, x := range in {
		s, ok := x.(string)
		if !ok {
			return bad(fmt.Sprintf("%s[%d]", f, i), "not a string (a list of inputs is all strings or all token id lists)")
		}
		e.inputs[i] = s
	}
	return nil
}

// tokenIDs reads a non-empty list of token ids.
func tokenIDs(list []any, f string) ([]int, error) {
	if len(list) == 0 {
		return nil, bad(f, "not a non-empty list of token ids")
	}
	ids := make([]int, len(list))
	for i, x := range list {
		n, ok := x.(json.Number)
		if !ok {
			return nil, bad(fmt.Sprintf("%s[%d]", f, i), "not a token id")
		}
		id, err := strconv.ParseInt(n.String(), 10, 32)
		if err != nil || id < 0 {
			return nil, bad(fmt.Sprintf("%s[%d]", f, i), "not a token id: %s", n)
		}
		ids[i] = int(id)
	}
	return ids, nil
}

// parseEmbeddingsResponse reads a logged embeddings answer's usage.prompt_tokens; the answer
// is vectors, no generated text, so it counts as had.
func parseEmbeddingsResponse(resp map[string]any, name string, e *entry) error {
	e.hasResponse = true
	u, ok := resp["usage"].(map[string]any)
	if !ok {
		return nil
	}
	var err error
	e.usagePrompt, err = usageCount(u, "prompt_tokens", name)
	return err
}
