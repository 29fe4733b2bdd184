package sim

// dialect is one generating API the simulator serves: how its body parses into a Request, how
// its answer is written and how its errors read. Every dialect shares everything else: the
// prompt's count and cache blocks, the cost model, the output and its length, faults.
type dialect struct {
	// parse decodes a body; defaultMaxTokens applies when the body gives no cap.
	parse func(body []byte, defaultMaxTokens int) (Request, error)
	// answer makes the answer to r with the given id, timestamp and model, framed for the API.
	answer func(r *Request, id uint64, created int64, model string) *answer
	// capField names the output cap in errors.
	capField string
	errs     errorShape
}

// The dialects of the generating routes.
var (
	chatDialect = dialect{
		parse:    func(b []byte, d int) (Request, error) { return ParseRequest(b, true, d) },
		answer:   completionsAnswer(true),
		capField: "max_tokens",
	}
	completionsDialect = dialect{
		parse:    func(b []byte, d int) (Request, error) { return ParseRequest(b, false, d) },
		answer:   completionsAnswer(false),
		capField: "max_tokens",
	}
	responsesDialect = dialect{parse: parseResponsesRequest, answer: newResponsesAnswer, capField: "max_output_tokens"}
	messagesDialect  = dialect{parse: parseMessagesRequest, answer: newMessagesAnswer, capField: "max_tokens", errs: anthropicErrors}
)

// completionsAnswer makes chat (or completions) answers, which end with a usage chunk when
// stream_options asks for it.
func completionsAnswer(chat bool) func(*Request, uint64, int64, string) *answer {
	return func(r *Request, id uint64, created int64, model string) *answer {
		a := newAnswer(chat, id, created, model)
		a.includeUsage = r.IncludeUsage
		return a
	}
}
