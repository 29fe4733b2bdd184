package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"strconv"
	"strings"
)

// How each engine is told which LoRA adapter serves one request, from its request schema:
//   - vLLM: an adapter loaded with --lora-modules NAME=PATH is served as a model of its own, so
//     a request names the adapter as its "model" (docs "LoRA Adapters", serving with
//     --lora-modules); the simulator, which speaks vLLM's API, does the same. Every engine not
//     named below is sent the adapter this way too, the one convention shared by most
//     OpenAI-compatible servers that serve adapters at all.
//   - SGLang: "model" is the base, and "lora_path" names the adapter (one of --lora-paths' names)
//     at the top level of its OpenAI requests: ChatCompletionRequest's and CompletionRequest's
//     "Extra parameters for SRT backend only" (python/sglang/srt/entrypoints/openai/protocol.py
//     at commit 004c82e07d876f6e4a0ad6e15325706b0f478f1a: lora_path: Optional[Union[List[Optional[str]], Optional[str]]]).
//   - llama.cpp's llama-server: "model" is the base, and "lora" is a list of {id, scale} for
//     this request, id being an adapter's place in GET /lora-adapters, the adapters loaded with
//     --lora at start ([{"id": 0, "path": "a.gguf", "scale": 1.0}, ...]); an adapter the
//     request leaves out has scale 0 for it, and requests of different adapters are not
//     batched together (tools/server/README.md at commit 00dc8057ab28c9cb4c79a6dd6dfce07fe779f63b,
//     POST /completion option lora). Build b11669, the one e2e/llamacpp runs, lists its
//     adapters at GET /lora-adapters and reads the field from the OpenAI-compatible chat and
//     completions bodies too (e2e/llamacpp/slices/96-lora.sh measures both).

// Adapter fields, AdapterField's values.
const (
	AdapterLoraPath = "lora_path" // SGLang: the adapter's name
	AdapterLoraIDs  = "lora"      // llama.cpp: [{"id": N, "scale": 1.0}]
)

// AdapterField is the request field e takes a request's LoRA adapter in, beside the base model
// as "model": SGLang's lora_path, llama.cpp's lora; "" for vLLM and every other engine, which
// are sent the adapter's name as the model.
func (e Engine) AdapterField() string {
	switch e {
	case SGLang:
		return AdapterLoraPath
	case LlamaCpp:
		return AdapterLoraIDs
	}
	return ""
}

// LoraAdapter is one adapter llama-server lists at GET /lora-adapters: its id (what a
// request's lora list names), the file it was loaded from and its global scale.
type LoraAdapter struct {
	ID    int     `json:"id"`
	Path  string  `json:"path"`
	Scale float64 `json:"scale"`
}

// Name is the adapter's file name without its extension ("/models/a.gguf" is "a"), the
// name a --model-map adapter is matched against.
func (a LoraAdapter) Name() string {
	base := path.Base(strings.ReplaceAll(a.Path, `\`, "/"))
	return strings.TrimSuffix(base, path.Ext(base))
}

// LoraAdapters asks llama-server which LoRA adapters it loaded (GET /lora-adapters under the
// server root of baseURL, the API root), bounded by the probes' timeout; c carries the run's
// TLS settings and API key.
func LoraAdapters(ctx context.Context, c *http.Client, baseURL string) ([]LoraAdapter, error) {
	root, err := ServerRoot(baseURL)
	if err != nil {
		return nil, err
	}
	u := root + "/lora-adapters"
	r := get(ctx, clientOr(c), u, smallBody)
	if !r.ok() {
		return nil, fmt.Errorf("GET %s: %s %s", u, r.describe(), snippet(r.body))
	}
	var list []LoraAdapter
	if err := json.Unmarshal(r.body, &list); err != nil {
		return nil, fmt.Errorf("GET %s: not a list of adapters (%v): %s", u, err, snippet(r.body))
	}
	return list, nil
}

// LoraID is the id of the adapter named name among list: the one whose file name without
// its extension is name, else, when name is a number, the adapter of that id.
func LoraID(list []LoraAdapter, name string) (int, bool) {
	for _, a := range list {
		if a.Name() == name {
			return a.ID, true
		}
	}
	if n, err := strconv.Atoi(strings.TrimSpace(name)); err == nil {
		for _, a := range list {
			if a.ID == n {
				return n, true
			}
		}
	}
	return 0, false
}

// LoraList is list for a message: "0 (/models/a.gguf), 1 (/models/b.gguf)", or "none".
func LoraList(list []LoraAdapter) string {
	if len(list) == 0 {
		return "none"
	}
	parts := make([]string, len(list))
	for i, a := range list {
		parts[i] = fmt.Sprintf("%d (%s)", a.ID, a.Path)
	}
	return strings.Join(parts, ", ")
}
