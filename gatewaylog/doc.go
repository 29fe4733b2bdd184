// Package gatewaylog reads the logs a team already has of yesterday's traffic, as AI gateways,
// clouds and engines write them (LiteLLM's StandardLoggingPayload and LiteLLM_SpendLogs rows,
// AWS Bedrock's model invocation logs, Envoy AI Gateway's access logs, Kong AI Gateway's log
// records, SGLang's request log (JSON or text), Azure API Management's gateway and LLM logs,
// Vertex AI's request-response log, Langfuse's observations export, Helicone's request export,
// Portkey's logs export and vLLM's server log with request logging), into
// trace records: one Schema per source (a file each, citing
// the source's own documentation of its record), every record turned into one Entry (arrival
// time, token counts, cached prompt tokens, the output's reasoning tokens where the source
// counts them, stream flag, model, sampling, who sent it), entries
// sorted by arrival (several sources log the end time, so a request's start is its end minus
// its latency), and the records that are no model request (an MCP call, a health check)
// skipped and counted. A JSON log may come as JSON lines, one JSON array or pretty-printed
// documents (ingest.EachDocument), and compressed (ingest.OpenFile); a log of many files is merged
// by ingest, each file read here alone, held whole within the memory budget.
//
// Most of these logs hold no prompt text, only token counts. Where a record logs its cached
// prompt tokens, ingest.CachedPrefixes gives it block hashes that share exactly that many tokens (to
// the block) with the latest earlier request of the same session, user or key long enough to
// hold them, so a replay reproduces the logged prefix-cache hit rate; where nothing says what
// was cached, the records carry no hashes and replay with unique prefixes.
//
// It registers its formats with ingest (ingest.Register, from init) so that ingest.Open reads
// them like any trace; it imports ingest, never the other way. It must not send requests,
// tokenize, or keep any prompt or response text a record holds.
package gatewaylog
