package client

import (
	"fmt"
	"net/http"

	"github.com/llm-replay/replay/internal/jsoncur"
)

// answer_embeddings.go judges an embeddings answer: a list whose data holds one embedding per
// input, in input order, each an array of numbers (encoding_format float) or a base64 string
// (encoding_format base64), and usage.prompt_tokens
// (https://platform.openai.com/docs/api-reference/embeddings/object; llama.cpp's and vLLM's
// /v1/embeddings answer the same shape). An embedding has no output tokens, so the answer's
// CompletionTokens is 0 and it has no first token: its row is measured end to end only.

// embeddings is what an embeddings answer tells us.
type embeddings struct {
	count    int    // data elements
	bad      string // the first malformed element, said for a message ("" none)
	hasUsage bool
	prompt   int64
	cached   int64
	isError  bool // an "error" value or "object": "error": an error answer
}

// judgeEmbeddings judges a whole embeddings answer and fills r's usage.
func judgeEmbeddings(k *call, b []byte, h http.Header, r *Response) (class, message string) {
	a, ok := parseEmbeddings(b)
	if !ok {
		return ErrBadStream, notJSON(h, b)
	}
	if a.isError {
		// The error shapes are chat's ({"error": ...}, vLLM's top-level "object": "error"):
		// its frame walker reads them.
		f, _ := parseFrame(b)
		var st streamState
		st.errorFrame(&f, b)
		return st.errClass, st.errMsg
	}
	gotUsage := a.hasUsage && a.prompt > 0
	if gotUsage {
		r.PromptTokens, r.CompletionTokens, r.CachedTokens = int(a.prompt), 0, int(a.cached)
	}
	switch {
	case a.bad != "":
		return ErrBadStream, truncate(a.bad)
	case k.inputs >= 0 && a.count != k.inputs:
		return ErrBadStream, fmt.Sprintf("the answer holds %d embeddings for %d inputs", a.count, k.inputs)
	case a.count == 0:
		return ErrBadStream, "the answer holds no embedding"
	case k.wantUsage && !gotUsage:
		return ErrBadStream, "the answer has no usage with a non-zero prompt_tokens"
	}
	return "", ""
}

// parseEmbeddings walks an embeddings answer; ok is false when b does not start with a JSON
// object.
func parseEmbeddings(b []byte) (a embeddings, ok bool) {
	c := jsoncur.New(b)
	if c.Peek() != '{' {
		return a, false
	}
	a.prompt, a.cached = -1, -1
	for more := c.Object(); more; more = c.NextMember() {
		switch string(key(&c)) {
		case "data":
			a.data(&c)
		case "usage":
			var f frame
			f.usage(&c)
			a.hasUsage, a.prompt, a.cached = f.hasUsage, f.prompt, f.cached
		case "error":
			present, _, _ := errorValue(&c)
			a.isError = a.isError || present
		case "object":
			raw, esc, isStr := stringOrSkip(&c)
			a.isError = a.isError || (isStr && string(c.Unquote(raw, esc)) == "error")
		default:
			c.Skip()
		}
	}
	return a, c.Err() == nil
}

// data reads the answer's data array, counting its elements and keeping the first that is
// not an embedding at its input's place.
func (a *embeddings) data(c *jsoncur.Cursor) {
	if c.Peek() != '[' {
		c.Skip()
		a.bad = "the answer's data is not an array"
		return
	}
	for more := c.Array(); more; more = c.NextElem() {
		if msg := embedding(c, a.count); msg != "" && a.bad == "" {
			a.bad = msg
		}
		a.count++
	}
}

// embedding reads data element i and says what is wrong with it ("" nothing): it must be an
// object whose embedding is a non-empty array of numbers or a non-empty (base64) string, and
// whose index, when given, is i.
func embedding(c *jsoncur.Cursor, i int) string {
	if c.Peek() != '{' {
		c.Skip()
		return fmt.Sprintf("data[%d] is not an embedding object", i)
	}
	index, vector := int64(i), false
	for more := c.Object(); more; more = c.NextMember() {
		switch string(key(c)) {
		case "index":
			index = int32OrSkip(c)
		case "embedding":
			vector = vectorValue(c)
		default:
			c.Skip()
		}
	}
	switch {
	case index < 0:
		return fmt.Sprintf("data[%d] has no integer index", i)
	case !vector:
		return fmt.Sprintf("data[%d] has no embedding (an array of numbers or a base64 string)", i)
	case index != int64(i):
		return fmt.Sprintf("data[%d] has index %d: the embeddings are not in input order", i, index)
	}
	return ""
}

// vectorValue reads an embedding value and reports whether it is a non-empty array of
// numbers or a non-empty string.
func vectorValue(c *jsoncur.Cursor) bool {
	switch c.Peek() {
	case '"':
		return nonEmptyString(c)
	case '[':
	default:
		c.Skip()
		return false
	}
	n, numbers := 0, true
	for more := c.Array(); more; more = c.NextElem() {
		if p := c.Peek(); p != '-' && (p < '0' || p > '9') {
			numbers = false
		}
		c.Skip()
		n++
	}
	return n > 0 && numbers
}
