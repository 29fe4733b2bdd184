// Package tokcheck cross-checks replay's prompt token counts against the server's own
// tokenizer, after a run's measured part: for each sent prompt (or an evenly spaced sample of
// them) it asks the endpoint's tokenize route how many tokens the server makes of it and
// compares that with the count replay recorded for the request. A chat prompt goes through the
// server's own chat template (llama.cpp's /apply-template then /tokenize; vLLM's /tokenize
// with messages); a completions prompt is tokenized as the raw prompt with the special tokens
// the server adds to a completions prompt (BOS).
//
// It owns the tokenize dialects (Dialect) and the Result that summary.json and the table
// show. It is a leaf that only talks HTTP: prompts come in as plain values. It must never run
// during a measured run (the caller calls it after the last row is in), and a server that
// cannot tokenize is evidence in the Result, never an error; errors are for bad arguments.
package tokcheck
