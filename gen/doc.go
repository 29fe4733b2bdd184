// Package gen generates seeded, production-shaped LLM traces: arrival times, prompt and output
// token counts, Mooncake-style prompt block ids (equal id, equal block; an id implies its whole
// prefix) and multi-turn sessions, as trace.Records and as Mooncake JSONL that this tool,
// vLLM, SGLang and AIPerf replay. It owns the traffic models and their parameters; it must not
// read traces (it produces its own values from the parameters below, never rows of a public
// trace), touch the network or the clock, or depend on map order: the same Config gives the
// same bytes. Its records go to the runner and to `replay gen`, which writes the file.
//
// # Shapes
//
// chat: conversations. A system prompt from a small Zipf-popular pool (every request of the
// Mooncake conversation trace starts with the same block), then turns: turn n+1's prompt is
// turn n's prompt, its answer and a new user message, so its block ids start with turn n's
// full blocks. Turn n+1 arrives an estimated answer time (0.2 s + prompt/8,000 + output/40 s)
// plus a think time (lognormal, median 20 s) after turn n. One more turn follows with
// probability 0.4, so 1 - 0.6/(1/0.6) = 64% of requests are turns of multi-turn sessions.
//
// code: code completions while a developer types. An optional repository header (a
// Zipf-popular pool, shared by everyone on the repository) and the file up to the cursor;
// completions come in bursts (3 s median pause, 30% re-asked at the same cursor) whose
// prompts share everything before the previous cursor, and 70% of bursts are in a
// Zipf-popular file someone edited before. Plain requests, no session ids: completions do not
// wait for each other.
//
// agent: tool-using agents. One of four tool-definition system prompts (2.5k tokens median),
// for 40% of tasks a shared document, a task, then steps that each append the model's tool
// call and the tool's result (a tool takes 1 s median); one more step with probability 0.5.
// The steps of a task are the turns of one session.
//
// mixed: 50% chat, 30% code, 20% agent requests, each part with its own arrivals.
//
// Arrivals: units (a session, a burst, a task) start as a Gamma renewal process, shape 0.2
// (0.15 for code bursts), i.e. a CV of 2.2-2.6 between starts; with the follow-up turns the
// request gaps have a CV of 1.3-1.7 (stats_test.go), burstier than Poisson (CV 1) as BurstGPT
// finds for real LLM traffic. Units start at rate/(requests a unit keeps in the window), so
// that --rate holds for short windows too, where late sessions lose their later turns. A
// 2-minute window of such traffic still holds 2.5-4 requests/s at --rate 3 (p10-p90 over
// seeds): bursts are the point. Lengths are lognormal fits, clamped: prompts under 16,000
// tokens (code under 7,437, the coding trace's 8k-context limit); a session whose next turn
// would pass the cap ends there.
//
// # Sources and the figures used
//
// Mooncake (Qin et al., "Mooncake: A KVCache-centric Disaggregated Architecture for LLM
// Serving", FAST'25), Table 2, read from FAST25-release/Mooncake-FAST25.pdf in
// github.com/kvcache-ai/Mooncake: average input / output tokens and cache (prefix reuse) ratio
// of the released traces: conversation 12,035 / 343 / 40%, tool&agent 8,596 / 182 / 59%,
// synthetic 15,325 / 149 / 66%. Section 5.2.1: the conversation ratio comes from multi-turn
// conversations; tool&agent prompts are "pre-designed, often lengthy, system prompts that
// are fully repetitive". Used: chat's 40% and agent's 59% ideal hit rates, agent's mean prompt
// (8,596) and output (182); code's 66% is the synthetic trace's, whose reuse comes from many
// questions on one lengthy document (L-Eval, LooGLE), the mechanism of completions sharing a
// file; no coding trace with hashes is public. Computed for this package from the released
// conversation_trace.jsonl: all 12,031 requests share block 0; ideal hit rate 36.6%.
//
// Splitwise (Patel et al., "Splitwise: Efficient Generative LLM Inference Using Phase
// Splitting", ISCA 2024), Azure LLM inference traces 2023 (github.com/Azure/AzurePublicDataset,
// AzureLLMInferenceTrace_{conv,code}.csv): median prompt / output tokens, conversation
// 1,020 / 129, coding 1,500 / 13. Computed for this package from the released CSVs
// (percentiles for stats_test.go, not rows): conversation p90 2,734 / 424 (mean 1,155 / 211,
// answers up to 1,000 tokens, 5.5 req/s, gap CV 1.09); coding p90 5,186 / 55, median
// 1,469 / 13, prompts up to 7,437 (2.6 req/s, gap CV 13: bursts with minutes of silence
// between).
//
// BurstGPT (Wang et al., "BurstGPT: A Real-world Workload Dataset to Optimize LLM Serving
// Systems", 2024, github.com/HPMLL/BurstGPT): Azure OpenAI GPT traffic is burstier than
// Poisson; its generator models inter-arrival times as Gamma and token lengths as Zipf. Used:
// Gamma-renewal arrivals with a shape below 1; lengths here are lognormal, which fits the
// Splitwise medians and p90s above with one sigma each.
//
// Chosen, not measured (no public figure we could verify): think time (20 s median, shorter
// than human think times so that a 2-minute trace holds follow-up turns close enough in
// time for a prefix cache to keep them), continuation probabilities, tool latency, pool sizes
// and the Zipf exponents (tuned so the ideal hit rates meet the ratios above), the answer-time
// estimate and the mixed blend.
package gen
