package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// maxEmbeddingInputs bounds the inputs of one embeddings request: OpenAI's own limit (2048),
// and what keeps one answer bounded.
const maxEmbeddingInputs = 2048

// maxEmbeddingDimensions bounds Config.EmbeddingDimensions, so that no setting makes an answer
// huge.
const maxEmbeddingDimensions = 65536

// defaultEmbeddingDimensions is the vector length when Config.EmbeddingDimensions is 0: that of
// the common 1024-wide embedding models (bge-large, e5-large, Qwen3-Embedding-0.6B).
const defaultEmbeddingDimensions = 1024

// embeddingsRequest is a parsed embeddings body (POST /v1/embeddings).
type embeddingsRequest struct {
	model string
	// inputs are the inputs, each a completions-style prompt (text or token ids): each is
	// counted, cached and prefilled as a completions prompt is.
	inputs []Request
	// base64 is encoding_format "base64": each vector as the base64 of its little-endian
	// float32s, as OpenAI encodes it.
	base64 bool
	// dims is each vector's length.
	dims int
}

// wireEmbeddings is the body's shape (openai-python@e43b422412a9e96c9cc5192c61fffbe2d7e04836:
// src/openai/types/embedding_create_params.py); user and any other field are ignored.
type wireEmbeddings struct {
	Model          string          `json:"model"`
	Input          json.RawMessage `json:"input"`
	EncodingFormat *string         `json:"encoding_format"`
	Dimensions     *int            `json:"dimensions"`
}

// parseEmbeddingsRequest decodes an embeddings body: input a string, a list of strings, a list
// of token ids (one input) or a list of id lists; encoding_format float (the default) or base64;
// dimensions at most the model's (dims, the default). Errors name the field at fault.
func parseEmbeddingsRequest(body []byte, dims int) (embeddingsRequest, error) {
	var w wireEmbeddings
	if err := json.Unmarshal(body, &w); err != nil {
		return embeddingsRequest{}, fmt.Errorf("request body: %w", err)
	}
	e := embeddingsRequest{model: w.Model, dims: dims}
	if w.EncodingFormat != nil {
		switch *w.EncodingFormat {
		case "float":
		case "base64":
			e.base64 = true
		default:
			return e, fmt.Errorf("request body: field \"encoding_format\": must be float or base64, got %q", *w.EncodingFormat)
		}
	}
	if w.Dimensions != nil {
		if *w.Dimensions < 1 || *w.Dimensions > dims {
			return e, fmt.Errorf("request body: field \"dimensions\": must be in [1, %d] (the model's), got %d", dims, *w.Dimensions)
		}
		e.dims = *w.Dimensions
	}
	var err error
	if e.inputs, err = embeddingInputs(w.Input); err != nil {
		return e, fmt.Errorf("request body: field \"input\": %w", err)
	}
	return e, nil
}

// embeddingInputs reads input into one prompt per input.
func embeddingInputs(raw json.RawMessage) ([]Request, error) {
	raw = bytes.TrimSpace(raw)
	if isNull(raw) {
		return nil, errors.New("missing")
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return []Request{{PromptText: s}}, err
	}
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, errors.New("must be a string, a list of strings, a list of token ids or a list of token id lists")
	}
	if len(items) == 0 {
		return nil, errors.New("empty list")
	}
	if len(items) > maxEmbeddingInputs {
		return nil, fmt.Errorf("%d inputs, more than %d", len(items), maxEmbeddingInputs)
	}
	if first := bytes.TrimSpace(items[0]); len(first) > 0 && first[0] != '"' && first[0] != '[' {
		ids, err := embeddingIDs(raw)
		return []Request{{PromptIDs: ids, HasIDs: true}}, err
	}
	out := make([]Request, len(items))
	for i, it := range items {
		it = bytes.TrimSpace(it)
		var err error
		switch {
		case len(it) > 0 && it[0] == '"':
			err = json.Unmarshal(it, &out[i].PromptText)
		case len(it) > 0 && it[0] == '[':
			out[i].PromptIDs, err = embeddingIDs(it)
			out[i].HasIDs = true
		default:
			err = errors.New("must be a string or a list of token ids")
		}
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
	}
	return out, nil
}

// embeddingIDs reads one input given as token ids.
func embeddingIDs(raw json.RawMessage) ([]int, error) {
	var ids []int
	if err := json.Unmarshal(raw, &ids); err != nil {
		return nil, fmt.Errorf("token ids: %w", err)
	}
	return ids, checkIDs(ids)
}
