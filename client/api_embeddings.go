package client

import (
	"errors"
	"fmt"
)

// api_embeddings.go encodes a request for the embeddings API (POST /v1/embeddings,
// https://platform.openai.com/docs/api-reference/embeddings/create): the model and the
// input, a string, an array of strings, one array of token ids or an array of them, as the
// log had it. It never streams, and ExtraBody's ForcingKeys never go with it (they force an
// output length; an embedding has no output tokens).

// embeddingsRequest is the body's members the encoder types.
type embeddingsRequest struct {
	Model string `json:"model"`
	Input any    `json:"input"`
}

// embeddingsBody is r's embeddings body, before Fields and ExtraBody.
func (c *Client) embeddingsBody(r Request) ([]byte, error) {
	if err := r.Options.absent(kindEmbeddings, "temperature", "top_p", "n", "seed", "stop", "presence_penalty",
		"frequency_penalty", "logprobs", "top_logprobs", "tools", "tool_choice", "parallel_tool_calls",
		"response_format", "stream"); err != nil {
		return nil, err
	}
	input, err := embeddingInput(r)
	if err != nil {
		return nil, err
	}
	size := c.bodySize(r, kindEmbeddings)
	for _, s := range r.Inputs {
		size += len(s) + 8
	}
	for _, ids := range r.InputIDs {
		size += 7*len(ids) + 4
	}
	b, err := marshalSized(embeddingsRequest{Model: c.modelOf(r), Input: input}, size)
	if err != nil {
		return nil, fmt.Errorf("client: encoding request: %w", err)
	}
	return b, nil
}

// embeddingInput is r's "input" value: a batch of one bare unless InputList; with neither
// Inputs nor InputIDs, Prompt (or PromptIDs) is the one input.
func embeddingInput(r Request) (any, error) {
	switch {
	case r.Inputs != nil && r.InputIDs != nil:
		return nil, errors.New("client: an embeddings request has both Inputs and InputIDs")
	case r.Inputs != nil:
		if len(r.Inputs) == 1 && !r.InputList {
			return r.Inputs[0], nil
		}
		return r.Inputs, nil
	case r.InputIDs != nil:
		if len(r.InputIDs) == 1 && !r.InputList {
			return r.InputIDs[0], nil
		}
		return r.InputIDs, nil
	case r.PromptIDs != nil && r.InputList:
		return [][]int{r.PromptIDs}, nil
	case r.PromptIDs != nil:
		return r.PromptIDs, nil
	case r.InputList:
		return []string{r.Prompt}, nil
	}
	return r.Prompt, nil
}

// embeddingCount is how many embeddings the answer to r must hold.
func embeddingCount(r Request) int {
	switch {
	case r.Inputs != nil:
		return len(r.Inputs)
	case r.InputIDs != nil:
		return len(r.InputIDs)
	}
	return 1
}
