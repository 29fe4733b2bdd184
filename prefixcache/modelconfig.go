package prefixcache

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ModelKV is what a model's Hugging Face config.json says about its KV cache.
type ModelKV struct {
	Layers, KVHeads, HeadDim int
	Dtype                    string // as the config names it
	BytesPerElem             int
	// LatentDim is multi-head latent attention's cached width per layer (kv_lora_rank +
	// qk_rope_head_dim, DeepSeek-V2/V3), 0 for standard attention.
	LatentDim     int
	BytesPerToken int
}

// String shows the arithmetic, for a command to print beside its figures.
func (m ModelKV) String() string {
	if m.LatentDim > 0 {
		return fmt.Sprintf("%d layers x %d latent x %d bytes (%s) = %d bytes per token", m.Layers, m.LatentDim, m.BytesPerElem, m.Dtype, m.BytesPerToken)
	}
	return fmt.Sprintf("2 (K, V) x %d layers x %d KV heads x %d head dim x %d bytes (%s) = %d bytes per token",
		m.Layers, m.KVHeads, m.HeadDim, m.BytesPerElem, m.Dtype, m.BytesPerToken)
}

// hfConfig holds the config.json fields that size the KV cache; absent and null are nil.
type hfConfig struct {
	Layers     *int      `json:"num_hidden_layers"`
	Heads      *int      `json:"num_attention_heads"`
	KVHeads    *int      `json:"num_key_value_heads"`
	HeadDim    *int      `json:"head_dim"`
	Hidden     *int      `json:"hidden_size"`
	TorchDtype *string   `json:"torch_dtype"`
	Dtype      *string   `json:"dtype"` // transformers 4.56 renamed torch_dtype to dtype
	LoraRank   *int      `json:"kv_lora_rank"`
	RopeDim    *int      `json:"qk_rope_head_dim"`
	Text       *hfConfig `json:"text_config"` // multimodal models keep the language model here
}

// ParseModelConfig reads the KV cache's shape from the bytes of a Hugging Face config.json
// (name is its file, for errors): num_hidden_layers; num_key_value_heads, default
// num_attention_heads; head_dim, default hidden_size / num_attention_heads; the element size
// from torch_dtype (or dtype). Multimodal configs are read from their text_config. Models with
// multi-head latent attention (kv_lora_rank) cache one latent vector per layer instead.
// The element size is the weights' dtype: an engine running an fp8 KV cache stores 1 byte,
// which --kv-bytes-per-token (or KVBytesPerToken) expresses.
func ParseModelConfig(name string, data []byte) (ModelKV, error) {
	var top hfConfig
	if err := json.Unmarshal(data, &top); err != nil {
		return ModelKV{}, fmt.Errorf("%s: not a model config.json: %w", name, err)
	}
	c, prefix := &top, ""
	if top.Layers == nil && top.Text != nil {
		c, prefix = top.Text, "text_config."
	}
	f := fields{name: name, prefix: prefix, c: c}
	m, err := f.shape()
	if err != nil {
		return ModelKV{}, err
	}
	if m.Dtype, m.BytesPerElem, err = f.dtype(&top); err != nil {
		return ModelKV{}, err
	}
	if m.LatentDim > 0 {
		m.BytesPerToken = m.Layers * m.LatentDim * m.BytesPerElem
	} else {
		m.BytesPerToken = KVBytesPerToken(m.Layers, m.KVHeads, m.HeadDim, m.BytesPerElem)
	}
	return m, nil
}

// fields reads one config object's fields, naming file and field in errors.
type fields struct {
	name, prefix string
	c            *hfConfig
}

// Bounds far above any model's, so that the products cannot overflow.
const (
	maxLayers = 1 << 14
	maxHeads  = 1 << 14
	maxDim    = 1 << 20
)

func (f fields) errorf(field, format string, a ...any) error {
	return fmt.Errorf("%s: %s%s: %s", f.name, f.prefix, field, fmt.Sprintf(format, a...))
}

// count is a required field in 1..limit.
func (f fields) count(field string, v *int, limit int) (int, error) {
	if v == nil {
		return 0, f.errorf(field, "missing")
	}
	if *v < 1 || *v > limit {
		return 0, f.errorf(field, "%d: must be 1 to %d", *v, limit)
	}
	return *v, nil
}

// shape reads layers and the per-layer width: latent, or KV heads and head dim.
func (f fields) shape() (ModelKV, error) {
	var m ModelKV
	var err error
	if m.Layers, err = f.count("num_hidden_layers", f.c.Layers, maxLayers); err != nil {
		return m, err
	}
	if f.c.LoraRank != nil {
		rank, err := f.count("kv_lora_rank", f.c.LoraRank, maxDim)
		if err != nil {
			return m, err
		}
		rope, err := f.count("qk_rope_head_dim", f.c.RopeDim, maxDim)
		m.LatentDim = rank + rope
		return m, err
	}
	if m.KVHeads, err = f.kvHeads(); err != nil {
		return m, err
	}
	m.HeadDim, err = f.headDim()
	return m, err
}

// kvHeads is num_key_value_heads, or num_attention_heads (multi-head attention) without it.
func (f fields) kvHeads() (int, error) {
	if f.c.KVHeads != nil {
		return f.count("num_key_value_heads", f.c.KVHeads, maxHeads)
	}
	return f.count("num_attention_heads", f.c.Heads, maxHeads)
}

// headDim is head_dim, or hidden_size / num_attention_heads without it.
func (f fields) headDim() (int, error) {
	if f.c.HeadDim != nil {
		return f.count("head_dim", f.c.HeadDim, maxDim)
	}
	hidden, err := f.count("hidden_size", f.c.Hidden, maxDim*maxHeads)
	if err != nil {
		return 0, fmt.Errorf("%w (needed without head_dim)", err)
	}
	heads, err := f.count("num_attention_heads", f.c.Heads, maxHeads)
	if err != nil {
		return 0, fmt.Errorf("%w (needed without head_dim)", err)
	}
	if hidden%heads != 0 {
		return 0, f.errorf("hidden_size", "%d is not a multiple of num_attention_heads %d; give head_dim", hidden, heads)
	}
	return f.count("hidden_size / num_attention_heads", ptr(hidden/heads), maxDim)
}

func ptr(v int) *int { return &v }

// dtypeBytes are the element sizes of the dtypes configs name.
var dtypeBytes = map[string]int{
	"float64": 8, "float32": 4, "float": 4, "fp32": 4,
	"float16": 2, "half": 2, "fp16": 2, "bfloat16": 2, "bf16": 2,
	"float8_e4m3fn": 1, "float8_e4m3fnuz": 1, "float8_e5m2": 1, "float8_e5m2fnuz": 1, "fp8": 1,
}

// dtype is the element size from torch_dtype or dtype.
func (f fields) dtype(top *hfConfig) (string, int, error) {
	field, s := f.dtypeField(top)
	if s == nil {
		return "", 0, f.errorf("torch_dtype", "missing (nor dtype); give the KV bytes per token instead")
	}
	n, ok := dtypeBytes[strings.TrimPrefix(strings.ToLower(*s), "torch.")]
	if !ok {
		return "", 0, fmt.Errorf("%s: %s: unknown dtype %q; give the KV bytes per token instead", f.name, field, *s)
	}
	return *s, n, nil
}

// dtypeField finds the dtype: the language model's own, else the top level's (multimodal
// configs often give it only there); nil when neither has one.
func (f fields) dtypeField(top *hfConfig) (field string, s *string) {
	switch {
	case f.c.TorchDtype != nil:
		return f.prefix + "torch_dtype", f.c.TorchDtype
	case f.c.Dtype != nil:
		return f.prefix + "dtype", f.c.Dtype
	case top.TorchDtype != nil:
		return "torch_dtype", top.TorchDtype
	case top.Dtype != nil:
		return "dtype", top.Dtype
	}
	return "", nil
}
