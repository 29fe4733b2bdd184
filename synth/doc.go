// Package synth turns trace records into requests whose prompts count exactly the trace's prompt
// tokens under the served model's tokenizer and share exactly the leading tokens that equal block
// hashes say they shared in production, built from (hash, seed) only so runs are reproducible.
// Records come from ingest/trace; requests go to the scheduler and client. It must not send
// requests: the only tokenizer work here is generating ids, rendering chat prompts (with the
// chat package's renderer, which it does not reimplement, tools included when the request
// will carry its logged tools: Config.Tools) and verifying counts by re-encoding.
package synth
