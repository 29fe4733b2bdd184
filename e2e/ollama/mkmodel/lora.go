package main

import (
	"fmt"
	"math"

	"github.com/ollama/ollama/fs/ggml"
)

// A LoRA adapter for the llama text model of a preset, in llama.cpp's adapter GGUF format as its
// loader reads one (src/llama-adapter.cpp at commit 0650ea8c05bc6e31273182470197e9b2e50253e0,
// llama_adapter_lora_init_impl): general.type "adapter", general.architecture the base model's
// ("llama"), adapter.type "lora" and adapter.lora.alpha (F32; the delta is scaled by
// alpha / rank, so alpha = rank scales it by 1), and for each targeted weight W of the base a
// pair "W.lora_a" (ne = [W's ne0, rank]) and "W.lora_b" (ne = [rank, W's ne1]): the loader pairs
// them by name, refuses a pair whose base tensor is missing or whose shapes do not match, and
// adds scale·B·A·x to W·x in every matrix product with W while a request applies it.
//
// The adapter targets attn_q and attn_v of every layer with random A and B (--seed), so two
// adapters of different seeds and the base answer one prompt differently under greedy decoding;
// neither touches the residual stream's carrier dimension (attn_output still clears it), so the
// base model's end-of-sequence behaviour is kept.

// loraRank is the adapters' rank.
const loraRank = 8

// writeLoRA writes a random-weight LoRA adapter for preset p's llama text model to out.
func writeLoRA(out string, p preset, seed uint64) error {
	d := uint64(p.dim)
	kvDim := uint64(p.dim / p.heads * p.kvHeads)
	r := uint64(loraRank)
	kv := ggml.KV{
		"general.architecture": "llama",
		"general.type":         "adapter",
		"general.name":         fmt.Sprintf("replay-random-lora-d%d-l%d-r%d-s%d", p.dim, p.layers, r, seed),
		"adapter.type":         "lora",
		"adapter.lora.alpha":   float32(r),
	}
	w := &weights{seed: seed, prefix: "lora:"}
	aStd := float32(1 / math.Sqrt(float64(p.dim)))
	bStd := float32(1 / math.Sqrt(float64(r)))
	for i := 0; i < p.layers; i++ {
		for _, t := range []struct {
			name string
			out  uint64
		}{{"attn_q", d}, {"attn_v", kvDim}} {
			base := fmt.Sprintf("blk.%d.%s.weight", i, t.name)
			w.add(base+".lora_a", []uint64{d, r}, normal(aStd))
			w.add(base+".lora_b", []uint64{r, t.out}, normal(bStd))
		}
	}
	return w.write(out, kv)
}
