package runner

import (
	"context"
	"time"

	"github.com/llm-replay/replay/client"
)

// Backoff bounds under --retries when the server gives no Retry-After: 250 ms doubling, at
// most 8 s (the shape vLLM's and OpenAI's clients use).
const (
	backoffBase = 250 * time.Millisecond
	backoffMax  = 8 * time.Second
)

// retryable says whether another attempt could succeed where this one failed: the server said
// it was overloaded or failed (429, 5xx), or no connection was made. Not a timeout, a cut or
// malformed stream (the server did the work; a retry would double it), a 4xx or the client's
// own limit.
func retryable(r *client.Response) bool {
	switch r.ErrorClass {
	case client.ErrHTTP429, client.ErrHTTP5xx, client.ErrConnect:
		return true
	}
	return false
}

// backoff is the wait before attempt+1: the server's Retry-After when it gave one, else
// exponential.
func backoff(attempt int, retryAfterNS int64) time.Duration {
	if retryAfterNS > 0 {
		return time.Duration(retryAfterNS)
	}
	d := backoffBase << min(attempt, 10)
	return min(d, backoffMax)
}

// sleepCtx waits d, or until ctx ends (false).
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
