package sim

import (
	"context"
	"testing"
	"time"
)

// With --token-delay, a zero-cost stream sends its chunks that far apart (the first at once)
// and still ends with usage and [DONE]; without --zero-cost the setting is refused.
func TestPacedStream(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ZeroCost = true
	cfg.TokenDelay = 20 * time.Millisecond
	_, url := startServer(t, cfg)
	o := send(t, context.Background(), url, "/v1/completions", "",
		map[string]any{"prompt": "hello there", "max_tokens": 6, "stream": true, "stream_options": map[string]any{"include_usage": true}})
	if o.doErr != nil || o.readErr != nil || o.status != 200 || !o.done {
		t.Fatalf("status %d done %v errors %v %v", o.status, o.done, o.doErr, o.readErr)
	}
	if len(o.events) != 7 { // 6 one-token chunks and the usage chunk
		t.Fatalf("%d events, want 6 chunks and usage", len(o.events))
	}
	if o.at[0] > 15*time.Millisecond {
		t.Errorf("first chunk after %v: want it at once", o.at[0])
	}
	for i := 1; i < 6; i++ {
		if gap := o.at[i] - o.at[i-1]; gap < 18*time.Millisecond || gap > 200*time.Millisecond {
			t.Errorf("chunk %d came %v after the one before, want about 20ms", i, gap)
		}
	}
	bad := DefaultConfig()
	bad.TokenDelay = time.Millisecond
	if err := bad.validate(); err == nil {
		t.Error("TokenDelay without ZeroCost was accepted")
	}
}
