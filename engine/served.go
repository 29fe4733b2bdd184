package engine

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
)

// Served is what an endpoint says it serves, from GET /v1/models: the HTTP status (0 when
// there was no answer, Err says why) and the models listed, each with the name of what it
// was loaded from where the engine says it. Listed is true when the answer was a model list
// with at least one model, so a model missing from it is a finding.
type Served struct {
	URL    string // the route asked
	Status int
	Err    error
	Body   string // the answer's start, for messages about a refusal
	Models []ServedModel
	Listed bool
}

// ServedModel is one entry of /v1/models: its id, and its root, the model path it was loaded
// from. vLLM writes root = the served model's model_path, the Hugging Face repository id or
// the folder it was given (vllm/entrypoints/openai/serving_models.py at commit
// 0f1457b0e1303e64ea1c1f3a3e6e0bf348348dc2, show_available_models: ModelCard(id=name,
// root=base_model.model_path)); OpenAI's and most others' have none.
type ServedModel struct {
	ID      string `json:"id"`
	Root    string `json:"root"`
	OwnedBy string `json:"owned_by"`
	// TokenizerSHA256 is the served tokenizer's content digest, where the endpoint lists one
	// (replay sim does, so that a run can tell by content whether it counts as the endpoint
	// does; no engine does).
	TokenizerSHA256 string `json:"tokenizer_sha256,omitempty"`
}

// ListModels asks GET /v1/models under baseURL (the API root, --endpoint) once, bounded by the
// probes' timeout; c carries the run's TLS settings and API key.
func ListModels(ctx context.Context, c *http.Client, baseURL string) Served {
	root, err := ServerRoot(baseURL)
	if err != nil {
		return Served{Err: err}
	}
	s := Served{URL: apiRoot(root) + "/models"}
	r := get(ctx, clientOr(c), s.URL, smallBody)
	s.Status, s.Err, s.Body = r.status, r.err, snippet(r.body)
	if !r.ok() {
		return s
	}
	var list struct {
		Data []ServedModel `json:"data"`
	}
	if json.Unmarshal(r.body, &list) == nil && len(list.Data) > 0 {
		s.Models, s.Listed = list.Data, true
	}
	return s
}

// Lists reports whether a request for model would reach a listed model: its id is listed, or
// Ollama's, which lists every model with its tag and takes a name without one as the default
// tag "latest" (types/model/name.go), or the server is a single-model llama-server (one model,
// owned_by "llamacpp"), which answers every request with the model it loaded whatever the
// request names (only its model router, with several models, reads the field), or TGI's, which
// lists its one model owned by its own id (router/src/server.rs, openai_get_model_info) and
// serves it under any name (its documentation's examples send "tgi").
func (s Served) Lists(model string) bool {
	for _, m := range s.Models {
		single := len(s.Models) == 1 && (m.OwnedBy == "llamacpp" || m.OwnedBy == m.ID)
		if m.ID == model || single || (!strings.Contains(model, ":") && m.ID == model+":latest") {
			return true
		}
	}
	return false
}

// IDs are the listed models' ids.
func (s Served) IDs() []string {
	out := make([]string, len(s.Models))
	for i, m := range s.Models {
		out[i] = m.ID
	}
	return out
}

// TokenizerName is a candidate for the tokenizer the endpoint's model was loaded with, and
// where it was read.
type TokenizerName struct {
	Name string
	From string // "the endpoint's /v1/models root", ...
}

// TokenizerNames lists, best first, the names the endpoint gives for model's tokenizer:
// /v1/models' root for it (vLLM), SGLang's tokenizer_path (asked only when no root was
// given), the model id itself, then the one model the endpoint lists when it lists one (TGI's id
// is the repository it loaded). Duplicates are dropped.
func TokenizerNames(ctx context.Context, c *http.Client, baseURL string, s Served, model string) []TokenizerName {
	var out []TokenizerName
	add := func(name, from string) {
		name = strings.TrimSpace(name)
		for _, n := range out {
			if n.Name == name {
				return
			}
		}
		if name != "" {
			out = append(out, TokenizerName{Name: name, From: from})
		}
	}
	for _, m := range s.Models {
		if m.ID == model {
			add(m.Root, "the endpoint's /v1/models root")
		}
	}
	if len(out) == 0 {
		if p, route := sglangTokenizerPath(ctx, c, baseURL); p != "" {
			add(p, "the endpoint's "+route+" tokenizer_path")
		}
	}
	add(model, "the model id")
	if len(s.Models) == 1 { // the one model it serves under any name (TGI lists its model id)
		add(s.Models[0].ID, "the endpoint's one /v1/models id")
	}
	return out
}

// sglangTokenizerPath is SGLang's tokenizer_path from /model_info (/get_model_info in older
// releases, a deprecated alias since): {"model_path", "tokenizer_path", "is_generation", ...}
// (python/sglang/srt/entrypoints/http_server.py at commit
// 9c0549b727fe222444495cea6b369697534d60f0, get_model_info). "" when neither answers one.
func sglangTokenizerPath(ctx context.Context, c *http.Client, baseURL string) (string, string) {
	root, err := ServerRoot(baseURL)
	if err != nil {
		return "", ""
	}
	for _, route := range []string{"/model_info", "/get_model_info"} {
		r := get(ctx, clientOr(c), root+route, smallBody)
		if !r.ok() {
			continue
		}
		var info struct {
			TokenizerPath string `json:"tokenizer_path"`
		}
		if json.Unmarshal(r.body, &info) == nil && info.TokenizerPath != "" {
			return info.TokenizerPath, route
		}
	}
	return "", ""
}
