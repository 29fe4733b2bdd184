package engine

// How each engine lets a client force an output of exactly max_tokens tokens (run to the cap
// instead of stopping at EOS), from its request schema:
//   - vLLM: ignore_eos and min_tokens, extra sampling parameters of its OpenAI requests
//     (vllm/entrypoints/openai/protocol.py; docs "OpenAI-Compatible Server", extra parameters).
//     ignore_eos also keeps the generation config's extra EOS ids out of the stop tokens
//     (vllm/sampling_params.py update_from_generation_config).
//   - SGLang: the same two at the top level of its OpenAI requests
//     (python/sglang/srt/entrypoints/openai/protocol.py, "extra parameters for SRT backend").
//   - TensorRT-LLM: the same two in trtllm-serve's requests (tensorrt_llm/serve/openai_protocol.py,
//     completion and chat sampling params). Its models forbid unknown fields, so nothing else
//     may be added.
//   - llama.cpp: ignore_eos, read from /completion and the OpenAI-compatible bodies alike
//     (tools/server/README.md, POST /completion options); it has no min_tokens, and max_tokens
//     becomes n_predict.
//   - TGI: none; its messages API (router/src/lib.rs ChatRequest) has no such field, and the
//     router always sets ignore_eos_token false (router/src/validation.rs).
//   - Ollama: none; its OpenAI layer (openai/openai.go ChatCompletionRequest) takes
//     max_tokens, which becomes options.num_predict, a cap only.
//   - OpenAI: none; max_tokens and max_completion_tokens only cap, and unknown fields are
//     rejected ("Unrecognized request argument supplied").
//   - generic: none is assumed; --extra-body adds whatever the server takes.

// ForceFields are the request fields that force an output of maxTokens tokens on e, to merge
// into the request body beside max_tokens; nil when e has none (Forceable is false).
// maxTokens <= 0 gives the fields that do not depend on the length (ignore_eos alone), which
// suffice on their own and fit a client's one ExtraBody for every request.
func (e Engine) ForceFields(maxTokens int) map[string]any {
	switch e {
	case VLLM, SGLang, TRTLLM:
		f := map[string]any{"ignore_eos": true}
		if maxTokens > 0 {
			f["min_tokens"] = maxTokens
		}
		return f
	case LlamaCpp:
		return map[string]any{"ignore_eos": true}
	}
	return nil
}

// ThinkingBudgetField is the request field that bounds one request's thinking on e, which a
// forced run sends with the logged thinking count so the split of thinking and answer is asked
// for as well as the total: vLLM's thinking_token_budget (vllm/v1/sample/thinking_budget_state.py:
// the engine forces the end of the think block once the budget is spent; it bounds, it does
// not lengthen, so a model that stops thinking sooner thinks less), which replay's simulator
// takes as the exact length of its thinking. "" for the others: SGLang bounds thinking only
// through a server flag or a custom logit processor, llama.cpp only per server
// (--reasoning-budget), and the managed APIs take a budget that bounds, in their own fields,
// which a logged body already carries.
func (e Engine) ThinkingBudgetField() string {
	if e == VLLM {
		return "thinking_token_budget"
	}
	return ""
}

// PriorityField is the request field e schedules by priority with ("" when it has none known
// here): vLLM's priority, lower served first, under its --scheduling-policy priority (the
// simulator, which speaks vLLM's API, honours it too).
func (e Engine) PriorityField() string {
	if e == VLLM {
		return "priority"
	}
	return ""
}

// Forceable reports whether e has a request field that forces the output length.
func (e Engine) Forceable() bool { return e.ForceFields(0) != nil }

// ForceNote says in one sentence how e's output length is forced, or why it cannot be, for the
// run's message and the fidelity section ("not forceable on this engine").
func (e Engine) ForceNote() string {
	switch e {
	case VLLM, SGLang, TRTLLM:
		return e.Label() + " runs to max_tokens with ignore_eos (and min_tokens)"
	case LlamaCpp:
		return "llama.cpp runs to max_tokens with ignore_eos"
	case TGI:
		return "output length is not forceable on TGI: its OpenAI API has no ignore_eos or min_tokens, so max_tokens only caps"
	case Ollama:
		return "output length is not forceable on Ollama: its OpenAI API has no ignore_eos, and num_predict only caps"
	case OpenAI:
		return "output length is not forceable on OpenAI's API: max_tokens only caps, and it rejects ignore_eos"
	case Auto:
		return "the engine is not known yet (detect it first)"
	}
	return "output length is not forceable on an unknown engine: max_tokens only caps (--extra-body can add the server's own fields)"
}
