package trace

import "time"

// options_replay.go is what a logged request's options mean for replaying it as logged:
// whether its output length is forced, how many answers it asks for and the cap of each, and
// when its client cut it. A nil Options is a request without logged options.

// Forced reports whether a logged request gets the output-forcing fields: only one that ran
// to its length and was not constrained (tools, a response_format), since forcing one that
// stopped on its own would run it past where it ended. A request without options is forced,
// as every request is when logged options are not replayed.
func (o *Options) Forced() bool { return o == nil || (o.RanToLength() && !o.Structured()) }

// CapPerChoice is the output cap each of a request's n choices is sent with: the logged
// output tokens (maxTokens) are usage's, which count every choice, so they are shared among
// them (rounded up, at least 1). A request its client gave up on at a logged time is sent
// with its logged cap (MaxTokens; 0, none, when the log had none): its logged output is only
// what came before the cancellation (often nothing at all), and a cap of that would let the
// server finish before the cancellation the replay must repeat, while no cap where the log
// had one would leave it to the server's default (16 tokens for completions, OpenAI's and
// vLLM's), which ends many answers before their logged cancellation.
func (o *Options) CapPerChoice(maxTokens int) int {
	if o.CancelAfter() > 0 {
		return o.MaxTokens
	}
	if o == nil || o.N <= 1 {
		return maxTokens
	}
	return max(1, (maxTokens+o.N-1)/o.N)
}

// Choices is how many answers the request asks for.
func (o *Options) Choices() int {
	if o == nil || o.N <= 1 {
		return 1
	}
	return o.N
}

// CancelAfter is when, after its send, a logged request is cancelled as its client cancelled
// it; 0 when it was not (or the log does not say when).
func (o *Options) CancelAfter() time.Duration {
	if o == nil || !o.Cancelled || !(o.CancelAfterMS > 0) {
		return 0
	}
	return time.Duration(o.CancelAfterMS * float64(time.Millisecond))
}
