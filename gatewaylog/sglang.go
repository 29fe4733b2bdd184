package gatewaylog

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/llm-replay/replay/trace"
)

// sglangSchema reads SGLang's request log (--log-requests) in both its forms, one record a
// line, each line told by its first byte: a JSON object is the JSON form, a line with the
// logging prefix the text form. Deciding per line, not per file, is what lets one --format
// read a server's stdout with --log-requests-target stdout, where the JSON lines (written with
// "%(message)s") come between the server's own text lines; a file of either form alone reads
// the same way. Every line that is neither request record is left out uncounted, as a server
// log is mostly such lines (startup, batch stats, uvicorn's access lines).
//
// The JSON form (--log-requests-format json), as log_json writes it
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
// The text form (the default, --log-requests-format text), as RequestLogger writes it
// (request_logger.py @ 01bb91204cf692d894e317f71abeb65fb9003b71, log_received_request and
// log_finished_request; earlier releases wrote the same messages from
// python/sglang/srt/managers/tokenizer_manager.py, which calls log_finished_request once a
// request has finished, @ 001067fffe33427bee0ed2f007fb7551a1d76b44), through the module's
// logger, so with the root format of configure_logger
// (python/sglang/srt/utils/common.py @ 004f0c7a8d398a9c4b6844c1d8071502fa88e78c):
// "[%(asctime)s{maybe_ms}{prefix}] %(message)s", the date "%Y-%m-%d %H:%M:%S", ".mmm" after it
// when SGLANG_LOG_MS is set (older releases: never), the prefix empty in the process that logs
// requests. The messages:
//   - "Finish: obj=GenerateReqInput(name=value, ...), out={'meta_info': {...}, ...}": the
//     request dataclass and the output dict printed by _dataclass_to_string_truncated:
//     strings as repr, lists and everything else as str, dicts as {'key': value} (keys
//     unescaped), dataclasses as Name(field=value, ...) (the Python-repr reader, pyrepr.go).
//     A string or list longer than the level's limit (2048 at --log-requests-level 2) is
//     printed as its head and tail around " ... ": read as a cut value (the prompt and output
//     text and ids are never used). The same fields as the JSON form are read from obj and
//     out; the start is the line's time less e2e_latency. The line's time is to the second
//     without SGLANG_LOG_MS, so such a log's arrivals are to the second only.
//   - "Finish: obj=..." with no out: a multimodal generation request (an image, no token
//     counts), skipped as no model request.
//   - "Receive: obj=...": the arrival, counted with its finished line, left out uncounted.
//
// The JSON timestamp and the text prefix are the server's local time with no zone; read as
// UTC, which keeps the offsets between requests right except across a daylight-saving change.
// out.meta_info.response_sent_to_client_ts (epoch seconds, in later releases) is not used for
// the end: tokenizer_manager.py sets it when the first response is sent, which for a stream is
// its first chunk, not its end. At --log-requests-level 0 sampling_params is not logged (no cap
// then). An EmbeddingReqInput's out has no completion_tokens: it is read as an embeddings
// request. A custom logging config (SGLANG_LOGGING_CONFIG_PATH) may write another prefix: such
// text lines are not recognised (left out), so a log of them reads as empty.
var sglangSchema = Schema{
	Format:  "sglang-log",
	Doc:     "SGLang --log-requests, JSON and text forms (request_logger.py, log_utils.py, utils/common.py configure_logger)",
	Reads:   "SGLang's server log under --log-requests (its JSON or text lines)",
	Example: `{"timestamp": "2025-01-24T09:20:47.1", "event": "request.finished", "rid": "a1", "out": {"meta_info": {"prompt_tokens": 64, "completion_tokens": 8, "e2e_latency": 0.25}}}`,
	Lines:   true,
	Sniff: func(first []byte) bool {
		if bytes.HasPrefix(first, []byte("{")) {
			return bytes.Contains(first, []byte(`"event"`)) && bytes.Contains(first, []byte(`"request.`)) && bytes.Contains(first, []byte(`"rid"`))
		}
		// A text log begins with any of the server's lines, so the prefix is what is known of
		// its first; no other source read here writes "[YYYY-MM-DD HH:MM:SS] ".
		return sglangPrefixRE.Match(first)
	},
	Read: readSGLang,
}

// sglangPrefixRE is a text line's logging prefix: its time, then the message (group 2).
var sglangPrefixRE = regexp.MustCompile(`^\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d{1,6})?)(?: [^\]]*)?\] (.*)$`)

func readSGLang(rec Record) (Entry, error) {
	line := bytes.TrimSpace(rec.Raw)
	if bytes.HasPrefix(line, []byte("{")) {
		dec, err := decodeRecord(line, rec.Year)
		if err != nil {
			return NewEntry(), fmt.Errorf("not a JSON record: %w", err)
		}
		return readSGLangJSON(dec)
	}
	return readSGLangText(rec, string(line))
}

func readSGLangJSON(rec Record) (Entry, error) {
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
	if err := sglangFinished(&e, rec.Get("obj"), rec.Get("out")); err != nil {
		return e, err
	}
	e.Key = firstString(rec.Get("headers", "x-smg-routing-key"))
	return e, nil
}

// readSGLangText reads a text line: a finished request, or a line left out.
func readSGLangText(rec Record, line string) (Entry, error) {
	e := NewEntry()
	m := sglangPrefixRE.FindStringSubmatch(stripANSI(line))
	if m == nil {
		return e, ErrNotRecord
	}
	msg := m[2]
	switch {
	case strings.HasPrefix(msg, "Receive: obj="):
		return e, ErrCountedElsewhere
	case !strings.HasPrefix(msg, "Finish: obj="):
		return e, ErrNotRecord
	}
	rest := msg[len("Finish: obj="):]
	objV, n, err := readPyElided(rest)
	if err != nil {
		return e, &FieldError{Field: "obj", Err: err}
	}
	rest = strings.TrimSpace(rest[n:])
	if rest == "" {
		return e, ErrNotModelRequest // a multimodal generation request: no out, no token counts
	}
	outText, ok := strings.CutPrefix(rest, ", out=")
	if !ok {
		return e, &FieldError{Field: "obj", Err: fmt.Errorf("want \", out=\" after it, got %q", cut(rest, 40))}
	}
	p := &pyParser{s: outText, elided: true}
	outV, err := p.value()
	if err == nil {
		if p.space(); p.i != len(p.s) {
			err = p.errf("unexpected %q after the value", p.rest(12))
		}
	}
	if err != nil {
		return e, &FieldError{Field: "out", Err: err}
	}
	obj := Value{v: objV, ok: objV != nil, path: "obj"}
	if name, _ := obj.Get(pyCallName).String(); !strings.HasSuffix(name, "ReqInput") { // GenerateReqInput, EmbeddingReqInput
		return e, obj.Err("want GenerateReqInput(...) or EmbeddingReqInput(...), got %s", cut(describe(objV), 40))
	}
	if e.End, err = ParseText(strings.Replace(m[1], ",", ".", 1), rec.Year); err != nil {
		return e, &FieldError{Field: "time", Err: err}
	}
	if err := sglangFinished(&e, obj, Value{v: outV, ok: outV != nil, path: "out"}); err != nil {
		return e, err
	}
	return e, nil
}

// sglangFinished reads a finished request's obj and out, the same in both forms.
func sglangFinished(e *Entry, obj, out Value) error {
	meta := out.Get("meta_info")
	lat, ok, err := meta.Get("e2e_latency").Float()
	if err != nil {
		return err
	}
	if !ok || lat < 0 || lat > 1e6 {
		return meta.Get("e2e_latency").Err("missing or out of range: the line is written at the end, so the start needs the latency")
	}
	e.Latency = time.Duration(lat * float64(time.Second))
	if e.PromptTokens, err = requiredInt(meta.Get("prompt_tokens")); err != nil {
		return err
	}
	n, ok, err := meta.Get("completion_tokens").Int()
	if err != nil {
		return err
	}
	if ok {
		e.OutputTokens = n
	} else {
		e.API = trace.APIEmbeddings
	}
	if e.CachedTokens, err = cachedOf(meta.Get("cached_tokens")); err != nil {
		return err
	}
	if b, ok := obj.Get("stream").Bool(); ok {
		e.Stream = &b
	}
	return samplingFrom(e, obj.Get("sampling_params"), "max_new_tokens", "temperature", "top_p")
}
