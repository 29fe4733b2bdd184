package analysis

import (
	"sort"

	"github.com/llm-replay/replay/results"
)

// reasoning.go gives the figures of a run whose model thinks before it answers: what a user
// waits for is the first answer token, after the thinking, not the first token (TTFAT,
// Summary.TTFAT); how much of the output was thinking; how fast each kind streamed; and, where
// the log said how much its requests thought, whether the replay thought as much.

// Reasoning is summary.json's "reasoning": nil when no request thought and no log said how
// much one did. ITLThinking and ITLAnswer are the gaps between consecutive chunks of thinking
// (those before the first answer chunk) and of answer (from it on), streamed requests only.
// A request that thought and never answered is counted (NeverAnswered), left out of TTFAT and
// fails a ttfat SLO. Logged counts the requests whose log gave the split, SplitExactPct those
// of them (answered, usage or chunks counted) whose thinking came to the logged count.
type Reasoning struct {
	Requests        int64    `json:"requests"`
	NeverAnswered   int64    `json:"never_answered"`
	ReasoningTokens int64    `json:"reasoning_tokens"`
	AnswerTokens    int64    `json:"answer_tokens"`
	SharePct        *float64 `json:"share_pct"`
	ITLThinking     Dist     `json:"itl_thinking_ms"`
	ITLAnswer       Dist     `json:"itl_answer_ms"`
	Logged          int64    `json:"logged"`
	SplitExactPct   *float64 `json:"split_exact_pct"`
	// Unequal are up to five requests whose thinking differed from the log's, for a look.
	Unequal []SplitMiss `json:"unequal,omitempty"`
}

// SplitMiss is one request whose thinking differed from its log's.
type SplitMiss struct {
	RequestID string `json:"request_id"`
	Logged    int32  `json:"logged"`
	Replayed  int32  `json:"replayed"`
}

// reasoningAgg aggregates the successful rows' thinking.
type reasoningAgg struct {
	requests, neverAnswered      int64
	reasoningTokens, answerToken int64
	itlThinking, itlAnswer       *latency
	logged, exact                int64
	unequal                      []SplitMiss
}

func newReasoningAgg() *reasoningAgg {
	return &reasoningAgg{itlThinking: newLatency(), itlAnswer: newLatency()}
}

// add counts one successful row.
func (a *reasoningAgg) add(r *results.Row) {
	a.reasoningTokens += int64(r.ReasoningTokens)
	a.answerToken += int64(r.AnswerTokens)
	if r.ReasoningTokens > 0 {
		a.requests++
		if r.FirstAnswerNS == 0 {
			a.neverAnswered++
		}
	}
	if r.TargetReasoningTokens >= 0 && (r.TargetReasoningTokens > 0 || r.ReasoningTokens > 0) {
		a.logged++
		if r.ReasoningTokens == r.TargetReasoningTokens {
			a.exact++
		} else if len(a.unequal) < 5 {
			a.unequal = append(a.unequal, SplitMiss{r.RequestID, r.TargetReasoningTokens, r.ReasoningTokens})
		}
	}
	if r.FirstReasoningNS == 0 || !r.Streamed() {
		return
	}
	k := len(r.ChunkNS)
	if r.FirstAnswerNS > 0 {
		k = sort.Search(len(r.ChunkNS), func(i int) bool { return r.ChunkNS[i] >= r.FirstAnswerNS })
	}
	a.itlThinking.recordGapsNS(r.ChunkNS[:k])
	a.itlAnswer.recordGapsNS(r.ChunkNS[k:])
}

// summary is the "reasoning" section, nil when nothing thought and no log said.
func (a *reasoningAgg) summary() *Reasoning {
	if a.requests == 0 && a.logged == 0 {
		return nil
	}
	return &Reasoning{Requests: a.requests, NeverAnswered: a.neverAnswered,
		ReasoningTokens: a.reasoningTokens, AnswerTokens: a.answerToken,
		SharePct:    pctPtr(a.reasoningTokens, a.reasoningTokens+a.answerToken),
		ITLThinking: a.itlThinking.dist(), ITLAnswer: a.itlAnswer.dist(),
		Logged: a.logged, SplitExactPct: pctPtr(a.exact, a.logged), Unequal: a.unequal}
}

// ttfatNS is a successful row's time to first answer token from its send and from its due
// time; ok is false when no answer came (thought and never answered, or no chunk at all). A
// non-streamed answer's first answer token is its whole answer.
func ttfatNS(r *results.Row) (fromSent, fromSched int64, ok bool) {
	if !r.Streamed() {
		return r.DoneNS - r.SentNS, r.DoneNS - r.ScheduledNS, true
	}
	if r.FirstAnswerNS == 0 {
		// A row of a build before reasoning was measured has no FirstAnswerNS: its first token
		// was an answer token, as far as it knew.
		if r.FirstReasoningNS != 0 || r.FirstTokenNS == 0 {
			return 0, 0, false
		}
		return r.FirstTokenNS - r.SentNS, r.FirstTokenNS - r.ScheduledNS, true
	}
	return r.FirstAnswerNS - r.SentNS, r.FirstAnswerNS - r.ScheduledNS, true
}
