package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// slotServer answers like llama.cpp's server for the slot routes and completions, from
// ggml-org/llama.cpp tools/server/server-context.cpp (commit
// fb4026604c67c682f552337ec9b91eced0abd35a): GET /slots lists slots with their "id";
// post_slots answers 501 "This server does not support slots action. Start it with
// `--slot-save-path`" (type not_supported_error) before looking at the action when no save
// path is set; handle_slots_erase answers {"id_slot":N,"n_erased":T}; server-task.cpp's
// server_prompt_cache keeps a slot's prompt in host memory when the slot takes another one
// (--cache-ram not 0) and restores the most similar one for a new prompt. Words stand for
// tokens, the first being BOS; usage.prompt_tokens_details.cached_tokens is the prefix
// reused, at most all but one token (the last is always evaluated), as build b11669 answered.
type slotServer struct {
	mu        sync.Mutex
	slots     [][]string
	host      [][]string // the host-memory prompt cache's parked prompts
	hostOn    bool       // --cache-ram not 0
	savePath  bool
	erases    []string
	completed int
}

func newSlotServer(n int, savePath, hostCache bool) *slotServer {
	return &slotServer{slots: make([][]string, n), savePath: savePath, hostOn: hostCache}
}

func (s *slotServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/slots":
		list := make([]map[string]any, len(s.slots))
		for i := range s.slots {
			list[i] = map[string]any{"id": i, "n_ctx": 2048, "speculative": false, "is_processing": false}
		}
		json.NewEncoder(w).Encode(list)
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/slots/"):
		s.slotAction(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/completions":
		s.complete(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (s *slotServer) slotAction(w http.ResponseWriter, r *http.Request) {
	if !s.savePath {
		w.WriteHeader(http.StatusNotImplemented)
		fmt.Fprint(w, `{"error":{"code":501,"message":"This server does not support slots action. Start it with `+"`--slot-save-path`"+`","type":"not_supported_error"}}`)
		return
	}
	var id int
	if _, err := fmt.Sscan(strings.TrimPrefix(r.URL.Path, "/slots/"), &id); err != nil || id < 0 || id >= len(s.slots) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"code":400,"message":"Invalid slot ID","type":"invalid_request_error"}}`)
		return
	}
	if r.URL.Query().Get("action") != "erase" {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"code":400,"message":"Invalid action","type":"invalid_request_error"}}`)
		return
	}
	s.erases = append(s.erases, r.URL.Path)
	fmt.Fprintf(w, `{"id_slot":%d,"n_erased":%d}`, id, len(s.slots[id]))
	s.slots[id] = nil
}

func (s *slotServer) complete(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Prompt string `json:"prompt"`
		Slot   *int   `json:"id_slot"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	toks := append([]string{"<s>"}, strings.Fields(req.Prompt)...)
	id := 0
	if req.Slot != nil {
		id = *req.Slot
	} else {
		id = s.bestSlot(toks)
	}
	if s.hostOn && len(s.slots[id]) > 0 && lcp(s.slots[id], toks) < len(s.slots[id]) {
		s.host = append(s.host, s.slots[id]) // the slot moves on: its prompt is parked
	}
	if s.hostOn && req.Slot == nil {
		for i, h := range s.host {
			if lcp(h, toks) > lcp(s.slots[id], toks) {
				s.slots[id], s.host = h, slices.Delete(s.host, i, i+1)
				break
			}
		}
	}
	cached := min(lcp(s.slots[id], toks), len(toks)-1)
	s.slots[id] = toks
	s.completed++
	fmt.Fprintf(w, `{"object":"text_completion","choices":[{"text":" x","index":0,"finish_reason":"length"}],`+
		`"usage":{"completion_tokens":1,"prompt_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d}},`+
		`"timings":{"cache_n":%d,"prompt_n":%d}}`, len(toks), len(toks)+1, cached, cached, len(toks)-cached)
}

// bestSlot is the slot sharing the longest prefix with toks, else the first empty one.
func (s *slotServer) bestSlot(toks []string) int {
	best, n := -1, 1
	for i, sl := range s.slots {
		if l := lcp(sl, toks); l > n {
			best, n = i, l
		}
	}
	if best >= 0 {
		return best
	}
	for i, sl := range s.slots {
		if len(sl) == 0 {
			return i
		}
	}
	return 0
}

func lcp(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func serveSlots(t *testing.T, s *slotServer) string {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestResetLlamaCpp: with --slot-save-path and --cache-ram 0 every slot is erased (after
// the probe too, so no slot keeps a prompt) and the cache counts as reset.
func TestResetLlamaCpp(t *testing.T) {
	s := newSlotServer(4, true, false)
	s.slots[2] = strings.Fields("<s> a warm prompt")
	url := serveSlots(t, s)
	res, err := ResetPrefixCache(context.Background(), nil, url+"/v1", LlamaCpp)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Supported || !res.Reset || res.Why != "" || res.Status != 200 ||
		res.Endpoint != "POST "+url+"/slots/{0,1,2,3}?action=erase" {
		t.Fatalf("%+v", res)
	}
	if len(s.erases) != 12 || s.completed != 3 { // erase, probe (2 sends, erase, 1 send), erase
		t.Fatalf("erases %v, %d completions", s.erases, s.completed)
	}
	for i, sl := range s.slots {
		if len(sl) != 0 {
			t.Fatalf("slot %d still holds %v", i, sl)
		}
	}
}

// TestResetLlamaCppWithoutSavePath: the server's 501 is the reason, with the flag to add.
func TestResetLlamaCppWithoutSavePath(t *testing.T) {
	s := newSlotServer(2, false, true)
	res, err := ResetPrefixCache(context.Background(), nil, serveSlots(t, s), LlamaCpp)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Supported || res.Reset || res.Status != 501 || !strings.Contains(res.Why, "--slot-save-path") ||
		!strings.Contains(res.Why, "does not support slots action") {
		t.Fatalf("%+v", res)
	}
	if s.completed != 0 {
		t.Fatalf("%d completions sent after the erase failed", s.completed)
	}
}

// TestResetLlamaCppHostCache: a host-memory prompt cache that outlives the erase makes the
// reset fail, naming --cache-ram 0.
func TestResetLlamaCppHostCache(t *testing.T) {
	s := newSlotServer(4, true, true)
	res, err := ResetPrefixCache(context.Background(), nil, serveSlots(t, s), LlamaCpp)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reset || !strings.Contains(res.Why, "--cache-ram 0") || !strings.Contains(res.Why, "tokens cached") {
		t.Fatalf("%+v", res)
	}
	state := Choice{Engine: LlamaCpp}.ResetForRun(context.Background(), nil, serveSlots(t, newSlotServer(1, true, true)), &strings.Builder{})
	if !strings.HasPrefix(state, "not reset: the slots were erased, but the server's host-memory prompt cache") {
		t.Fatalf("state %q", state)
	}
}

// TestResetLlamaCppBadSlots: /slots off (--no-slots answers 501) or not a list is the reason.
func TestResetLlamaCppBadSlots(t *testing.T) {
	off := serve(t, &fake{routes: map[string]http.HandlerFunc{"GET /slots": func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotImplemented)
		fmt.Fprint(w, `{"error":{"code":501,"message":"This server does not support slots endpoint. Start it with `+"`--slots`"+`","type":"not_supported_error"}}`)
	}}})
	res, _ := ResetPrefixCache(context.Background(), nil, off.URL, LlamaCpp)
	if res.Reset || !strings.Contains(res.Why, "HTTP 501") || !strings.Contains(res.Why, "--slots") {
		t.Fatalf("%+v", res)
	}
	odd := serve(t, &fake{routes: map[string]http.HandlerFunc{"GET /slots": jsonBody(`{"slots":4}`)}})
	if res, _ := ResetPrefixCache(context.Background(), nil, odd.URL, LlamaCpp); res.Reset || !strings.Contains(res.Why, "not a list of slots") {
		t.Fatalf("%+v", res)
	}
}
