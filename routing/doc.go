// Package routing says where each logged request goes and how it is told apart: the served
// model a logged one is mapped to (--model-map: a model, optionally an adapter, and the
// tokenizer that counts for it), the logged headers replayed (--headers logged, an
// allowlist; credentials never), the per-session affinity header, and the SLO class a
// request is judged in (--slo-class-by). It reads trace records and nothing else: runner
// applies it, cmd/replay parses its flags through it; it sends nothing and counts no tokens.
package routing
