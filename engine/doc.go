// Package engine speaks each serving engine's dialect beyond the OpenAI API they share: which
// engine an endpoint is (Detect: /v1/models' owned_by, /version, /health, /metrics' name
// prefixes, TGI's /info, Ollama's /api/version, llama.cpp's /props, SGLang's server info,
// OpenAI's response headers), how to force an output length on it (ForceFields: ignore_eos,
// min_tokens, or nothing where the engine has no such parameter), whether forcing works in
// practice (ProbeForcing, one small request before the run), how to reset its prefix cache
// (ResetPrefixCache: vLLM's /reset_prefix_cache, SGLang's /flush_cache, llama.cpp's slot
// erase) and where its
// Prometheus page is (MetricsURL). For one run it decides the dialect: which engine to speak
// (Choose: the simulator, a named engine or a detected one), the forcing fields added to the
// body and the probe's verdict (Choice.Force), and the reset before the measured run
// (Choice.ResetForRun), each with the line it prints and the state summary.json records.
//
// It owns the engine names (Engine, ParseEngine for --engine) and the references each
// behaviour comes from, cited beside the code. It must not send the run's requests, parse
// metrics pages into series (package scrape does, given the table ForEngine names), or
// import the pipeline's stages: it is a leaf that only talks HTTP (the run's settings come
// in as plain values, the fields the client withholds among them). A probe that fails is
// evidence, never an error; errors are for bad arguments.
package engine
