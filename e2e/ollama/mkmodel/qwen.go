package main

// qwen.go writes a random-weight Qwen2-VL text model (llama.cpp's qwen2vl architecture: Qwen2
// with multimodal rotary positions, which the qwen2vl_merger projector's images need) with a
// small byte-level BPE vocabulary of its own, and the Hugging Face tokenizer folder of that
// same vocabulary (tokenizer.json, tokenizer_config.json with a ChatML chat template), so that
// replay and llama-server count every text token alike. Qwen's real 151k vocabulary is not
// in this repository; this one has Qwen2's pre-tokenizer (the same split pattern,
// tokenizer.ggml.pre "qwen2" in the GGUF), its 256 byte symbols, merges that make single
// tokens of the words of Mistral's vocabulary (read from --tokenizer), and Qwen2-VL's special
// tokens: <|endoftext|>, <|im_start|>, <|im_end|>, <|vision_start|>, <|vision_end|>,
// <|image_pad|> (the vision wrappers are what llama.cpp's mtmd puts around a Qwen2-VL image).
//
// The architecture's keys and tensors are those llama.cpp's qwen2vl architecture loads
// (Qwen2's layers with q/k/v biases, and qwen2vl.rope.dimension_sections: 4 sections of the
// rotary half-dimensions, time, height, width, extra), as its converter writes them for
// Qwen2-VL; they were not read from source here but checked against the build e2e/llamacpp
// runs (Debian's llama.cpp 0.7.0, upstream b11669): it loads the file and serves it with the
// qwen2vl_merger projector (e2e/llamacpp/slices/97-vision.sh), and "%s.rope.dimension_sections"
// is a string of its libllama.so.0.7.0. As in the Llama model (main.go), residual
// dimension 0 carries a constant no layer writes to, and the output rows of the special
// tokens and of the bytes that are not printable ASCII read only it, negatively: an answer is
// never a special token nor an incomplete UTF-8 sequence (which a server holds back, leaving
// a short answer with no content), and runs to max_tokens.

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ollama/ollama/fs/ggml"
)

// qwenSpecials are the added tokens, in id order after the BPE vocabulary.
var qwenSpecials = []string{"<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>"}

// qwenPattern is Qwen2's pre-tokenizer split (its tokenizer.json's Split regex).
const qwenPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// qwenTemplate is a ChatML template as Qwen2-VL's, for string content: a default system turn,
// each message between <|im_start|>ROLE\n and <|im_end|>\n. Image parts are rendered by the
// server (llama.cpp puts its media marker in the text, mtmd wraps the image in
// <|vision_start|>...<|vision_end|>) and counted by replay's rule, wrappers included.
const qwenTemplate = "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"

// byteSymbols is GPT-2's byte-to-unicode map: the printable bytes as themselves, the others
// shifted past 255, in byte order.
func byteSymbols() [256]string {
	var s [256]string
	n := 0
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			s[b] = string(rune(b))
		} else {
			s[b] = string(rune(256 + n))
			n++
		}
	}
	return s
}

// qwenVocab builds the vocabulary: the byte symbols (ids 0-255), then one token per merge, then
// the specials. words are ASCII lowercase words; each becomes one token with a leading space
// ("Ġword") by a chain of merges "Ġ"+"w", "Ġw"+"o", ..., and at the start of a text ("word")
// by "w"+"o", "wo"+"r", ...
func qwenVocab(words []string) (tokens []string, merges []string) {
	sym := byteSymbols()
	tokens = append(tokens, sym[:]...)
	seen := map[string]bool{}
	for _, t := range tokens {
		seen[t] = true
	}
	chain := func(cur, w string) {
		for _, c := range w {
			next := cur + string(c)
			if !seen[next] {
				seen[next] = true
				tokens = append(tokens, next)
				merges = append(merges, cur+" "+string(c))
			}
			cur = next
		}
	}
	// The spaced words' merges all rank before the bare words', so a bare word's pair never
	// cuts into a spaced word's chain; a bare word whose chain another bare word's pair cuts
	// into stays more than one token (replay's word pool leaves such words out).
	for _, w := range words {
		chain(sym[' '], w)
	}
	for _, w := range words {
		chain(w[:1], w[1:])
	}
	return append(tokens, qwenSpecials...), merges
}

// mistralWords are the first n lowercase ASCII words of a SentencePiece tokenizer.json's
// vocabulary ("▁word" pieces), by id.
func mistralWords(path string, n int) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var tj struct {
		Model struct {
			Vocab map[string]int `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(raw, &tj); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	type word struct {
		w  string
		id int
	}
	var ws []word
	for tok, id := range tj.Model.Vocab {
		w, ok := strings.CutPrefix(tok, "▁")
		if !ok || len(w) < 2 || strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") != "" {
			continue
		}
		ws = append(ws, word{w, id})
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i].id < ws[j].id })
	out := make([]string, 0, n)
	for _, w := range ws[:min(n, len(ws))] {
		out = append(out, w.w)
	}
	return out, nil
}

// writeQwen2VL writes the text model to out and the tokenizer folder beside it.
func writeQwen2VL(tokPath, out string, p preset, seed uint64, ctxLen uint32) error {
	words, err := mistralWords(tokPath, 2000)
	if err != nil {
		return err
	}
	tokens, merges := qwenVocab(words)
	n := len(tokens)
	special := func(i int) bool { return i >= n-len(qwenSpecials) }
	types := make([]int32, n)
	for i := range types {
		types[i] = tokenNormal
		if special(i) {
			types[i] = tokenControl
		}
	}
	id := func(s string) uint32 { return uint32(n - len(qwenSpecials) + indexOf(qwenSpecials, s)) }
	headDim := p.dim / p.heads
	// The rotary sections (in pairs of dimensions): a quarter for time, the rest shared by
	// height and width, as Qwen2-VL's 16/24/24 of 64 pairs.
	half := headDim / 2
	sections := []int32{int32(half / 4), int32(half * 3 / 8), int32(half - half/4 - half*3/8), 0}
	kv := ggml.KV{
		"general.architecture":                     "qwen2vl",
		"general.name":                             fmt.Sprintf("replay-random-qwen2vl-d%d-l%d", p.dim, p.layers),
		"general.file_type":                        uint32(1),
		"qwen2vl.vocab_size":                       uint32(n),
		"qwen2vl.context_length":                   ctxLen,
		"qwen2vl.embedding_length":                 uint32(p.dim),
		"qwen2vl.block_count":                      uint32(p.layers),
		"qwen2vl.feed_forward_length":              uint32(p.ffn),
		"qwen2vl.attention.head_count":             uint32(p.heads),
		"qwen2vl.attention.head_count_kv":          uint32(p.kvHeads),
		"qwen2vl.attention.layer_norm_rms_epsilon": float32(1e-6),
		"qwen2vl.rope.freq_base":                   float32(1e6),
		"qwen2vl.rope.dimension_sections":          sections,
		"tokenizer.ggml.model":                     "gpt2",
		"tokenizer.ggml.pre":                       "qwen2",
		"tokenizer.ggml.tokens":                    tokens,
		"tokenizer.ggml.token_type":                types,
		"tokenizer.ggml.merges":                    merges,
		"tokenizer.ggml.eos_token_id":              id("<|im_end|>"),
		"tokenizer.ggml.padding_token_id":          id("<|endoftext|>"),
		"tokenizer.ggml.bos_token_id":              id("<|endoftext|>"),
		"tokenizer.ggml.add_bos_token":             false,
		"tokenizer.chat_template":                  qwenTemplate,
	}

	d := uint64(p.dim)
	std := float32(1 / math.Sqrt(float64(p.dim)))
	w := &weights{seed: seed, prefix: "qwen2vl/"}
	w.carrierEmbeddings(d, n)
	w.blocks(p, true)
	sym := byteSymbols()
	printable := map[string]bool{}
	for b := ' '; b <= '~'; b++ {
		printable[sym[b]] = true
	}
	w.add("output.weight", []uint64{d, uint64(n)}, func(r *rand.Rand, v []float32) {
		normal(std)(r, v)
		for t := 0; t < n; t++ {
			row := v[uint64(t)*d : uint64(t+1)*d]
			row[0] = 0
			if special(t) || (t < 256 && !printable[tokens[t]]) {
				clear(row)
				row[0] = eosWeight
			}
		}
	})

	if err := w.write(out, kv); err != nil {
		return err
	}
	return writeQwenTokenizer(filepath.Dir(out), tokens, merges)
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	panic("no " + v)
}

// writeQwenTokenizer writes tokenizer.json and tokenizer_config.json of the vocabulary, in the
// shape of Qwen2's own files.
func writeQwenTokenizer(dir string, tokens, merges []string) error {
	nBPE := len(tokens) - len(qwenSpecials)
	vocab := make(map[string]int, nBPE)
	for i, t := range tokens[:nBPE] {
		vocab[t] = i
	}
	type added struct {
		ID         int    `json:"id"`
		Content    string `json:"content"`
		SingleWord bool   `json:"single_word"`
		LStrip     bool   `json:"lstrip"`
		RStrip     bool   `json:"rstrip"`
		Normalized bool   `json:"normalized"`
		Special    bool   `json:"special"`
	}
	var adds []added
	decoder := map[string]any{}
	for i, s := range qwenSpecials {
		a := added{ID: nBPE + i, Content: s, Special: true}
		adds = append(adds, a)
		decoder[fmt.Sprint(a.ID)] = map[string]any{"content": s, "lstrip": false, "normalized": false, "rstrip": false, "single_word": false, "special": true}
	}
	tj := map[string]any{
		"version":      "1.0",
		"truncation":   nil,
		"padding":      nil,
		"added_tokens": adds,
		"normalizer":   map[string]any{"type": "NFC"},
		"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]string{"Regex": qwenPattern}, "behavior": "Isolated", "invert": false},
			map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false},
		}},
		"post_processor": map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false},
		"decoder":        map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false},
		"model": map[string]any{"type": "BPE", "dropout": nil, "unk_token": nil, "continuing_subword_prefix": "",
			"end_of_word_suffix": "", "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
			"vocab": vocab, "merges": merges},
	}
	cfg := map[string]any{
		"add_bos_token":                false,
		"add_prefix_space":             false,
		"added_tokens_decoder":         decoder,
		"bos_token":                    nil,
		"eos_token":                    "<|im_end|>",
		"pad_token":                    "<|endoftext|>",
		"chat_template":                qwenTemplate,
		"model_max_length":             32768,
		"clean_up_tokenization_spaces": false,
		"errors":                       "replace",
		"split_special_tokens":         false,
		"tokenizer_class":              "Qwen2Tokenizer",
		"unk_token":                    nil,
	}
	return writeJSONFiles(dir, map[string]any{"tokenizer.json": tj, "tokenizer_config.json": cfg})
}
