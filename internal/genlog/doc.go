// Package genlog writes a realistic, seeded OpenAI-compatible request log for requestlog's tests
// and scripts/check-requestlog.sh: shared system prompts, multi-turn chats that grow, long
// documents shared between chats, duplicate prompts and plain completions, interleaved in time.
// It returns the ground truth (conversation and turn of every line) beside the log. It must not
// be used by product code; request i of a log depends only on the seed, never on the length
// asked for, so a shorter log is a prefix of a longer one.
package genlog
