package sim

// dialect is one generating API the simulator serves: how its body parses into a Request, how
// its answer is written and how its errors read. Every dialect shares everything else: the
// prompt's count and cache blocks, the cost model, the output and its length, faults.
type dialect struct {
	// parse decodes a body; defaultMaxTokens applies when the body gives no cap.
	parse func(body []byte, defaultMaxTokens int) (Request, error)
	// framing is the answer's wire shape.
	framing framingKind
	// capField names the output cap in errors.
	capField string
	errs     errorShape
}

// framingKind names an API's answer framing.
type framingKind uint8

const (
	chatFraming framingKind = iota
	completionsFraming
	responsesFraming
	messagesFraming
)

// The dialects of the generating routes.
var (
	chatDialect = dialect{
		parse:    func(b []byte, d int) (Request, error) { return ParseRequest(b, true, d) },
		framing:  chatFraming,
		capField: "max_tokens",
	}
	completionsDialect = dialect{
		parse:    func(b []byte, d int) (Request, error) { return ParseRequest(b, false, d) },
		framing:  completionsFraming,
		capField: "max_tokens",
	}
	responsesDialect = dialect{parse: parseResponsesRequest, framing: responsesFraming, capField: "max_output_tokens"}
	messagesDialect  = dialect{parse: parseMessagesRequest, framing: messagesFraming, capField: "max_tokens", errs: anthropicErrors}
)

// answer makes the answer to r with the given id, timestamp and model, framed for the API, its
// errors in the API's shape. A switch of direct calls rather than a function value, so that r
// stays on the handler's stack.
func (d *dialect) answer(r *Request, id uint64, created int64, model string) *answer {
	var a *answer
	switch d.framing {
	case responsesFraming:
		a = newResponsesAnswer(r.echo, id, created, model)
	case messagesFraming:
		a = newMessagesAnswer(id, created, model)
	default:
		// Chat and completions end a stream with a usage chunk when stream_options asks.
		a = newAnswer(d.framing == chatFraming, id, created, model)
		a.includeUsage = r.IncludeUsage
	}
	a.errs = d.errs
	return a
}
