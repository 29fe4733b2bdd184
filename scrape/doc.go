// Package scrape reads an endpoint's Prometheus /metrics while a run is under way: it polls the
// page at a fixed interval, keeps the vLLM-named series a replay needs (prefix-cache queries and
// hits, running and waiting requests, KV-cache usage), appends each sample to the run's
// server_metrics.jsonl as it goes (so an interrupted run keeps what was scraped; the file's
// format and its writer are package results') and sums the counters' increases.
// It is a peer of client: it talks to the endpoint but never sends requests, decides when to
// send them or computes run figures; the runner starts and stops it and hands its Result on.
package scrape
