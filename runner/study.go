package runner

import "github.com/llm-replay/replay/trace"

// study.go is what the study packages (sweep, calibrate) take from a run's preparation: the
// records a run of the same settings would replay, read the way Run reads them.

// Window is the trace's name and the records cfg selects: the Trace file's window (From, To,
// Limit), or without a Trace the default workload's, a request log counted with cfg's
// tokenizer (the embedded sample's against the simulator, extracted under cfg.Out).
func Window(cfg Config) (string, []trace.Record, error) {
	tok, err := resolveTokenizer(cfg)
	if err != nil {
		return "", nil, err
	}
	return resolveTrace(cfg, tok)
}
