package trace

import (
	"testing"
	"time"
)

// TestOptionsReplayed: a nil Options is one plain answer, forced, capped at the logged
// output; n choices share the cap; a cut request is sent with its logged cap (none when the
// log had none) and cut when it was; a
// constrained or stopped answer is not forced.
func TestOptionsReplayed(t *testing.T) {
	var none *Options
	if !none.Forced() || none.Choices() != 1 || none.CapPerChoice(10) != 10 || none.CancelAfter() != 0 {
		t.Error("nil options")
	}
	three := &Options{N: 3, FinishReason: "length"}
	if three.Choices() != 3 || three.CapPerChoice(10) != 4 || three.CapPerChoice(1) != 1 || !three.Forced() {
		t.Errorf("n=3: %d choices, cap %d", three.Choices(), three.CapPerChoice(10))
	}
	cut := &Options{Cancelled: true, CancelAfterMS: 1.5}
	if cut.CancelAfter() != 1500*time.Microsecond || cut.CapPerChoice(10) != 0 {
		t.Errorf("cut: after %v, cap %d", cut.CancelAfter(), cut.CapPerChoice(10))
	}
	if capped := (&Options{Cancelled: true, CancelAfterMS: 682, MaxTokensField: "max_tokens", MaxTokens: 4096}); capped.CapPerChoice(3) != 4096 {
		t.Errorf("a cut request logged with max_tokens 4096 is sent with %d", capped.CapPerChoice(3))
	}
	if (&Options{FinishReason: "stop"}).Forced() || (&Options{FinishReason: "length", Tools: []byte(`[{}]`)}).Forced() {
		t.Error("a stopped or constrained answer forced")
	}
}
