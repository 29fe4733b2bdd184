package tokenizer

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tinyJSON is a small byte-level BPE tokenizer.json; the tests below swap one component out.
const tinyJSON = `{
  "version": "1.0",
  "added_tokens": [{"id": 9, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}],
  "normalizer": NORMALIZER,
  "pre_tokenizer": PRETOKENIZER,
  "post_processor": POSTPROCESSOR,
  "decoder": DECODER,
  "model": MODEL
}`

var tinyParts = map[string]string{
	"NORMALIZER":    `null`,
	"PRETOKENIZER":  `{"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": " ?\\p{L}+|\\s+"}, "behavior": "Isolated", "invert": false}, {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}]}`,
	"POSTPROCESSOR": `{"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}], "pair": [], "special_tokens": {"<s>": {"id": "<s>", "ids": [9], "tokens": ["<s>"]}}}`,
	"DECODER":       `{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}`,
	"MODEL":         `{"type": "BPE", "dropout": null, "unk_token": null, "fuse_unk": false, "byte_fallback": false, "vocab": {"a": 0, "b": 1, "Ġ": 2, "ab": 3, "Ġab": 4, "c": 5}, "merges": ["a b", "Ġ ab"]}`,
}

func tiny(t *testing.T, swap ...string) string {
	t.Helper()
	s := tinyJSON
	parts := map[string]string{}
	for k, v := range tinyParts {
		parts[k] = v
	}
	for i := 0; i+1 < len(swap); i += 2 {
		parts[swap[i]] = swap[i+1]
	}
	for k, v := range parts {
		s = strings.Replace(s, k, v, 1)
	}
	return s
}

func TestParseTiny(t *testing.T) {
	tk, err := Parse([]byte(tiny(t)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tk.Encode("ab ab<s>c", false), []int{3, 4, 9, 5}; !slices.Equal(got, want) {
		t.Fatalf("Encode = %v, want %v", got, want)
	}
	if got, want := tk.Encode("ab", true), []int{9, 3}; !slices.Equal(got, want) {
		t.Fatalf("Encode with special = %v, want %v", got, want)
	}
	if got := tk.Decode([]int{9, 3, 4}, true); got != "ab ab" {
		t.Fatalf("Decode = %q", got)
	}
	if tk.VocabSize() != 10 || !tk.IsSpecial(9) || tk.IsSpecial(3) {
		t.Fatalf("VocabSize %d, IsSpecial(9) %v", tk.VocabSize(), tk.IsSpecial(9))
	}
}

// TestParseErrors checks that a malformed or unsupported tokenizer.json is refused with an
// error naming the component.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		swap []string
		want string
	}{
		{[]string{"PRETOKENIZER", `{"type": "Sequence", "pretokenizers": [{"type": "ByteLevel"}, {"type": "Foo"}]}`},
			`pre_tokenizer.pretokenizers[1]: unsupported type "Foo"`},
		{[]string{"PRETOKENIZER", `{"type": "Split", "pattern": {"Regex": "(unclosed"}, "behavior": "Isolated"}`},
			`pre_tokenizer: regex "(unclosed"`},
		{[]string{"PRETOKENIZER", `{"type": "Split", "pattern": {"Regex": "a"}, "behavior": "Sideways"}`},
			`pre_tokenizer: unsupported behavior "Sideways"`},
		{[]string{"PRETOKENIZER", `{"type": "Sequence", "pretokenizers": [{"type": "ByteLevel"}, {"type": "Digits"}]}`},
			`pre_tokenizer.pretokenizers[0]: ByteLevel is only supported as the last pre-tokenizer`},
		{[]string{"NORMALIZER", `{"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "BertNormalizer"}]}`},
			`normalizer.normalizers[1]: unsupported type "BertNormalizer"`},
		{[]string{"NORMALIZER", `{"type": "Replace", "pattern": {"String": "x"}}`},
			`normalizer: Replace needs "pattern" and "content"`},
		{[]string{"DECODER", `{"type": "Sequence", "decoders": [{"type": "WordPiece"}]}`},
			`decoder.decoders[0]: unsupported type "WordPiece"`},
		{[]string{"POSTPROCESSOR", `{"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<x>"}}, {"Sequence": {"id": "A"}}], "special_tokens": {}}`},
			`post_processor.single[0]: special token "<x>" is not in special_tokens`},
		{[]string{"POSTPROCESSOR", `{"kind": "x"}`}, `post_processor: missing "type"`},
		{[]string{"MODEL", `{"type": "Unigram", "vocab": []}`}, `model: unsupported type "Unigram"`},
		{[]string{"MODEL", `{"type": "WordPiece", "vocab": {}}`}, `model: unsupported type "WordPiece"`},
		{[]string{"MODEL", `{"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}`}, `model: merges[0]: "b" is not in the vocab`},
		{[]string{"MODEL", `{"type": "BPE", "vocab": {"a": 0}, "merges": ["ab"]}`}, `model: merges[0]: "ab" has no space`},
		{[]string{"MODEL", `{"type": "BPE", "vocab": {"a": 0}, "merges": [["a"]]}`}, `model: merges[0]: has 1 parts`},
		{[]string{"MODEL", `{"type": "BPE", "vocab": {"a": 0}, "merges": [], "unk_token": "<unk>"}`}, `model: unk_token "<unk>" is not in the vocab`},
		{[]string{"MODEL", `{"type": "BPE", "vocab": {"a": "zero"}, "merges": []}`}, `model: vocab: json`},
		{[]string{"MODEL", `null`}, `model: missing`},
	}
	for _, c := range cases {
		_, err := Parse([]byte(tiny(t, c.swap...)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("swap %s: got error %v, want one containing %q", c.swap[0], err, c.want)
		}
	}
	if _, err := Parse([]byte(`{"model": `)); err == nil || !strings.Contains(err.Error(), "not a tokenizer.json") {
		t.Errorf("truncated file: got %v", err)
	}
}

func TestLoadPathAndConfig(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(tiny(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err != nil {
		t.Fatalf("Load(folder): %v", err)
	}
	_, err := Load(filepath.Join(dir, "nope.json"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Load(missing): %v", err)
	}
	if _, err := LoadConfig(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("LoadConfig without a file: %v", err)
	}
	cfg := `{"chat_template": [{"name": "tool_use", "template": "T"}, {"name": "default", "template": "D"}],
	  "bos_token": {"__type": "AddedToken", "content": "<s>"}, "eos_token": "</s>", "add_bos_token": true}`
	if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if c.ChatTemplate != "D" || c.BOSToken != "<s>" || c.EOSToken != "</s>" || !c.AddBOSToken {
		t.Fatalf("config %+v", c)
	}
	if _, err := ParseConfig([]byte(`{"bos_token": 3}`)); err == nil || !strings.Contains(err.Error(), "bos_token") {
		t.Fatalf("bad bos_token: %v", err)
	}
}

// TestRealConfigs reads the chat templates of the cached tokenizers.
func TestRealConfigs(t *testing.T) {
	for _, name := range []string{"llama3", "qwen3", "deepseek_v3", "gemma3"} {
		c, err := LoadConfig(filepath.Join(cacheDir(t), name))
		if err != nil {
			t.Fatalf("%s: %v (run scripts/fetch-tokenizers.sh)", name, err)
		}
		if c.ChatTemplate == "" || c.EOSToken == "" {
			t.Errorf("%s: config %+v lacks a chat template or EOS", name, c)
		}
	}
}
