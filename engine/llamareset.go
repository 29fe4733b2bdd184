package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// llama.cpp's server has no reset endpoint; its prefix cache is each slot's KV cache, which
// POST /slots/{id}?action=erase empties (ggml-org/llama.cpp tools/server/server-context.cpp,
// server_routes::init_routes' post_slots and handle_slots_erase, commit
// fb4026604c67c682f552337ec9b91eced0abd35a; tools/server/README.md "POST /slots/{id_slot}?action=erase").
// GET /slots lists the slots with their ids. Measured on build b11669:
//   - started without --slot-save-path, every slot action answers 501 with
//     {"error":{"code":501,"message":"This server does not support slots action. Start it
//     with `--slot-save-path`","type":"not_supported_error"}} (post_slots checks
//     params.slot_save_path before the action);
//   - an erase answers {"id_slot":0,"n_erased":27}, the tokens it dropped;
//   - a host-memory prompt cache (--cache-ram N, 8192 MiB by default) keeps prompts that
//     slots gave up, and an erase leaves it: a prompt sent again after every slot was erased
//     came back with all but one of its tokens cached. Neither /props nor /slots says whether
//     that cache is on, so the reset asks the server itself (hostCacheProbe).
const llamaSlotsHint = "llama.cpp erases its slots only when started with --slot-save-path"

// llamaSlot is one entry of GET /slots; only the id is read.
type llamaSlot struct {
	ID *int `json:"id"`
}

// resetLlamaCpp erases every slot of a llama.cpp server, then checks that no host-memory
// prompt cache kept what they held.
func resetLlamaCpp(ctx context.Context, c *http.Client, root string) ResetResult {
	res := ResetResult{Engine: LlamaCpp, Supported: true}
	ids, why := llamaSlotIDs(ctx, c, root)
	if why != "" {
		res.Why = why
		return res
	}
	res.Endpoint = fmt.Sprintf("POST %s/slots/{%s}?action=erase", root, joinInts(ids))
	if status, why := eraseLlamaSlots(ctx, c, root, ids); why != "" {
		res.Status, res.Why = status, why
		return res
	}
	res.Status = http.StatusOK
	kept, why := hostCacheProbe(ctx, c, root, ids)
	switch {
	case why != "":
		res.Why = "the slots were erased, but whether a host-memory prompt cache (--cache-ram) kept their prompts cannot be known: " + why
	case kept > 0:
		res.Why = fmt.Sprintf("the slots were erased, but the server's host-memory prompt cache kept prompts through the erase "+
			"(a probe prompt came back with %d tokens cached); start it with --cache-ram 0", kept)
	default:
		res.Reset = true
	}
	return res
}

// llamaSlotIDs reads the slot ids from GET /slots, or says why it could not.
func llamaSlotIDs(ctx context.Context, c *http.Client, root string) ([]int, string) {
	r := send(ctx, c, http.MethodGet, root+"/slots", nil, smallBody)
	switch {
	case r.status == 0:
		return nil, "no answer from GET " + root + "/slots: " + r.describe()
	case !r.ok():
		return nil, fmt.Sprintf("GET %s/slots: HTTP %d: %s", root, r.status, snippet(r.body))
	}
	var slots []llamaSlot
	if err := json.Unmarshal(r.body, &slots); err != nil {
		return nil, fmt.Sprintf("GET %s/slots: not a list of slots: %v", root, err)
	}
	ids := make([]int, 0, len(slots))
	for i, s := range slots {
		if s.ID == nil {
			return nil, fmt.Sprintf("GET %s/slots: slot %d has no id", root, i)
		}
		ids = append(ids, *s.ID)
	}
	if len(ids) == 0 {
		return nil, "GET " + root + "/slots listed no slots"
	}
	return ids, ""
}

// eraseLlamaSlots erases each slot, stopping at the first that fails: its status and why.
func eraseLlamaSlots(ctx context.Context, c *http.Client, root string, ids []int) (int, string) {
	for _, id := range ids {
		url := fmt.Sprintf("%s/slots/%d?action=erase", root, id)
		r := send(ctx, c, http.MethodPost, url, nil, smallBody)
		switch {
		case r.status == 0:
			return 0, fmt.Sprintf("no answer from POST %s: %s", url, r.describe())
		case r.status == http.StatusNotImplemented:
			return r.status, fmt.Sprintf("%s (HTTP 501: %s)", llamaSlotsHint, snippet(r.body))
		case !r.ok():
			return r.status, fmt.Sprintf("POST %s: HTTP %d: %s", url, r.status, snippet(r.body))
		}
	}
	return 0, ""
}

// hostCacheProbe asks the server whether a prompt outlives an erase: a probe prompt goes to
// slot 0, a second one takes its place (a host-memory prompt cache saves the first as the
// slot moves on), every slot is erased, and the first prompt is sent again. Without such a
// cache nothing of it can be cached any more; with one, all but a token comes back. The
// slots are erased again afterwards, so the probe leaves no prompt in them. It returns the
// tokens the repeat found cached beyond the one a fresh prompt may share (BOS), or why the
// probe could not run.
func hostCacheProbe(ctx context.Context, c *http.Client, root string, ids []int) (int, string) {
	nonce := fmt.Sprintf("%x", time.Now().UnixNano())
	first := "replay reset probe " + nonce + ": does a prompt outlive a slot erase? " + strings.Repeat("probe ", 16)
	second := "replay reset probe " + nonce + ", second prompt, sent so the first leaves its slot. " + strings.Repeat("other ", 16)
	for _, p := range []struct {
		prompt string
		slot   int
	}{{first, ids[0]}, {second, ids[0]}} {
		if _, why := llamaComplete(ctx, c, root, p.prompt, p.slot); why != "" {
			return 0, why
		}
	}
	if _, why := eraseLlamaSlots(ctx, c, root, ids); why != "" {
		return 0, why
	}
	cached, why := llamaComplete(ctx, c, root, first, -1)
	if why != "" {
		return 0, why
	}
	if _, why := eraseLlamaSlots(ctx, c, root, ids); why != "" {
		return 0, why
	}
	return max(cached-1, 0), ""
}

// llamaComplete sends one one-token completion (to slot, unless it is negative) and returns
// usage's cached prompt tokens, which llama.cpp's server fills in
// (prompt_tokens_details.cached_tokens).
func llamaComplete(ctx context.Context, c *http.Client, root, prompt string, slot int) (int, string) {
	body := map[string]any{"prompt": prompt, "max_tokens": 1, "temperature": 0}
	if slot >= 0 {
		body["id_slot"] = slot
	}
	b, _ := json.Marshal(body)
	url := apiRoot(root) + "/completions"
	r := send(ctx, c, http.MethodPost, url, b, smallBody)
	if !r.ok() {
		return 0, fmt.Sprintf("probe POST %s: %s: %s", url, r.describe(), snippet(r.body))
	}
	var out struct {
		Usage *struct {
			Details *struct {
				Cached *int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(r.body, &out); err != nil {
		return 0, fmt.Sprintf("probe POST %s: %v", url, err)
	}
	if out.Usage == nil || out.Usage.Details == nil || out.Usage.Details.Cached == nil {
		return 0, fmt.Sprintf("probe POST %s: the answer has no usage.prompt_tokens_details.cached_tokens", url)
	}
	return *out.Usage.Details.Cached, ""
}

// joinInts is ids as "0,1,2".
func joinInts(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ",")
}
