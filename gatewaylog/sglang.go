package gatewaylog

import (
	"bytes"
	"time"

	"github.com/llm-replay/replay/trace"
)

// sglangSchema reads SGLang's request log in its JSON form (--log-requests
// --log-requests-format json), one object a line, as log_json writes it
// (python/sglang/srt/utils/log_utils.py at sgl-project/sglang
// 29bd4e859f6ef92f5248fd8c3d4ba681f8d19028: {"timestamp": datetime.now().isoformat(),
// "event": ..., **data}) from RequestLogger (python/sglang/srt/utils/request_logger.py):
//   - event "request.finished": rid, obj (the GenerateReqInput: sampling_params with
//     max_new_tokens, temperature, top_p; stream), headers (whitelisted, x-smg-routing-key),
//     out (meta_info: prompt_tokens, completion_tokens, cached_tokens, e2e_latency in
//     seconds, finish_reason). The line is written when the request finishes, so its start
//     is the timestamp less e2e_latency.
//   - event "request.received" and "request.received.openai": the same request's arrival,
//     counted with its finished line, so left out without being counted as skipped.
//
// The timestamp is the server's local time with no zone (isoformat of a naive datetime); it is
// read as UTC, which keeps the offsets between requests right except across a daylight-saving
// change. At --log-requests-level 0 sampling_params is not logged (no cap then). An
// EmbeddingReqInput's out has no completion_tokens: it is read as an embeddings request.
// SGLang's text form ("Finish: obj=GenerateReqInput(...), out={...}", Python reprs) is not
// read: log in JSON.
var sglangSchema = Schema{
	Format: "sglang-log",
	Doc:    "SGLang --log-requests --log-requests-format json (request_logger.py, log_utils.py)",
	Sniff: func(first []byte) bool {
		return bytes.Contains(first, []byte(`"event"`)) && bytes.Contains(first, []byte(`"request.`)) && bytes.Contains(first, []byte(`"rid"`))
	},
	Read: readSGLang,
}

func readSGLang(rec Record) (Entry, error) {
	e := NewEntry()
	switch ev, _ := rec.Get("event").String(); ev {
	case "request.finished":
	case "request.received", "request.received.openai":
		return e, ErrCountedElsewhere
	default:
		return e, ErrNotModelRequest
	}
	var err error
	if e.End, _, err = rec.Get("timestamp").Time(rec.Year); err != nil {
		return e, err
	}
	if e.End.IsZero() {
		return e, rec.Get("timestamp").Err("missing")
	}
	meta := rec.Get("out", "meta_info")
	lat, ok, err := meta.Get("e2e_latency").Float()
	if err != nil {
		return e, err
	}
	if !ok || lat < 0 {
		return e, meta.Get("e2e_latency").Err("missing: the line is written at the end, so the start needs the latency")
	}
	e.Latency = time.Duration(lat * float64(time.Second))
	if e.PromptTokens, err = requiredInt(meta.Get("prompt_tokens")); err != nil {
		return e, err
	}
	out, ok, err := meta.Get("completion_tokens").Int()
	if err != nil {
		return e, err
	}
	if ok {
		e.OutputTokens = out
	} else {
		e.API = trace.APIEmbeddings
	}
	if e.CachedTokens, err = cachedOf(meta.Get("cached_tokens")); err != nil {
		return e, err
	}
	obj := rec.Get("obj")
	if b, ok := obj.Get("stream").Bool(); ok {
		e.Stream = &b
	}
	if err := samplingFrom(&e, obj.Get("sampling_params"), "max_new_tokens", "temperature", "top_p"); err != nil {
		return e, err
	}
	e.Key = firstString(rec.Get("headers", "x-smg-routing-key"))
	return e, nil
}
