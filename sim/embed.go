package sim

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"net/http"
	"strconv"
)

// embed serves /v1/embeddings. Each input is a prompt counted as a completions prompt is (the
// Tokenize or Counter hook), then prefilled by the engine like any other prompt, batched with
// the other work of its steps and served from the prefix cache where it can, but generating
// nothing: the answer is written once every input's prefill is done. Its prompt tokens count
// in vllm:prompt_tokens_total, nothing in the generation counter, and each input in
// vllm:request_success_total (vLLM's engine runs each input of a batch as a request of its
// own). Faults apply as to a non-streamed completion (a break cuts the connection once the
// prefill is done). The vectors are made from a hash of each input, not by any model: equal
// inputs get equal unit vectors, and nothing else about them means anything.
func (s *Server) embed(w http.ResponseWriter, r *http.Request) {
	const e = openAIErrors
	if !s.started.Load() {
		s.writeRetryable(w, e, http.StatusServiceUnavailable, "server_error", "simulated engine not started")
		return
	}
	bodyBuf := bufPool.Get().(*[]byte)
	body, err := readBody(w, r, (*bodyBuf)[:0])
	*bodyBuf = body
	if err != nil {
		putBuf(bodyBuf)
		e.write(w, http.StatusBadRequest, "invalid_request_error", "reading request body: "+err.Error())
		return
	}
	req, err := parseEmbeddingsRequest(body, s.cfg.EmbeddingDimensions)
	putBuf(bodyBuf)
	if err != nil {
		e.write(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	f := s.drawFault(r, s.arrived.Add(1))
	if s.answerFaultEarly(w, r, f, e) {
		return
	}
	prompts, total, err := s.embeddingPrompts(&req)
	if err != nil {
		e.write(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	if req.model == "" {
		req.model = s.cfg.ModelName
	}
	if s.cfg.ZeroCost {
		s.zPrompt.Add(uint64(total))
	} else if !s.prefill(w, r, prompts) {
		return
	}
	if f == FaultBreak {
		abort(w)
		return
	}
	bp := bufPool.Get().(*[]byte)
	defer putBuf(bp)
	*bp = appendEmbeddings((*bp)[:0], &req, total)
	if s.writeFullBody(w, r, *bp, f) && s.cfg.ZeroCost {
		s.zSuccess.Add(uint64(len(prompts)))
	}
}

// embeddingPrompts counts and hashes each input's prompt, and returns their total.
func (s *Server) embeddingPrompts(req *embeddingsRequest) ([]prompt, int, error) {
	prompts := make([]prompt, len(req.inputs))
	total := 0
	for i := range req.inputs {
		p, err := buildPrompt(&s.cfg, &req.inputs[i])
		if err != nil {
			return nil, 0, fmt.Errorf("request body: field \"input[%d]\": empty input (0 tokens)", i)
		}
		if p.tokens > s.cfg.MaxModelLen {
			return nil, 0, fmt.Errorf("request body: field \"input[%d]\": %d tokens exceed the maximum context length %d", i, p.tokens, s.cfg.MaxModelLen)
		}
		prompts[i], total = p, total+p.tokens
	}
	return prompts, total, nil
}

// prefill runs each prompt through the engine as a prefill-only sequence, all queued at once,
// and waits until all are done. It reports whether they were; when not, the request has been answered (or its
// client is gone) and every sequence still inside the engine has left it.
func (s *Server) prefill(w http.ResponseWriter, r *http.Request, prompts []prompt) bool {
	seqs := make([]*seq, len(prompts))
	for i, p := range prompts {
		seqs[i] = &seq{prompt: p, out: newStream()}
	}
	if !s.submitted(w, openAIErrors, s.eng.submitAll(seqs), 1) {
		return false
	}
	cancelAll := func() {
		for _, sq := range seqs {
			s.eng.cancel(sq)
		}
	}
	for _, sq := range seqs {
		for !sq.out.done.Load() {
			if sq.out.err.Load() != nil {
				cancelAll()
				s.writeRetryable(w, openAIErrors, http.StatusServiceUnavailable, "server_error", errEngineClosed.Error())
				return false
			}
			select {
			case <-sq.out.notify:
			case <-r.Context().Done():
				cancelAll()
				return false
			}
		}
	}
	return true
}

// appendEmbeddings appends the answer: the list of embeddings, in input order, and the usage
// (prompt tokens alone: an embedding generates none).
func appendEmbeddings(b []byte, req *embeddingsRequest, promptTokens int) []byte {
	b = append(b, `{"object":"list","data":[`...)
	vec := make([]float32, req.dims)
	for i := range req.inputs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"object":"embedding","index":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `,"embedding":`...)
		embeddingVector(inputHash(&req.inputs[i]), vec)
		if req.base64 {
			b = appendBase64Floats(b, vec)
		} else {
			b = appendFloats(b, vec)
		}
		b = append(b, '}')
	}
	b = append(b, `],"model":`...)
	b = appendJSONString(b, req.model)
	b = append(b, `,"usage":{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(promptTokens), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(promptTokens), 10)
	return append(b, "}}"...)
}

// inputHash identifies an input's content: its text, or its token ids.
func inputHash(r *Request) uint64 {
	if !r.HasIDs {
		return fnv1a(r.PromptText)
	}
	h := uint64(fnvOffset) ^ 1 // never the hash of a text
	for _, id := range r.PromptIDs {
		h = (h ^ uint64(id)) * fnvPrime
	}
	return h
}

// embeddingVector fills vec with a unit vector drawn from seed.
func embeddingVector(seed uint64, vec []float32) {
	sum := 0.0
	for j := range vec {
		v := 2*unit(splitmix64(seed^splitmix64(uint64(j)))) - 1
		vec[j] = float32(v)
		sum += v * v
	}
	if sum == 0 {
		return
	}
	scale := 1 / math.Sqrt(sum)
	for j := range vec {
		vec[j] = float32(float64(vec[j]) * scale)
	}
}

// appendFloats appends vec as a JSON array of numbers, each float32 in its shortest form.
func appendFloats(b []byte, vec []float32) []byte {
	b = append(b, '[')
	for j, v := range vec {
		if j > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(v), 'g', -1, 32)
	}
	return append(b, ']')
}

// appendBase64Floats appends vec as a JSON string: the base64 of its little-endian float32s.
func appendBase64Floats(b []byte, vec []float32) []byte {
	raw := make([]byte, 4*len(vec))
	for j, v := range vec {
		binary.LittleEndian.PutUint32(raw[4*j:], math.Float32bits(v))
	}
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, raw)
	return append(b, '"')
}
