package client

// frame is what one SSE data payload tells us. Only the fields the timing and accounting need
// are extracted; everything else is skipped without decoding.
//
// Semantics (the fuzz test holds the scanner to them against encoding/json): for a repeated
// key the last occurrence wins, as in a map decode; keys are compared exactly.
type frame struct {
	// content: some choice in "choices" has a non-empty string in delta.content,
	// delta.reasoning_content, delta.reasoning or text.
	content bool
	// finished: some choice has a non-empty string finish_reason.
	finished bool
	// hasUsage: "usage" is an object. Counts are -1 when absent or not an int32.
	hasUsage   bool
	prompt     int64
	completion int64
	cached     int64
	// isError: "error" is an object or a non-empty string, or top-level "object" is "error"
	// (vLLM's error body). errMsg is the raw (still escaped) JSON string of the message, nil
	// when there is none; errCode the integer code, -1 when absent.
	isError bool
	errMsg  []byte
	errCode int64
}

// scanner walks a JSON text without building values. Every method either advances or sets
// bad, so no input can make it loop forever, and every index is checked, so none can panic.
type scanner struct {
	b   []byte
	i   int
	bad bool
	// done is set by next when it consumed the closing bracket of the current container.
	done bool
}

// parseFrame extracts a frame from one JSON object. ok is false when b does not start with an
// object the scanner can walk; it checks structure, not full JSON validity, and ignores bytes
// after the object.
func parseFrame(b []byte) (f frame, ok bool) {
	s := scanner{b: b}
	f.prompt, f.completion, f.cached, f.errCode = -1, -1, -1, -1
	var (
		errObj     bool   // "error" present as object or non-empty string
		errMsg     []byte // message from "error"
		errCode    int64  = -1
		objIsError bool   // top-level "object":"error"
		topMsg     []byte // top-level "message"
		topCode    int64  = -1
	)
	s.ws()
	if !s.eat('{') {
		return f, false
	}
	s.ws()
	if s.eat('}') {
		return f, true
	}
	for !s.bad {
		s.ws()
		key := s.key()
		if s.bad {
			break
		}
		switch string(key) {
		case "choices":
			f.content, f.finished = s.choices()
		case "usage":
			f.hasUsage, f.prompt, f.completion, f.cached = s.usage()
		case "error":
			errObj, errMsg, errCode = s.errorValue()
		case "object":
			raw, isStr := s.stringOrSkip()
			objIsError = isStr && rawEquals(raw, "error")
		case "message":
			topMsg, _ = s.stringOrSkip()
		case "code":
			topCode = s.int32OrSkip()
		default:
			s.skip()
		}
		if !s.next('}') {
			break
		}
		if s.done {
			s.done = false
			switch {
			case errObj:
				f.isError, f.errMsg, f.errCode = true, errMsg, errCode
			case objIsError:
				f.isError, f.errMsg, f.errCode = true, topMsg, topCode
			}
			return f, true
		}
	}
	return frame{prompt: -1, completion: -1, cached: -1, errCode: -1}, false
}

// choices reads the "choices" value: an array of choice objects.
func (s *scanner) choices() (content, finished bool) {
	if !s.at('[') {
		s.skip()
		return false, false
	}
	s.i++
	s.ws()
	if s.eat(']') {
		return false, false
	}
	for !s.bad {
		s.ws()
		c, f := s.choice()
		content = content || c
		finished = finished || f
		if !s.next(']') {
			return false, false
		}
		if s.done {
			s.done = false
			return content, finished
		}
	}
	return false, false
}

// choice reads one element of "choices"; anything but an object carries nothing.
func (s *scanner) choice() (content, finished bool) {
	if !s.at('{') {
		s.skip()
		return false, false
	}
	var text, delta bool
	s.i++
	s.ws()
	if s.eat('}') {
		return false, false
	}
	for !s.bad {
		s.ws()
		key := s.key()
		if s.bad {
			return false, false
		}
		switch string(key) {
		case "text":
			text = s.nonEmptyString()
		case "delta":
			delta = s.delta()
		case "finish_reason":
			finished = s.nonEmptyString()
		default:
			s.skip()
		}
		if !s.next('}') {
			return false, false
		}
		if s.done {
			s.done = false
			return text || delta, finished
		}
	}
	return false, false
}

// delta reads a chat choice's "delta" object.
func (s *scanner) delta() bool {
	if !s.at('{') {
		s.skip()
		return false
	}
	var content, reasoningContent, reasoning bool
	s.i++
	s.ws()
	if s.eat('}') {
		return false
	}
	for !s.bad {
		s.ws()
		key := s.key()
		if s.bad {
			return false
		}
		switch string(key) {
		case "content":
			content = s.nonEmptyString()
		case "reasoning_content":
			reasoningContent = s.nonEmptyString()
		case "reasoning":
			reasoning = s.nonEmptyString()
		default:
			s.skip()
		}
		if !s.next('}') {
			return false
		}
		if s.done {
			s.done = false
			return content || reasoningContent || reasoning
		}
	}
	return false
}

// usage reads the "usage" value; null or anything but an object means no usage.
func (s *scanner) usage() (ok bool, prompt, completion, cached int64) {
	prompt, completion, cached = -1, -1, -1
	if !s.at('{') {
		s.skip()
		return false, -1, -1, -1
	}
	s.i++
	s.ws()
	if s.eat('}') {
		return true, -1, -1, -1
	}
	for !s.bad {
		s.ws()
		key := s.key()
		if s.bad {
			break
		}
		switch string(key) {
		case "prompt_tokens":
			prompt = s.int32OrSkip()
		case "completion_tokens":
			completion = s.int32OrSkip()
		case "prompt_tokens_details":
			cached = s.promptDetails()
		default:
			s.skip()
		}
		if !s.next('}') {
			break
		}
		if s.done {
			s.done = false
			return true, prompt, completion, cached
		}
	}
	return false, -1, -1, -1
}

// promptDetails reads usage.prompt_tokens_details and returns cached_tokens (-1 if absent).
func (s *scanner) promptDetails() int64 {
	if !s.at('{') {
		s.skip()
		return -1
	}
	cached := int64(-1)
	s.i++
	s.ws()
	if s.eat('}') {
		return -1
	}
	for !s.bad {
		s.ws()
		key := s.key()
		if s.bad {
			return -1
		}
		if string(key) == "cached_tokens" {
			cached = s.int32OrSkip()
		} else {
			s.skip()
		}
		if !s.next('}') {
			return -1
		}
		if s.done {
			s.done = false
			return cached
		}
	}
	return -1
}

// errorValue reads the "error" value: an object with message and code, or a bare string.
func (s *scanner) errorValue() (present bool, msg []byte, code int64) {
	code = -1
	switch {
	case s.at('"'):
		raw := s.str()
		return len(raw) > 0, raw, -1
	case s.at('{'):
	default:
		s.skip()
		return false, nil, -1
	}
	s.i++
	s.ws()
	if s.eat('}') {
		return true, nil, -1
	}
	for !s.bad {
		s.ws()
		key := s.key()
		if s.bad {
			break
		}
		switch string(key) {
		case "message":
			msg, _ = s.stringOrSkip()
		case "code":
			code = s.int32OrSkip()
		default:
			s.skip()
		}
		if !s.next('}') {
			break
		}
		if s.done {
			s.done = false
			return true, msg, code
		}
	}
	return false, nil, -1
}
