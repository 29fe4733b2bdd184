package sim

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/llm-replay/replay/media"
)

// Model is one more model the simulator serves beside ModelName, counted by its own
// tokenizer, so a run whose requests go to several models (a --model-map) sees each prompt
// counted as the model it names would count it. An adapter served by name (vLLM's
// --lora-modules) is a Model too, counted by its base model's tokenizer.
type Model struct {
	// Name is the id requests name it by and /v1/models lists.
	Name string
	// Tokenizer and TokenizerSHA256 are listed as Config's are; Counter, ChatCounter,
	// Tokenize and Images count its prompts as Config's count ModelName's (nil Counter:
	// ApproxCounter).
	Tokenizer       string
	TokenizerSHA256 string
	Counter         Counter
	ChatCounter     func(messages []Message, tools json.RawMessage) (int, error)
	Tokenize        func(text string) []int
	Images          media.Rule
	Audio           media.AudioRule
	// Adapter: the name is a LoRA adapter's on the base model (vLLM's --lora-modules), which
	// holds one of Config.MaxLoras slots while its requests run and costs Config.AdapterLoad
	// to load into one (adapters.go).
	Adapter bool
}

// counting is the configuration a request naming model is counted with: the server's own
// for ModelName (or any name when no Models are served, as before), a Model's when it names
// one, and false for a name the server does not serve (vLLM answers 404).
func (s *Server) counting(model string) (*Config, bool) {
	if c, ok := s.byModel[model]; ok {
		return c, true
	}
	return &s.cfg, len(s.byModel) == 0 || model == "" || model == s.cfg.ModelName
}

// servedModels makes the per-model configurations: cfg with each Model's counting in place.
func servedModels(cfg Config) map[string]*Config {
	if len(cfg.Models) == 0 {
		return nil
	}
	out := make(map[string]*Config, len(cfg.Models))
	for _, m := range cfg.Models {
		c := cfg
		c.Models = nil
		c.ModelName, c.Tokenizer, c.TokenizerSHA256 = m.Name, m.Tokenizer, m.TokenizerSHA256
		c.Counter, c.Tokenize, c.Images, c.Audio = m.Counter, m.Tokenize, m.Images, m.Audio
		c.ChatCounter = m.ChatCounter
		c.adapter = m.Adapter
		if c.Counter == nil {
			c.Counter = ApproxCounter{}
		}
		out[m.Name] = &c
	}
	return out
}

// notServed answers a request naming a model the server does not serve, as vLLM does
// (404, NotFoundError, "The model `X` does not exist.").
func notServed(w http.ResponseWriter, e errorShape, model string) {
	e.write(w, http.StatusNotFound, "NotFoundError", "The model `"+model+"` does not exist.")
}

// appendModels appends /v1/models' data entries: ModelName's, then each Model's by name.
func (s *Server) appendModels(b []byte) []byte {
	b = appendModel(b, &s.cfg)
	names := make([]string, 0, len(s.byModel))
	for n := range s.byModel {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		b = append(b, ',')
		b = appendModel(b, s.byModel[n])
	}
	return b
}

// appendModel appends one model's entry as vLLM lists it: its id, the path it loaded as
// root, the tokenizer's digest and the context length.
func appendModel(b []byte, c *Config) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, c.ModelName)
	b = append(b, `,"object":"model","created":0,"owned_by":"replay-simulator","root":`...)
	root := c.ModelName
	if c.Tokenizer != "" {
		root = c.Tokenizer
	}
	b = appendJSONString(b, root)
	if c.TokenizerSHA256 != "" {
		b = append(b, `,"tokenizer_sha256":`...)
		b = appendJSONString(b, c.TokenizerSHA256)
	}
	b = append(b, `,"max_model_len":`...)
	b = strconv.AppendInt(b, int64(c.MaxModelLen), 10)
	return append(b, '}')
}
