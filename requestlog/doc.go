// Package requestlog reads request logs (`--format openai-log`: JSON lines or Parquet rows, each
// a timestamp, an OpenAI chat or completions request body and its response or usage) into trace
// records with exact prompt token counts (the model's chat template rendered as the server
// would, by package chat, with the request's tools and tool turns, then its tokenizer), keyed
// prefix block hashes, recovered chat sessions and each request's own options and logged
// outcome (trace.Options: streaming, sampling, stop, n, tools, response_format, status,
// cancellation; body fields it does not know are counted by name), and converts them to a
// normalized trace or privacy-safe Mooncake JSONL (Convert).
// It must not send requests, and keeps no prompt, response, tool or schema description text in
// its output unless asked (descriptions become synthetic text of the same token length).
// It sits apart from ingest because it needs the tokenizer and the chat template, which ingest
// must not know; it registers its reader with ingest (ingest.Register, from init), so that
// ingest.Open reads request logs like any trace for run, synth and cache-sim. It imports
// ingest, never the other way.
package requestlog
