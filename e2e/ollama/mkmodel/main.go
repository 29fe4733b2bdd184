// Command mkmodel writes a random-weight Llama-architecture GGUF model that carries a real
// SentencePiece-BPE tokenizer (Mistral-7B's 32k, from a Hugging Face tokenizer.json), so a real
// engine (Ollama / llama.cpp) can serve it on a CPU with real prefill, decode, batching and
// prefix caching. No weights are downloaded: every weight is drawn from a seeded generator.
//
// By default the end-of-sequence token is made unreachable by construction, so every generation
// runs to max_tokens: residual dimension 0 carries a large constant that no layer writes to, and
// the output row of </s> reads only that dimension with a large negative weight, so its logit is
// always far below every other token's. With --eos reachable the same row reads that dimension
// with a positive weight, which puts the </s> logit near the top of the others' range: a greedy
// answer then ends early at some step, so an engine that forces lengths is seen forcing, and one
// that does not is seen stopping (e2e/llamacpp measures both).
//
// --chat-template writes tokenizer.chat_template, so a server that renders chat from the GGUF's
// template (llama.cpp's llama-server, Jinja on by default) builds the prompt replay counts.
//
// --arch qwen2vl writes a Qwen2-VL text model instead, with a byte-level BPE vocabulary of its
// own and its Hugging Face tokenizer folder beside --out (qwen.go); --mmproj TYPE writes a
// vision projector for llama-server --mmproj (mlp: LLaVA-1.5's, qwen2vl_merger: Qwen2-VL's)
// and that family's config.json and preprocessor_config.json beside it (mmproj.go).
// e2e/llamacpp/setup.sh makes one folder of each for its vision slice. --lora writes a
// random-weight LoRA adapter for the llama model of a preset instead (lora.go), for
// llama-server --lora.
//
// The file is written with Ollama's own GGUF writer (fs/ggml.WriteGGUF); matrices are F16 and
// norms F32, and `ollama create --quantize q8_0` turns it into the ~60 MB Q8_0 model.
package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/ollama/ollama/fs/ggml"
	"github.com/x448/float16"
)

// preset is one model shape.
type preset struct {
	dim, layers, heads, kvHeads, ffn int
}

var presets = map[string]preset{
	// small: fast enough on one CPU thread for correctness runs (~60 MB at Q8_0).
	"small": {dim: 512, layers: 8, heads: 8, kvHeads: 8, ffn: 1408},
	// large: a slower server for benchmarks that need queueing to show (~200 MB at Q8_0).
	"large": {dim: 1024, layers: 12, heads: 16, kvHeads: 16, ffn: 2816},
}

// GGUF token types, as llama.cpp reads tokenizer.ggml.token_type.
const (
	tokenNormal  = 1
	tokenUnknown = 2
	tokenControl = 3
	tokenByte    = 6
)

const (
	// carrier is the constant held by residual dimension 0 in every token embedding.
	carrier = 16
	// eosWeight is the output weight of </s> on dimension 0; with the carrier it puts the
	// </s> logit hundreds below the others.
	eosWeight = -100
	// eosReachableWeight is that weight for --eos reachable, measured against llama-server
	// (temperature 0, the small preset at Q8_0, 12 prompts capped at 128 tokens): 0.6 ended
	// none early, 0.75 ended nearly all within 2 tokens, 0.68 ended 10 of 12 after 4-28. The
	// </s> logit is a near-constant against the others' varying maximum, hence the narrow band.
	// e2e/llamacpp/slices/10-lengths.sh prints how many of its answers end early.
	eosReachableWeight = 0.68
)

func main() {
	tokPath := flag.String("tokenizer", "", "Hugging Face tokenizer.json of a SentencePiece-BPE (Llama/Mistral) tokenizer")
	out := flag.String("out", "", "GGUF file to write")
	name := flag.String("preset", "small", "model shape: small (d512 x 8 layers) or large (d1024 x 12 layers)")
	seed := flag.Uint64("seed", 1, "weight seed: the same seed writes the same file")
	ctxLen := flag.Uint("context", 32768, "context length written into the model")
	eos := flag.String("eos", "unreachable", "end-of-sequence token: unreachable (every answer runs to max_tokens) or reachable (answers end early unless forced)")
	eosW := flag.Float64("eos-weight", 0, "with --eos reachable: the </s> output weight on the carrier dimension instead of the tuned one (for tuning)")
	arch := flag.String("arch", "llama", "text model architecture: llama (with --tokenizer's vocabulary) or qwen2vl (a byte-level BPE vocabulary of its own, from --tokenizer's words, written as a tokenizer folder beside --out; see qwen.go)")
	mmproj := flag.String("mmproj", "", "write a random-weight vision projector of this type (mlp or qwen2vl_merger) to --out instead of a text model, its embeddings the preset's width (see mmproj.go)")
	lora := flag.Bool("lora", false, "write a random-weight LoRA adapter GGUF for the preset's llama model to --out instead of a model (--seed picks its weights; see lora.go)")
	tmpl := flag.String("chat-template", "", "write tokenizer.chat_template: \"tokenizer\" for the chat_template of the tokenizer_config.json beside --tokenizer, or a Jinja file")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: mkmodel --tokenizer tokenizer.json --out model.gguf [--preset small|large]\n"+
			"       mkmodel --mmproj mlp|qwen2vl_merger --out mmproj.gguf [--preset small|large]\n"+
			"       mkmodel --lora --seed N --out adapter.gguf [--preset small|large]\n\n"+
			"Example:\n  go run ./mkmodel --tokenizer ../../samples/tokenizer/mistral/tokenizer.json --out /tmp/m.gguf\n\nFlags:\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *lora && *out != "" {
		p, ok := presets[*name]
		if !ok {
			fmt.Fprintf(os.Stderr, "mkmodel: unknown preset %q (small or large)\n", *name)
			os.Exit(2)
		}
		if err := writeLoRA(*out, p, *seed); err != nil {
			fmt.Fprintln(os.Stderr, "mkmodel:", err)
			os.Exit(1)
		}
		return
	}
	if *mmproj != "" && *out != "" {
		p, ok := presets[*name]
		if !ok {
			fmt.Fprintf(os.Stderr, "mkmodel: unknown preset %q (small or large)\n", *name)
			os.Exit(2)
		}
		if err := writeMMProj(*out, *mmproj, p.dim, *seed); err != nil {
			fmt.Fprintln(os.Stderr, "mkmodel:", err)
			os.Exit(1)
		}
		return
	}
	if *tokPath == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	p, ok := presets[*name]
	if !ok {
		fmt.Fprintf(os.Stderr, "mkmodel: unknown preset %q (small or large)\n", *name)
		os.Exit(2)
	}
	if *arch == "qwen2vl" {
		if err := writeQwen2VL(*tokPath, *out, p, *seed, uint32(*ctxLen)); err != nil {
			fmt.Fprintln(os.Stderr, "mkmodel:", err)
			os.Exit(1)
		}
		return
	} else if *arch != "llama" {
		fmt.Fprintf(os.Stderr, "mkmodel: --arch %q: llama or qwen2vl\n", *arch)
		os.Exit(2)
	}
	o := options{eosWeight: eosWeight}
	switch *eos {
	case "unreachable":
		if *eosW != 0 {
			fmt.Fprintln(os.Stderr, "mkmodel: --eos-weight needs --eos reachable")
			os.Exit(2)
		}
	case "reachable":
		o.eosWeight = eosReachableWeight
		if *eosW != 0 {
			o.eosWeight = float32(*eosW)
		}
	default:
		fmt.Fprintf(os.Stderr, "mkmodel: --eos %q: unreachable or reachable\n", *eos)
		os.Exit(2)
	}
	if *tmpl != "" {
		t, err := readChatTemplate(*tmpl, *tokPath)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mkmodel:", err)
			os.Exit(1)
		}
		o.chatTemplate = t
	}
	if err := run(*tokPath, *out, p, *seed, uint32(*ctxLen), o); err != nil {
		fmt.Fprintln(os.Stderr, "mkmodel:", err)
		os.Exit(1)
	}
}

// options are the model's optional behaviours; the zero chatTemplate writes none.
type options struct {
	eosWeight    float32
	chatTemplate string
}

func run(tokPath, out string, p preset, seed uint64, ctxLen uint32, o options) error {
	voc, err := readVocab(tokPath)
	if err != nil {
		return err
	}
	if voc.eos < 0 || voc.bos < 0 {
		return fmt.Errorf("%s: no <s> or </s> token in the vocabulary", tokPath)
	}

	headDim := p.dim / p.heads
	kv := ggml.KV{
		"general.architecture":                   "llama",
		"general.name":                           fmt.Sprintf("replay-random-d%d-l%d", p.dim, p.layers),
		"general.file_type":                      uint32(1), // mostly F16
		"general.quantization_version":           uint32(2),
		"llama.vocab_size":                       uint32(len(voc.tokens)),
		"llama.context_length":                   ctxLen,
		"llama.embedding_length":                 uint32(p.dim),
		"llama.block_count":                      uint32(p.layers),
		"llama.feed_forward_length":              uint32(p.ffn),
		"llama.attention.head_count":             uint32(p.heads),
		"llama.attention.head_count_kv":          uint32(p.kvHeads),
		"llama.attention.layer_norm_rms_epsilon": float32(1e-5),
		"llama.rope.freq_base":                   float32(10000),
		"llama.rope.dimension_count":             uint32(headDim),
		"tokenizer.ggml.model":                   "llama",
		"tokenizer.ggml.tokens":                  voc.tokens,
		"tokenizer.ggml.scores":                  voc.scores,
		"tokenizer.ggml.token_type":              voc.types,
		"tokenizer.ggml.bos_token_id":            uint32(voc.bos),
		"tokenizer.ggml.eos_token_id":            uint32(voc.eos),
		"tokenizer.ggml.add_bos_token":           voc.addBOS,
		"tokenizer.ggml.add_eos_token":           false,
	}
	if voc.unk >= 0 {
		kv["tokenizer.ggml.unknown_token_id"] = uint32(voc.unk)
	}
	if o.chatTemplate != "" {
		kv["tokenizer.chat_template"] = o.chatTemplate
	}

	n := len(voc.tokens)
	d := uint64(p.dim)
	std := float32(1 / math.Sqrt(float64(p.dim)))
	w := &weights{seed: seed}
	w.carrierEmbeddings(d, n)
	w.blocks(p, false)
	eos := uint64(voc.eos)
	w.add("output.weight", []uint64{d, uint64(n)}, func(r *rand.Rand, v []float32) {
		normal(std)(r, v)
		for t := uint64(0); t < uint64(n); t++ {
			v[t*d] = 0 // no token reads the carrier ...
		}
		clear(v[eos*d : (eos+1)*d])
		v[eos*d] = o.eosWeight // ... except </s>, which reads only it (negatively unless --eos reachable).
	})

	return w.write(out, kv)
}

// kindOf stores vectors (norms) as F32, matrices as F16.
func kindOf(shape []uint64) uint32 {
	if len(shape) == 1 {
		return uint32(ggml.TensorTypeF32)
	}
	return uint32(ggml.TensorTypeF16)
}

// lazy draws a tensor's values only when WriteGGUF asks for its bytes.
type lazy struct {
	shape []uint64
	seed  uint64
	fill  func(r *rand.Rand, w []float32)
}

func (l *lazy) WriteTo(w io.Writer) (int64, error) {
	n := uint64(1)
	for _, s := range l.shape {
		n *= s
	}
	vals := make([]float32, n)
	l.fill(rand.New(rand.NewPCG(l.seed, 0x5eed)), vals)
	var buf []byte
	if kindOf(l.shape) == uint32(ggml.TensorTypeF32) {
		buf = make([]byte, 4*n)
		for i, v := range vals {
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
		}
	} else {
		buf = make([]byte, 2*n)
		for i, v := range vals {
			binary.LittleEndian.PutUint16(buf[2*i:], float16.Fromfloat32(v).Bits())
		}
	}
	k, err := w.Write(buf)
	return int64(k), err
}

// hash is FNV-1a, to give each tensor name its own seed.
func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// vocab is the GGUF view of a SentencePiece-BPE tokenizer.
type vocab struct {
	tokens        []string
	scores        []float32
	types         []int32
	bos, eos, unk int
	addBOS        bool
}

var byteToken = regexp.MustCompile(`^<0x[0-9A-Fa-f]{2}>$`)

// readVocab turns a Hugging Face tokenizer.json (model.type BPE with byte_fallback, as
// converted from a SentencePiece model) into llama.cpp's SentencePiece vocabulary. llama.cpp
// merges the adjacent pair whose result has the highest score; the Hugging Face merges of such
// a tokenizer are ordered by the result's id, so score = -id gives the same merge order.
func readVocab(path string) (*vocab, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var tj struct {
		AddedTokens []struct {
			ID      int    `json:"id"`
			Content string `json:"content"`
			Special bool   `json:"special"`
		} `json:"added_tokens"`
		Model struct {
			Type         string         `json:"type"`
			ByteFallback bool           `json:"byte_fallback"`
			Vocab        map[string]int `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(raw, &tj); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if tj.Model.Type != "BPE" || !tj.Model.ByteFallback {
		return nil, fmt.Errorf("%s: model.type %q byte_fallback %v: want a SentencePiece-style BPE with byte_fallback", path, tj.Model.Type, tj.Model.ByteFallback)
	}
	n := len(tj.Model.Vocab)
	for _, a := range tj.AddedTokens {
		n = max(n, a.ID+1)
	}
	if n == 0 {
		return nil, errors.New(path + ": empty vocabulary")
	}
	v := &vocab{
		tokens: make([]string, n),
		scores: make([]float32, n),
		types:  make([]int32, n),
		bos:    -1, eos: -1, unk: -1,
		addBOS: true,
	}
	seen := make([]bool, n)
	for tok, id := range tj.Model.Vocab {
		if id < 0 || id >= n {
			return nil, fmt.Errorf("%s: model.vocab[%q]: id %d out of range", path, tok, id)
		}
		v.tokens[id], seen[id] = tok, true
		v.scores[id] = -float32(id)
		v.types[id] = tokenNormal
		if byteToken.MatchString(tok) {
			v.types[id] = tokenByte
			v.scores[id] = 0
		}
	}
	for _, a := range tj.AddedTokens {
		if a.ID < 0 {
			return nil, fmt.Errorf("%s: added_tokens id %d out of range", path, a.ID)
		}
		v.tokens[a.ID], seen[a.ID] = a.Content, true
		v.scores[a.ID] = 0
		v.types[a.ID] = tokenControl
		switch a.Content {
		case "<unk>":
			v.types[a.ID], v.unk = tokenUnknown, a.ID
		case "<s>":
			v.bos = a.ID
		case "</s>":
			v.eos = a.ID
		}
	}
	for id, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("%s: no token with id %s", path, strconv.Itoa(id))
		}
	}
	return v, nil
}

// readChatTemplate is the Jinja chat template from src: "tokenizer" reads the chat_template of
// the tokenizer_config.json beside tokPath (an error if it has none), anything else is a file.
func readChatTemplate(src, tokPath string) (string, error) {
	if src != "tokenizer" {
		raw, err := os.ReadFile(src)
		if err != nil {
			return "", fmt.Errorf("--chat-template: %w", err)
		}
		if len(raw) == 0 {
			return "", fmt.Errorf("--chat-template %s: empty file", src)
		}
		return string(raw), nil
	}
	cfg := filepath.Join(filepath.Dir(tokPath), "tokenizer_config.json")
	raw, err := os.ReadFile(cfg)
	if err != nil {
		return "", fmt.Errorf("--chat-template tokenizer: %w", err)
	}
	var c struct {
		ChatTemplate json.RawMessage `json:"chat_template"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return "", fmt.Errorf("%s: %w", cfg, err)
	}
	var t string
	if len(c.ChatTemplate) == 0 || json.Unmarshal(c.ChatTemplate, &t) != nil || t == "" {
		return "", fmt.Errorf("%s: no chat_template string (a list of named templates, or none): pass the template as a file", cfg)
	}
	return t, nil
}
