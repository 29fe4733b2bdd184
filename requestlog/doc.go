// Package requestlog reads request logs (`--format openai-log`: JSON lines or Parquet rows, each
// a timestamp, an OpenAI chat or completions request body and its response or usage) into trace
// records with exact prompt token counts (the model's chat template rendered as the server
// would, by package chat, then its tokenizer), keyed prefix block hashes and recovered chat
// sessions, and converts them to a normalized trace or privacy-safe Mooncake JSONL (Convert).
// It must not send requests, and keeps no prompt or response text in its output unless asked.
// It sits apart from ingest because it needs the tokenizer and the chat template, which ingest
// must not know; it registers its reader with ingest (ingest.Register, from init), so that
// ingest.Open reads request logs like any trace for run, synth and cache-sim. It imports
// ingest, never the other way.
package requestlog
