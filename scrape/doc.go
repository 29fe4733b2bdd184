// Package scrape reads Prometheus pages while a run is under way: the endpoint's own /metrics
// and, beside it, a GPU exporter's. It polls a page at a fixed interval and keeps the series a
// replay needs, chosen by a names table (Names): vLLM's by default, SGLang's, TGI's,
// TensorRT-LLM's or llama.cpp's by engine (ForEngine), each written under package results'
// neutral keys so the report reads every engine alike, each key's source series named
// (Result.From) and counters an engine keeps in blocks kept as blocks (unit.go); or the DCGM exporter's per-GPU utilization, memory, power
// and clocks (DCGM), from which EnergyPerToken integrates the run's energy (over several
// exporters, EnergyPerOutputToken) and GPUStats gives each GPU's means and peak. It appends each
// sample to a run file as it goes (so an interrupted run keeps what was scraped; the line
// format and its writer are package results') and sums the counters' increases. Once, before
// a run's requests, it can read a page for an info metric's labels (InfoLabels: vLLM's KV cache
// configuration, CacheConfigInfo, which the cache study turns into the engine's capacity).
// It is a peer of client: it talks to the endpoint but never sends requests, decides when to
// send them or computes run figures; it does not know how engines are detected (package
// engine does, and the runner hands its answer over as a table). The runner starts and stops
// it and hands its Result on.
package scrape
