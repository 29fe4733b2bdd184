package prefixcache

import (
	"strings"
	"testing"
)

// Configs shaped like the published ones (only the fields read here, plus one ignored).
func TestParseModelConfig(t *testing.T) {
	for _, c := range []struct {
		name, json string
		want       int
	}{
		// Llama-3-8B: grouped-query attention, head_dim from hidden_size / heads.
		{"llama3", `{"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "hidden_size": 4096, "torch_dtype": "bfloat16", "vocab_size": 128256}`, 2 * 32 * 8 * 128 * 2},
		// Qwen3-8B gives head_dim; newer transformers write dtype.
		{"qwen3", `{"num_hidden_layers": 36, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "hidden_size": 4096, "dtype": "bfloat16"}`, 2 * 36 * 8 * 128 * 2},
		// GPT-2 style multi-head attention: no num_key_value_heads; float32.
		{"mha", `{"num_hidden_layers": 12, "num_attention_heads": 12, "hidden_size": 768, "torch_dtype": "float32", "num_key_value_heads": null}`, 2 * 12 * 12 * 64 * 4},
		// A multimodal config keeps the language model under text_config, the dtype on top.
		{"text_config", `{"torch_dtype": "float16", "text_config": {"num_hidden_layers": 48, "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128}}`, 2 * 48 * 8 * 128 * 2},
		// DeepSeek-V3: multi-head latent attention caches kv_lora_rank + qk_rope_head_dim.
		{"mla", `{"num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128, "hidden_size": 7168, "kv_lora_rank": 512, "qk_rope_head_dim": 64, "torch_dtype": "bfloat16"}`, 61 * 576 * 2},
		{"fp8", `{"num_hidden_layers": 2, "num_attention_heads": 4, "head_dim": 8, "torch_dtype": "torch.float8_e4m3fn"}`, 2 * 2 * 4 * 8},
	} {
		m, err := ParseModelConfig(c.name+"/config.json", []byte(c.json))
		if err != nil || m.BytesPerToken != c.want {
			t.Errorf("%s: %+v, %v; want %d bytes per token", c.name, m, err, c.want)
		}
		if !strings.Contains(m.String(), "bytes per token") {
			t.Errorf("%s: %q", c.name, m.String())
		}
	}
}

// TestParseModelConfigErrors: every error names the file and the field.
func TestParseModelConfigErrors(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{`not json`, "m/config.json: not a model config.json"},
		{`[1, 2]`, "m/config.json: not a model config.json"},
		{`{}`, "m/config.json: num_hidden_layers: missing"},
		{`{"num_hidden_layers": 32.5}`, "m/config.json: not a model config.json"},
		{`{"num_hidden_layers": 0}`, "m/config.json: num_hidden_layers: 0: must be 1 to"},
		{`{"num_hidden_layers": 1}`, "m/config.json: num_attention_heads: missing"},
		{`{"num_hidden_layers": 1, "num_key_value_heads": -4}`, "num_key_value_heads: -4"},
		{`{"num_hidden_layers": 1, "num_key_value_heads": 4}`, "m/config.json: hidden_size: missing (needed without head_dim)"},
		{`{"num_hidden_layers": 1, "num_attention_heads": 3, "hidden_size": 100}`, "m/config.json: hidden_size: 100 is not a multiple of num_attention_heads 3"},
		{`{"num_hidden_layers": 1, "num_attention_heads": 2, "head_dim": 64}`, "m/config.json: torch_dtype: missing"},
		{`{"num_hidden_layers": 1, "num_attention_heads": 2, "head_dim": 64, "torch_dtype": "int4"}`, `m/config.json: torch_dtype: unknown dtype "int4"`},
		{`{"num_hidden_layers": 1, "kv_lora_rank": 512, "torch_dtype": "bfloat16"}`, "m/config.json: qk_rope_head_dim: missing"},
		{`{"text_config": {"num_hidden_layers": 1, "num_attention_heads": 2}}`, "m/config.json: text_config.hidden_size: missing"},
		{`{"text_config": {"num_hidden_layers": 1, "head_dim": 2, "num_attention_heads": 2, "dtype": "x"}}`, `m/config.json: text_config.dtype: unknown dtype "x"`},
		{`{"num_hidden_layers": 99999999}`, "num_hidden_layers: 99999999: must be 1 to"},
	} {
		if _, err := ParseModelConfig("m/config.json", []byte(c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.json, err, c.want)
		}
	}
}
