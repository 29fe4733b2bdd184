// Package accesslog turns raw request logs (JSON lines or Parquet rows, each a timestamp, an
// OpenAI chat or completions request body and its response or usage) into trace records with
// exact prompt token counts (the model's chat template rendered as the server would, then its
// tokenizer), keyed prefix block hashes and recovered chat sessions, and exports them as
// privacy-safe Mooncake JSONL. It must not send requests, and keeps no prompt or response text
// in its output unless asked. It sits apart from ingest because it needs the tokenizer and
// synth's chat template renderer, which ingest must not know; it reads log files and gives
// records to cmd/replay's trace writers.
package accesslog
