package synth

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/trace"
)

// TestSharedPrefixes checks over the whole Mooncake trace (prompts capped at 4096 tokens, 8
// blocks of 512) that two prompts whose first k hashes are equal share exactly their first
// k*512 tokens and no more: every block's tokens are the same wherever its hash appears, and
// what follows a common prefix (a different block or a request's own tail) differs at its very
// first token. A sample of pairs is also compared directly.
func TestSharedPrefixes(t *testing.T) {
	const bs, capTokens = 512, 4096
	recs := mooncake(t, 0)
	b := newBuilder(t, "qwen3", Config{Seed: 7, MaxPromptTokens: capTokens})
	var reqs []Request
	if err := b.Stream(context.Background(), 0, feed(recs), func(r Request) error {
		reqs = append(reqs, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	pre := len(b.v.prefix)
	content := func(r Request) []int { return r.PromptIDs[pre : len(r.PromptIDs)-len(b.v.suffix)] }

	// (1) A hash always stands for the same tokens.
	blocks := map[uint64][]int{}
	// (2) After a common prefix, distinct continuations start with distinct tokens. The key is
	// the prefix (its last hash; a hash implies its whole prefix) and the value maps a first
	// token to the continuation that used it.
	type node struct {
		hash uint64
		root bool
	}
	firsts := map[node]map[int]string{}
	clash := 0
	for _, r := range reqs {
		ids := content(r)
		if len(ids) != r.TargetPromptTokens-pre-len(b.v.suffix) {
			t.Fatalf("%s: %d content tokens", where(r.Record, r.Index), len(ids))
		}
		parent := node{root: true}
		for k, h := range r.BlockHashes {
			blk := ids[k*bs : min((k+1)*bs, len(ids))]
			if have, ok := blocks[h]; ok {
				n := min(len(have), len(blk))
				if !slices.Equal(have[:n], blk[:n]) {
					t.Fatalf("%s: block %d (hash %d) differs from its earlier use", where(r.Record, r.Index), k, h)
				}
				if len(blk) > len(have) {
					blocks[h] = blk
				}
			} else {
				blocks[h] = blk
			}
			clash += noteFirst(firsts, parent, blk[0], fmt.Sprintf("block %d", h))
			parent = node{hash: h}
		}
		if tail := len(r.BlockHashes) * bs; tail < len(ids) {
			clash += noteFirst(firsts, parent, ids[tail], fmt.Sprintf("tail of request %d", r.Index))
		}
	}
	if clash > 0 {
		t.Errorf("%d continuations start with the same token as a sibling (prompts would share more than their hashes say)", clash)
	}

	// (3) Direct check on pairs: the longest common prefix of the ids is exactly
	// min(k*bs, len a, len b) where k is the number of leading hashes they share.
	checked, sharing := 0, 0
	for i := 0; i < len(reqs) && checked < 20000; i++ {
		for j := i + 1; j < len(reqs) && j < i+40; j++ {
			a, c := reqs[i], reqs[j]
			k := 0
			for k < len(a.BlockHashes) && k < len(c.BlockHashes) && a.BlockHashes[k] == c.BlockHashes[k] {
				k++
			}
			if k > 0 {
				sharing++
			}
			ia, ic := content(a), content(c)
			want := min(k*bs, len(ia), len(ic))
			got := firstDiff(ia, ic)
			if got < 0 {
				got = len(ia)
			}
			if got != want {
				t.Fatalf("requests %d and %d share %d hashes but %d tokens (want %d)", a.Index, c.Index, k, got, want)
			}
			checked++
		}
	}
	s := b.Stats()
	t.Logf("%d prompts, %d distinct blocks, %d pairs compared directly (%d sharing a prefix); stats %+v", len(reqs), len(blocks), checked, sharing, s)
	if s.SiblingClashes != 0 {
		t.Errorf("%d sibling clashes", s.SiblingClashes)
	}
}

func noteFirst[N comparable](firsts map[N]map[int]string, parent N, tok int, what string) int {
	m := firsts[parent]
	if m == nil {
		m = map[int]string{}
		firsts[parent] = m
	}
	if have, ok := m[tok]; ok && have != what {
		return 1
	}
	m[tok] = what
	return 0
}

// synthesize builds recs and returns the JSON lines.
func synthesize(t *testing.T, name string, cfg Config, recs []trace.Record) []byte {
	t.Helper()
	b := newBuilder(t, name, cfg)
	var buf bytes.Buffer
	w := NewWriter(&buf, cfg.API)
	if err := b.Stream(context.Background(), 0, feed(recs), w.Write); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSameSeedSameBytes: two runs with one seed give identical bytes, another seed different
// ones (the committed checksums in TestGoldenMooncake extend this across machines).
func TestSameSeedSameBytes(t *testing.T) {
	recs := mooncake(t, 60)
	cfg := Config{Seed: 42, MaxPromptTokens: 4096}
	a := synthesize(t, "qwen3", cfg, recs)
	b := synthesize(t, "qwen3", cfg, recs)
	if !bytes.Equal(a, b) {
		t.Fatal("two runs with the same seed differ")
	}
	cfg.Seed = 43
	c := synthesize(t, "qwen3", cfg, recs)
	if bytes.Equal(a, c) {
		t.Fatal("seeds 42 and 43 gave the same prompts")
	}
}

// TestSessions: a session's next turn extends the previous prompt and a synthetic answer of
// the previous turn's output length; a turn shorter than that starts afresh and is counted.
func TestSessions(t *testing.T) {
	recs := []trace.Record{
		{PromptTokens: 300, OutputTokens: 40, SessionID: "a", Source: "s.jsonl", Line: 1},
		{PromptTokens: 500, OutputTokens: 10, SessionID: "b", Turn: 0, Source: "s.jsonl", Line: 2},
		{PromptTokens: 900, OutputTokens: 30, SessionID: "a", Turn: 1, Source: "s.jsonl", Line: 3},
		{PromptTokens: 200, OutputTokens: 30, SessionID: "a", Turn: 2, Source: "s.jsonl", Line: 4},
	}
	for _, api := range []API{APICompletions, APIChat} {
		for _, name := range []string{"qwen3", "llama2"} {
			t.Run(name+"_"+string(api), func(t *testing.T) {
				b := newBuilder(t, name, Config{Seed: 3, API: api})
				var reqs []Request
				for _, rec := range recs {
					r, err := b.Build(rec)
					if err != nil {
						t.Fatal(err)
					}
					if len(r.PromptIDs) != r.TargetPromptTokens || r.TargetPromptTokens != rec.PromptTokens {
						t.Fatalf("line %d: %d tokens, want %d", rec.Line, len(r.PromptIDs), rec.PromptTokens)
					}
					reqs = append(reqs, r)
				}
				first, second := reqs[0].PromptIDs, reqs[2].PromptIDs
				shared := firstDiff(first, second)
				if shared < 0 {
					shared = len(first)
				}
				// Completions: the whole first prompt is a prefix of the second. Chat: all of it
				// but possibly the template's generation prompt at its end.
				slack := 0
				if api == APIChat {
					slack = 4
				}
				if shared < len(first)-slack {
					t.Errorf("turn 2 shares %d of turn 1's %d tokens", shared, len(first))
				}
				if api == APIChat {
					m := reqs[2].Messages
					if len(m) != 3 || m[0].Content != reqs[0].Messages[0].Content || m[1].Role != "assistant" {
						t.Errorf("turn 2 messages: %+v", m)
					}
					if got := len(b.tok.Encode(m[1].Content, false)); got != recs[0].OutputTokens {
						t.Errorf("the synthetic answer has %d tokens, want the previous turn's output %d", got, recs[0].OutputTokens)
					}
				}
				s := b.Stats()
				if s.SessionTurns != 1 || s.SessionRestarts != 1 {
					t.Errorf("stats %+v: want 1 extended turn and 1 restart", s)
				}
			})
		}
	}
}

// TestTooShortNamesRecord: a target below the fixed overhead fails, naming file:line.
func TestTooShortNamesRecord(t *testing.T) {
	b := newBuilder(t, "llama2", Config{Seed: 1})
	for _, n := range []int{0, 1, -5} {
		_, err := b.Build(trace.Record{PromptTokens: n, OutputTokens: 1, Source: "trace.jsonl", Line: 17})
		if err == nil || !strings.Contains(err.Error(), "trace.jsonl:17") {
			t.Errorf("prompt_tokens %d: err %v, want one naming trace.jsonl:17", n, err)
		}
	}
	r, err := b.Build(trace.Record{PromptTokens: 2, OutputTokens: 0, Source: "trace.jsonl", Line: 18})
	if err != nil || len(r.PromptIDs) != 2 || r.MaxTokens != 1 {
		t.Errorf("2 tokens (BOS + one word): %v %v max_tokens %d", err, r.PromptIDs, r.MaxTokens)
	}
	c := newBuilder(t, "qwen3", Config{Seed: 1, API: APIChat})
	o, err := c.ChatOverhead()
	if err != nil || o <= 0 {
		t.Fatalf("chat overhead %d, %v", o, err)
	}
	_, err = c.Build(trace.Record{PromptTokens: o, OutputTokens: 1, Source: "trace.jsonl", Line: 19})
	if err == nil || !strings.Contains(err.Error(), "trace.jsonl:19") || !strings.Contains(err.Error(), "chat template") {
		t.Errorf("target = overhead: err %v", err)
	}
	r, err = c.Build(trace.Record{PromptTokens: o + 1, OutputTokens: 1})
	if err != nil || len(r.PromptIDs) != o+1 {
		t.Errorf("target = overhead+1: %v, %d tokens", err, len(r.PromptIDs))
	}
	_, err = c.Build(trace.Record{PromptTokens: 1000, BlockHashes: []uint64{1, 2}, Source: "trace.jsonl", Line: 20})
	if err == nil || !strings.Contains(err.Error(), "block size") {
		t.Errorf("hashes without block size: %v", err)
	}
}

// TestChatTemplatesExact renders each cached model's own chat template (Mistral's has none:
// chat.DefaultTemplate) and checks the server-side count of the rendered prompt is the target.
func TestChatTemplatesExact(t *testing.T) {
	for _, name := range []string{"qwen3", "llama3", "llama3_1", "deepseek_v3", "gemma3", "llama2"} {
		t.Run(name, func(t *testing.T) {
			b := newBuilder(t, name, Config{Seed: 5, API: APIChat})
			for _, n := range []int{40, 777, 3000} {
				r, err := b.Build(trace.Record{PromptTokens: n, OutputTokens: 5})
				if err != nil {
					t.Fatal(err)
				}
				if got := len(b.tok.Encode(r.Prompt, false)); got != n {
					t.Errorf("%d tokens: rendered prompt re-counts to %d", n, got)
				}
			}
		})
	}
}

// TestChatOverheadOverride: with a calibrated overhead the content is sized by it.
func TestChatOverheadOverride(t *testing.T) {
	b := newBuilder(t, "qwen3", Config{Seed: 5, API: APIChat})
	own, _ := b.ChatOverhead()
	if err := b.SetChatOverhead(own + 10); err != nil {
		t.Fatal(err)
	}
	r, err := b.Build(trace.Record{PromptTokens: 500, OutputTokens: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(b.tok.Encode(r.Messages[0].Content, false)); got != 500-own-10 {
		t.Errorf("content has %d tokens, want %d", got, 500-own-10)
	}
	if b.SetChatOverhead(-1) == nil {
		t.Error("a negative overhead was accepted")
	}
}

// TestStreamErrors: a bad record stops the stream after the records before it were emitted in
// order, and an emit error is returned as is.
func TestStreamErrors(t *testing.T) {
	b := newBuilder(t, "qwen3", Config{Seed: 2})
	recs := []trace.Record{{PromptTokens: 50}, {PromptTokens: 60}, {PromptTokens: 70}, {PromptTokens: 0, Source: "t.jsonl", Line: 4}, {PromptTokens: 80}}
	var got []int
	err := b.Stream(context.Background(), 2, feed(recs), func(r Request) error {
		got = append(got, r.TargetPromptTokens)
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "t.jsonl:4") || !slices.Equal(got, []int{50, 60, 70}) {
		t.Fatalf("err %v, emitted %v", err, got)
	}
	stop := fmt.Errorf("disk full")
	n := 0
	err = newBuilder(t, "qwen3", Config{Seed: 2}).Stream(context.Background(), 2, feed(recs[:3]), func(Request) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Fatalf("err %v after %d emits", err, n)
	}
}

// TestChatOverheadOverrideSessions: calibrating to exactly our template's own overhead changes
// nothing, later turns included.
func TestChatOverheadOverrideSessions(t *testing.T) {
	recs := []trace.Record{
		{PromptTokens: 300, OutputTokens: 40, SessionID: "a"},
		{PromptTokens: 900, OutputTokens: 30, SessionID: "a", Turn: 1},
		{PromptTokens: 1500, OutputTokens: 30, SessionID: "a", Turn: 2},
	}
	plain := newBuilder(t, "qwen3", Config{Seed: 8, API: APIChat})
	calibrated := newBuilder(t, "qwen3", Config{Seed: 8, API: APIChat})
	own, _ := plain.ChatOverhead()
	if err := calibrated.SetChatOverhead(own); err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		a, err1 := plain.Build(rec)
		b, err2 := calibrated.Build(rec)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if a.Prompt != b.Prompt || len(b.PromptIDs) != rec.PromptTokens {
			t.Errorf("turn %d: calibrated prompt differs (%d tokens, want %d)", rec.Turn, len(b.PromptIDs), rec.PromptTokens)
		}
	}
	if s := calibrated.Stats(); s.SessionTurns != 2 {
		t.Errorf("stats %+v", s)
	}
}

// TestChatAdjustsToContentDependentTemplate: a template whose overhead depends on the content
// (here it prints the content's length in digits, one token per digit for Qwen3) is corrected
// after rendering until the count is exact, and counted in Stats.Adjusted.
func TestChatAdjustsToContentDependentTemplate(t *testing.T) {
	tpl := "{% for m in messages %}<|im_start|>{{ m['role'] }} {{ m['content'] | length }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}<|im_start|>assistant\n"
	b, err := New(loadTok(t, "qwen3"), Config{Seed: 9, API: APIChat, Chat: chat.Template{Source: tpl}})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{30, 2000, 12000} {
		r, err := b.Build(trace.Record{PromptTokens: n, OutputTokens: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(b.tok.Encode(r.Prompt, false)); got != n {
			t.Errorf("%d: rendered prompt counts %d", n, got)
		}
	}
	if s := b.Stats(); s.Adjusted == 0 {
		t.Errorf("no prompt needed adjusting: %+v", s)
	}
}

// TestRepair: a pool word whose id is wrong (standing in for a word that does not round-trip)
// is found by re-encoding and replaced; if every word is wrong the build fails loudly.
func TestRepair(t *testing.T) {
	b := newBuilder(t, "qwen3", Config{Seed: 4})
	rec := trace.Record{PromptTokens: 400, OutputTokens: 1, Source: "r.jsonl", Line: 2}
	j, err := b.plan(rec)
	if err != nil {
		t.Fatal(err)
	}
	w := j.segs[0][5]
	b.v.mid[w]++ // the planned ids now disagree with what the text encodes to
	r, err := b.verify(j)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.PromptIDs) != 400 || b.Stats().Repaired != 1 {
		t.Errorf("%d tokens, stats %+v", len(r.PromptIDs), b.Stats())
	}
	if got := b.tok.Encode(r.Prompt, true); !slices.Equal(got, r.PromptIDs) {
		t.Error("repaired prompt does not re-encode to its ids")
	}
	for i := range b.v.mid {
		b.v.mid[i] = -1
	}
	if _, err := b.Build(rec); err == nil || !strings.Contains(err.Error(), "r.jsonl:2") {
		t.Errorf("an unrepairable prompt gave err %v", err)
	}
}

// TestFirstDiffParts: firstDiffParts is firstDiff against the joined parts, for matches,
// early and late differences, and either side longer.
func TestFirstDiffParts(t *testing.T) {
	parts := [][]int{{1}, {2, 3, 4}, {5}}
	joined := []int{1, 2, 3, 4, 5}
	for _, a := range [][]int{{}, {1}, {1, 2}, {1, 2, 3, 4, 5}, {1, 2, 3, 4, 5, 6}, {9, 2}, {1, 2, 9, 4, 5}, {1, 2, 3, 4, 9}, {1, 2, 3, 4}} {
		if got, want := firstDiffParts(a, parts...), firstDiff(a, joined); got != want {
			t.Errorf("firstDiffParts(%v) = %d, firstDiff = %d", a, got, want)
		}
	}
}

// TestFirstDiffWords: firstDiffWords is firstDiff against the prefix, the words' ids and the
// suffix joined, for an encoding that matches, differs in each part, or is short or long.
func TestFirstDiffWords(t *testing.T) {
	v := &vocab{head: []int{10, 11, 12}, mid: []int{20, 21, 22}, prefix: []int{1}, suffix: []int{2}}
	words := []int32{0, 2, 1}
	joined := []int{1, 10, 22, 21, 2}
	for _, got := range [][]int{{}, {1}, {9}, {1, 10}, {1, 10, 22, 21}, {1, 10, 22, 21, 2}, {1, 10, 22, 21, 2, 7}, {1, 11}, {1, 10, 22, 9, 2}, {1, 10, 22, 21, 3}} {
		if d, want := v.firstDiffWords(got, words), firstDiff(got, joined); d != want {
			t.Errorf("firstDiffWords(%v) = %d, firstDiff = %d", got, d, want)
		}
	}
}
