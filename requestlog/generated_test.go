package requestlog

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/internal/genlog"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/prefixcache"
	"github.com/llm-replay/replay/synth/tokenizer"
	"github.com/llm-replay/replay/trace"
)

// The generated log the tests ingest: the first genRequests requests of the log
// scripts/check-requestlog.sh checks (same seed; a shorter log is a prefix of a longer one).
const (
	genRequests = 2000
	genSeed     = 1
	genBlock    = 16
)

var testKey = []byte("requestlog tests: fixed 32B key!")

// generated is the log, its ground truth, our records and the reference prompt ids.
type generated struct {
	log    []byte
	truths []genlog.Truth
	reqs   []Request
	counts Counts
	ids    [][]int // reference: each truth's prompt rendered and encoded here
	tok    tokenizer.Tokenizer
	chat   *chat.Renderer
}

var (
	genOnce sync.Once
	gen     *generated
	genErr  error
)

// models caches loaded tokenizers and renderers for the test binary's life.
var models sync.Map

type model struct {
	tok  tokenizer.Tokenizer
	chat *chat.Renderer
}

func loadModel(t testing.TB, name string) model {
	t.Helper()
	if m, ok := models.Load(name); ok {
		return m.(model)
	}
	tok, chat, err := LoadModel(testenv.Tokenizer(t, name))
	if err != nil {
		t.Fatalf("loading %s: %v", name, err)
	}
	m := model{tok, chat}
	models.Store(name, m)
	return m
}

// loadGenerated generates and ingests the log once.
func loadGenerated(t *testing.T) *generated {
	t.Helper()
	m := loadModel(t, "qwen3")
	genOnce.Do(func() {
		g := &generated{tok: m.tok, chat: m.chat}
		var buf bytes.Buffer
		if g.truths, genErr = genlog.Generate(&buf, genRequests, genSeed); genErr != nil {
			return
		}
		g.log = buf.Bytes()
		r, err := NewReader(bytes.NewReader(g.log), "gen.jsonl", Options{Tokenizer: m.tok, Chat: m.chat, HashKey: testKey})
		if err != nil {
			genErr = err
			return
		}
		for {
			req, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				genErr = err
				return
			}
			g.reqs = append(g.reqs, req)
		}
		g.counts = r.Counts()
		// The reference ids: the truth's messages through the model's template, encoded as the
		// server does, independently of the reader.
		for _, tr := range g.truths {
			if tr.Chat {
				text, err := m.chat.Render(tr.Messages)
				if err != nil {
					genErr = err
					return
				}
				g.ids = append(g.ids, m.tok.Encode(text, false))
			} else {
				g.ids = append(g.ids, m.tok.Encode(tr.Prompt, true))
			}
		}
		gen = g
	})
	if genErr != nil {
		t.Fatal(genErr)
	}
	if len(gen.reqs) != len(gen.truths) {
		t.Fatalf("%d records for %d generated requests (counts %+v)", len(gen.reqs), len(gen.truths), gen.counts)
	}
	return gen
}

// TestGeneratedCounts: every prompt count equals the reference encoding of the truth's prompt
// and the Rust reference tokenizer's count of the same prompt (golden counts written by
// scripts/check-requestlog.sh --counts-out for the 10,000-request log, of which ours is the
// first part).
func TestGeneratedCounts(t *testing.T) {
	g := loadGenerated(t)
	golden := readRefCounts(t, filepath.Join("testdata", "golden", "qwen3_genlog.refcounts"))
	if len(golden) < len(g.reqs) {
		t.Fatalf("golden counts cover %d requests, want at least %d", len(golden), len(g.reqs))
	}
	exact := 0
	for i, r := range g.reqs {
		if r.Line != int64(i+1) {
			t.Fatalf("record %d has line %d", i, r.Line)
		}
		ref, ok := golden[r.Line]
		switch {
		case !ok:
			t.Errorf("line %d: no golden count", r.Line)
		case r.PromptTokens != len(g.ids[i]):
			t.Errorf("line %d: %d prompt tokens, reference encoding has %d", r.Line, r.PromptTokens, len(g.ids[i]))
		case r.PromptTokens != ref:
			t.Errorf("line %d: %d prompt tokens, the Rust reference counted %d", r.Line, r.PromptTokens, ref)
		default:
			exact++
		}
	}
	t.Logf("%d of %d prompt counts equal the Rust reference's (%.1f%%)", exact, len(g.reqs), 100*float64(exact)/float64(len(g.reqs)))
}

// readRefCounts reads "line count" pairs.
func readRefCounts(t *testing.T, path string) map[int64]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (regenerate with scripts/check-requestlog.sh --counts-out %s)", err, path)
	}
	defer f.Close()
	out := map[int64]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		a, b, ok := strings.Cut(sc.Text(), " ")
		line, err1 := strconv.ParseInt(a, 10, 64)
		n, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil {
			t.Fatalf("%s: bad line %q", path, sc.Text())
		}
		out[line] = n
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// refHashes is the block hash chain computed the plain way: HMAC-SHA256 of the parent hash and
// the block's ids, truncated to 8 bytes, whole blocks only.
func refHashes(key []byte, ids []int, size int) []uint64 {
	var out []uint64
	var parent uint64
	for start := 0; start+size <= len(ids); start += size {
		mac := hmac.New(sha256.New, key)
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], parent)
		mac.Write(b[:])
		for _, id := range ids[start : start+size] {
			var w [4]byte
			binary.BigEndian.PutUint32(w[:], uint32(id))
			mac.Write(w[:])
		}
		parent = binary.BigEndian.Uint64(mac.Sum(nil)[:8])
		out = append(out, parent)
	}
	return out
}

// TestGeneratedHashes: every record's hashes equal the reference chain of the reference ids.
func TestGeneratedHashes(t *testing.T) {
	g := loadGenerated(t)
	for i, r := range g.reqs {
		want := refHashes(testKey, g.ids[i], genBlock)
		if r.BlockSize != genBlock || len(r.BlockHashes) != len(want) {
			t.Fatalf("line %d: %d hashes of block size %d, want %d of %d", r.Line, len(r.BlockHashes), r.BlockSize, len(want), genBlock)
		}
		for j := range want {
			if r.BlockHashes[j] != want[j] {
				t.Fatalf("line %d: hash %d is %x, reference %x", r.Line, j, r.BlockHashes[j], want[j])
			}
		}
	}
}

// TestGeneratedSessions: the recovered sessions are exactly the generated conversations, with
// the same turn numbers.
func TestGeneratedSessions(t *testing.T) {
	g := loadGenerated(t)
	convToSess := map[int]string{}
	sessToConv := map[string]int{}
	multi := map[int]bool{}
	wrong := 0
	for i, r := range g.reqs {
		tr := g.truths[i]
		if tr.Turn > 0 {
			multi[tr.Conversation] = true
		}
		s, seen := convToSess[tr.Conversation]
		c, seen2 := sessToConv[r.SessionID]
		if r.SessionID == "" || (seen && s != r.SessionID) || (seen2 && c != tr.Conversation) || r.Turn != tr.Turn {
			if wrong < 5 {
				t.Errorf("line %d: session %q turn %d; generated conversation %d turn %d (its session so far %q)", r.Line, r.SessionID, r.Turn, tr.Conversation, tr.Turn, s)
			}
			wrong++
			continue
		}
		convToSess[tr.Conversation] = r.SessionID
		sessToConv[r.SessionID] = tr.Conversation
	}
	if wrong > 0 {
		t.Fatalf("%d of %d requests in the wrong session or turn", wrong, len(g.reqs))
	}
	if len(multi) < 50 {
		t.Fatalf("only %d multi-turn conversations generated: the test proves little", len(multi))
	}
	t.Logf("%d conversations (%d multi-turn) recovered exactly over %d requests", len(convToSess), len(multi), len(g.reqs))
}

// TestGeneratedHitRate: the ideal prefix hit rate of our hashes equals the one counted on the
// ground truth's token blocks directly (a trie of whole blocks, no hashing).
func TestGeneratedHitRate(t *testing.T) {
	g := loadGenerated(t)
	type node struct {
		parent int
		block  string
	}
	trie := map[node]int{}
	var want prefixcache.Result
	for _, ids := range g.ids {
		parent := -1
		for start := 0; start+genBlock <= len(ids); start += genBlock {
			k := node{parent, fmt.Sprint(ids[start : start+genBlock])}
			id, ok := trie[k]
			if ok {
				want.Hits++
			} else {
				id = len(trie)
				trie[k] = id
			}
			want.Blocks++
			parent = id
		}
	}
	hashes := make([][]uint64, len(g.reqs))
	for i, r := range g.reqs {
		hashes[i] = r.BlockHashes
	}
	got := prefixcache.HitRate(hashes, 0)
	if got != want || want.Blocks == 0 {
		t.Fatalf("ideal hit rate from our hashes %+v (%.2f%%), from the ground truth %+v (%.2f%%)", got, 100*got.Rate(), want, 100*want.Rate())
	}
	t.Logf("ideal prefix hit rate %.2f%% (%d of %d blocks) both ways", 100*got.Rate(), got.Hits, got.Blocks)
}

// TestGeneratedNoText writes the default outputs (Mooncake export and Parquet trace, options
// included) and looks for pieces of every generated prompt and response in their bytes, and
// for the log with options also of every tool and JSON-schema description and title, tool
// call and tool answer; with KeepText the same search must find them (so the search itself
// works).
func TestGeneratedNoText(t *testing.T) {
	t.Run("plain", func(t *testing.T) {
		g := loadGenerated(t)
		kept := readSome(t, g.log, g.tok, g.chat, 50)
		checkNoText(t, g.reqs, kept, logPieces(g.truths))
	})
	t.Run("options", func(t *testing.T) {
		g := loadOptionsLog(t, "qwen3")
		pieces := logPieces(g.truths)
		descs := descriptionPieces(t, g.truths)
		if len(descs) < 30 {
			t.Fatalf("only %d pieces of descriptions: the test proves little", len(descs))
		}
		checkNoText(t, g.plain, g.kept, append(pieces, descs...))
		checkNoText(t, g.plain, g.kept, descs) // kept text holds the descriptions themselves
	})
}

// readSome reads the first n requests of log keeping their text.
func readSome(t *testing.T, log []byte, tok tokenizer.Tokenizer, r *chat.Renderer, n int) []Request {
	t.Helper()
	rd, err := NewReader(bytes.NewReader(log), "gen.jsonl", Options{Tokenizer: tok, Chat: r, HashKey: testKey, KeepText: true})
	if err != nil {
		t.Fatal(err)
	}
	var kept []Request
	for range n {
		req, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, req)
	}
	return kept
}

// checkNoText fails when the default outputs of reqs hold any of pieces, or when those of
// kept (read with KeepText) hold none.
func checkNoText(t *testing.T, reqs, kept []Request, pieces []string) {
	t.Helper()
	dir := t.TempDir()
	set := map[string]bool{}
	for _, p := range pieces {
		set[p] = true
	}
	if n, first := containsPieces(writeOutputs(t, dir, reqs, "default"), set); n > 0 {
		t.Fatalf("default output holds %d pieces of the log's text, e.g. %q", n, first)
	}
	found, _ := containsPieces(writeOutputs(t, dir, kept, "kept"), set)
	if found == 0 {
		t.Fatal("--keep-text output holds none of the log's text: the search is broken")
	}
	t.Logf("%d distinct pieces of text searched: none in the default output, %d in %d kept-text lines", len(set), found, len(kept))
}

// writeOutputs writes reqs as the Mooncake export and the Parquet trace and returns both
// files' bytes.
func writeOutputs(t *testing.T, dir string, reqs []Request, name string) []byte {
	t.Helper()
	moonPath, pqPath := filepath.Join(dir, name+".jsonl"), filepath.Join(dir, name+".parquet")
	f, err := os.Create(moonPath)
	if err != nil {
		t.Fatal(err)
	}
	mw := NewMooncakeWriter(f)
	pw, err := trace.CreateFile(pqPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		if err := mw.Write(r); err != nil {
			t.Fatal(err)
		}
		if err := pw.Write(r.Record); err != nil {
			t.Fatal(err)
		}
	}
	if err := errors.Join(mw.Flush(), f.Close(), pw.Close()); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(moonPath)
	b, _ := os.ReadFile(pqPath)
	return append(a, b...)
}

// logPieces are 12 bytes from the start, middle and end of every text of the log: messages
// (tool answers included), the string values of tool call arguments (their keys are the
// tools' property names, kept), prompts and responses.
func logPieces(truths []genlog.Truth) []string {
	var pieces []string
	var strs func(n *jnode)
	strs = func(n *jnode) {
		if n.kind == 's' {
			pieces = addPieces(pieces, n.text)
		}
		for _, v := range n.vals {
			strs(v)
		}
	}
	for _, tr := range truths {
		for _, m := range tr.Messages {
			pieces = addPieces(pieces, m.Content)
			for _, c := range m.ToolCalls {
				if n, err := parseOrdered([]byte(c.Function.Arguments)); err == nil {
					strs(n)
				}
			}
		}
		pieces = addPieces(pieces, tr.Prompt)
		pieces = addPieces(pieces, tr.Response)
		for _, r := range tr.MoreResponses {
			pieces = addPieces(pieces, r)
		}
	}
	return pieces
}

// descriptionPieces are pieces of every description and title of the log's tools and
// response formats.
func descriptionPieces(t *testing.T, truths []genlog.Truth) []string {
	t.Helper()
	var pieces []string
	var walk func(n *jnode)
	walk = func(n *jnode) {
		for i, v := range n.vals {
			if n.kind == 'o' && (n.keys[i] == "description" || n.keys[i] == "title") && v.kind == 's' {
				pieces = addPieces(pieces, v.text)
			}
			walk(v)
		}
	}
	for _, tr := range truths {
		o := wantOptions(t, tr)
		for _, raw := range [][]byte{o.Tools, o.ResponseFormat} {
			if raw == nil {
				continue
			}
			n, err := parseOrdered(raw)
			if err != nil {
				t.Fatal(err)
			}
			walk(n)
		}
	}
	return pieces
}

func addPieces(pieces []string, s string) []string {
	if len(s) < 12 {
		return pieces
	}
	for _, at := range []int{0, len(s)/2 - 6, len(s) - 12} {
		pieces = append(pieces, s[at:at+12])
	}
	return pieces
}

// containsPieces counts the distinct pieces found in out, sliding a 12-byte window over it.
func containsPieces(out []byte, set map[string]bool) (int, string) {
	seen := map[string]bool{}
	first := ""
	for i := 0; i+12 <= len(out); i++ {
		if w := string(out[i : i+12]); set[w] && !seen[w] {
			seen[w] = true
			if first == "" {
				first = w
			}
		}
	}
	return len(seen), first
}
