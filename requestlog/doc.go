// Package requestlog reads request logs (`--format openai-log`: JSON lines or Parquet rows, each
// a timestamp, a request body, and its response or usage) into trace records with exact prompt
// token counts, keyed prefix block hashes, recovered sessions and each request's own options and
// logged outcome (trace.Options), and converts them to a normalized trace or privacy-safe
// Mooncake JSONL (Convert).
//
// A line is a request to one of five APIs (trace.Options.API): the logged path says which
// (api.go), else the body's shape. Each prompt is counted as the serving engine counts it:
// chat, Responses and Anthropic Messages requests are conversations, turned into chat messages
// as vLLM and llama.cpp turn them (responses.go, anthropic.go; their tools through
// chat.ToolsAsChat) and rendered with the model's chat template by package chat, tools and tool
// turns included, a Responses request chained by previous_response_id over its whole
// conversation (chain.go); completions and embeddings inputs are tokenized with the tokenizer's
// specials. Options are the typed ones trace.Options has, and every other body member but the
// content, the model and streaming carried as logged in Options.Fields (fields.go), counted by
// name with what is still dropped (Counts). The output's thinking part is the usage's
// reasoning count, else the logged thinking text counted (reasoning.go).
//
// It must not send requests, and keeps no prompt, response, tool or schema description text in
// its output unless asked (descriptions become synthetic text of the same token length; user
// ids in carried fields become keyed pseudonyms, as logged session ids do).
// It sits apart from ingest because it needs the tokenizer and the chat template, which ingest
// must not know; it registers its reader with ingest (ingest.Register, from init), so that
// ingest.Open reads request logs like any trace for run, synth and cache-sim. It imports
// ingest, never the other way.
package requestlog
