package main

// mmproj.go writes a random-weight vision projector GGUF (the file llama-server takes with
// --mmproj): a tiny CLIP-style vision tower and the projector of one family, with the clip.*
// keys and the tensor names llama.cpp's multimodal library (libmtmd) reads. The format was
// read from ggml-org/llama.cpp@0024aa7417efd50a7c2a79e049dfbbbceb0beaaf tools/mtmd/clip.cpp
// (clip_model_loader: load_hparams and load_tensors), tools/mtmd/clip-impl.h (the KEY_* and
// TN_* names, PROJECTOR_TYPE_NAMES; read at a4492511f33b0e06bd24d75745ef883283ae3ce9),
// tools/mtmd/models/llava.cpp@623ea2ba30ac1387d6c6eb2f6a0cf758915aafb7 (the mlp graph) and
// tools/mtmd/models/qwen2vl.cpp@06e514f61476a45c38b36ac37ca5133114b90ab3 (the merger graph);
// those are the versions the source index holds, not proven to be tag b11669's (the tag's
// commit could not be looked up from here), but every key and tensor name below is also a
// string in the libmtmd.so.0.7.0 that Debian's llama.cpp 0.7.0 (upstream tag b11669) ships,
// which is what e2e/llamacpp runs, and that build loads both projectors and serves images
// with them (e2e/llamacpp/slices/97-vision.sh). No code of llama.cpp is copied: this only
// writes a file in the shape its loader accepts.
//
// The weights are random (the server decodes every image into embeddings; what they mean
// does not matter); what matters is the count of embeddings per image, which is fixed by
// the family's geometry:
//   - mlp (LLaVA-1.5): the image padded to a square and resized to image_size (336), cut
//     into patch_size (14) patches: (336/14)² = 576 embeddings, the CLS one dropped.
//   - qwen2vl_merger (Qwen2-VL): the image resized to multiples of patch·merge (28) on each
//     side, within the server's own pixel range, each 2×2 patches merged into one embedding.

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/ollama/ollama/fs/ggml"
)

// visionTower is the tiny encoder's shape: small enough that 2 CPU cores encode a 336×336
// image in well under a second.
type visionTower struct {
	dim, heads, ffn, layers int
}

var tinyTower = visionTower{dim: 64, heads: 4, ffn: 128, layers: 2}

// projectors are the projector types written: their clip.projector_type value.
var projectors = []string{"mlp", "qwen2vl_merger"}

// writeMMProj writes the projector of type kind whose embeddings are textDim wide (the text
// model's embedding_length).
func writeMMProj(out, kind string, textDim int, seed uint64) error {
	t := tinyTower
	d := uint64(t.dim)
	ff := uint64(t.ffn)
	kv := ggml.KV{
		"general.architecture":                     "clip",
		"general.name":                             fmt.Sprintf("replay-random-%s-d%d-l%d", kind, t.dim, t.layers),
		"general.file_type":                        uint32(1),
		"clip.has_vision_encoder":                  true,
		"clip.projector_type":                      kind,
		"clip.vision.embedding_length":             uint32(t.dim),
		"clip.vision.feed_forward_length":          uint32(t.ffn),
		"clip.vision.block_count":                  uint32(t.layers),
		"clip.vision.attention.head_count":         uint32(t.heads),
		"clip.vision.attention.layer_norm_epsilon": float32(1e-6),
		"clip.vision.projection_dim":               uint32(textDim),
		"clip.vision.patch_size":                   uint32(14),
		// OpenAI CLIP's normalization (LLaVA-1.5 and Qwen2-VL both use it).
		"clip.vision.image_mean": []float32{0.48145466, 0.4578275, 0.40821073},
		"clip.vision.image_std":  []float32{0.26862954, 0.26130258, 0.27577711},
	}
	w := &weights{seed: seed}
	std := float32(1 / math.Sqrt(float64(t.dim)))

	// The encoder blocks (pre-norm ViT, biases everywhere, as CLIP and Qwen2-VL's tower have):
	// up is [dim → ffn] and down [ffn → dim]; with ffn ≠ dim the loader's "ffn up/down are
	// swapped" fix for old conversions (down's first dimension equal to n_embd) stays off.
	for i := 0; i < t.layers; i++ {
		b := fmt.Sprintf("v.blk.%d.", i)
		for _, m := range []string{"attn_q", "attn_k", "attn_v", "attn_out"} {
			w.add(b+m+".weight", []uint64{d, d}, normal(std))
			w.add(b+m+".bias", []uint64{d}, zeros)
		}
		w.add(b+"ln1.weight", []uint64{d}, ones)
		w.add(b+"ln1.bias", []uint64{d}, zeros)
		w.add(b+"ln2.weight", []uint64{d}, ones)
		w.add(b+"ln2.bias", []uint64{d}, zeros)
		w.add(b+"ffn_up.weight", []uint64{d, ff}, normal(std))
		w.add(b+"ffn_up.bias", []uint64{ff}, zeros)
		w.add(b+"ffn_down.weight", []uint64{ff, d}, normal(float32(1/math.Sqrt(float64(t.ffn)))))
		w.add(b+"ffn_down.bias", []uint64{d}, zeros)
	}
	// The patch embedding is a convolution kernel, ggml's [KW, KH, channels in, channels out].
	patch := uint64(14)
	text := uint64(textDim)
	switch kind {
	case "mlp":
		// LLaVA-1.5 (CLIP ViT-L/14-336 and a two-layer GELU MLP): a class embedding, learned
		// positions for the 576 patches and the CLS, a pre-norm; the projector mm.0 [dim →
		// text], mm.2 [text → text]. The server's embedding width is mm.2's output.
		const imageSize = 336
		kv["clip.vision.image_size"] = uint32(imageSize)
		kv["clip.use_gelu"] = false // CLIP's quick GELU in the tower
		nPos := uint64((imageSize/14)*(imageSize/14) + 1)
		w.add("v.patch_embd.weight", []uint64{patch, patch, 3, d}, normal(0.02))
		w.add("v.class_embd", []uint64{d}, normal(0.02))
		w.add("v.position_embd.weight", []uint64{d, nPos}, normal(0.02))
		w.add("v.pre_ln.weight", []uint64{d}, ones)
		w.add("v.pre_ln.bias", []uint64{d}, zeros)
		w.add("mm.0.weight", []uint64{d, text}, normal(std))
		w.add("mm.0.bias", []uint64{text}, zeros)
		w.add("mm.2.weight", []uint64{text, text}, normal(float32(1/math.Sqrt(float64(textDim)))))
		w.add("mm.2.bias", []uint64{text}, zeros)
	case "qwen2vl_merger":
		// Qwen2-VL: no class embedding nor learned positions (the tower uses 2-D rotary
		// positions), the temporal patch of 2 frames as two kernels (v.patch_embd.weight and
		// .weight.1, summed for a still image), no patch bias, a post-norm (the merger's
		// ln_q), then mm.0 [4·dim → 4·dim] and mm.2 [4·dim → text] over each 2×2 patches.
		// image_size is only the warmup's default for this family (its size is dynamic).
		kv["clip.vision.image_size"] = uint32(560)
		kv["clip.use_gelu"] = false
		kv["clip.vision.spatial_merge_size"] = uint32(2)
		w.add("v.patch_embd.weight", []uint64{patch, patch, 3, d}, normal(0.02))
		w.add("v.patch_embd.weight.1", []uint64{patch, patch, 3, d}, normal(0.02))
		w.add("v.post_ln.weight", []uint64{d}, ones)
		w.add("v.post_ln.bias", []uint64{d}, zeros)
		w.add("mm.0.weight", []uint64{4 * d, 4 * d}, normal(float32(1/math.Sqrt(float64(4*t.dim)))))
		w.add("mm.0.bias", []uint64{4 * d}, zeros)
		w.add("mm.2.weight", []uint64{4 * d, text}, normal(float32(1/math.Sqrt(float64(4*t.dim)))))
		w.add("mm.2.bias", []uint64{text}, zeros)
	default:
		return fmt.Errorf("--mmproj %q: one of %v", kind, projectors)
	}

	if err := w.write(out, kv); err != nil {
		return err
	}
	return writeHFConfig(filepath.Dir(out), kind, t, textDim)
}

// writeHFConfig writes, beside the projector, the config.json and preprocessor_config.json a
// Hugging Face checkpoint of that family has, with the values the GGUF holds: what replay
// reads to choose and size its image rule (package media), as transformers would.
func writeHFConfig(dir, kind string, t visionTower, textDim int) error {
	mean := []float64{0.48145466, 0.4578275, 0.40821073}
	std := []float64{0.26862954, 0.26130258, 0.27577711}
	var cfg, pre map[string]any
	switch kind {
	case "mlp":
		// As llava-hf/llava-1.5-7b-hf: CLIPImageProcessor to a 336 crop, the CLS feature
		// dropped ("default"), the second-last layer's features.
		cfg = map[string]any{
			"model_type":                     "llava",
			"architectures":                  []string{"LlavaForConditionalGeneration"},
			"vision_feature_select_strategy": "default",
			"vision_feature_layer":           -2,
			"projector_hidden_act":           "gelu",
			"vision_config": map[string]any{"model_type": "clip_vision_model", "image_size": 336, "patch_size": 14,
				"hidden_size": t.dim, "intermediate_size": t.ffn, "num_hidden_layers": t.layers, "num_attention_heads": t.heads},
			"text_config": map[string]any{"model_type": "llama", "hidden_size": textDim},
		}
		pre = map[string]any{
			"image_processor_type": "CLIPImageProcessor",
			"crop_size":            map[string]int{"height": 336, "width": 336},
			"size":                 map[string]int{"shortest_edge": 336},
			"do_center_crop":       true, "do_resize": true, "do_normalize": true, "resample": 3,
			"image_mean": mean, "image_std": std,
		}
	case "qwen2vl_merger":
		// As Qwen/Qwen2-VL-2B-Instruct, but with the pixel range llama.cpp's loader sets for
		// this projector (set_limit_image_tokens(8, 4096) in clip.cpp's load_hparams: 8 to
		// 4096 merged tokens of 28×28 pixels), not the checkpoint's 56·56..28·28·1280: the
		// server clamps every image to its own range whatever the checkpoint says, so a
		// folder that counts as this server does holds that range.
		cfg = map[string]any{
			"model_type":    "qwen2_vl",
			"architectures": []string{"Qwen2VLForConditionalGeneration"},
			"hidden_size":   textDim,
			"vision_config": map[string]any{"depth": t.layers, "embed_dim": t.dim, "num_heads": t.heads,
				"patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2, "hidden_size": textDim},
		}
		pre = map[string]any{
			"image_processor_type": "Qwen2VLImageProcessor",
			"patch_size":           14, "merge_size": 2, "temporal_patch_size": 2,
			"min_pixels": QwenMinPixels, "max_pixels": QwenMaxPixels,
			"image_mean": mean, "image_std": std,
		}
	}
	return writeJSONFiles(dir, map[string]any{"config.json": cfg, "preprocessor_config.json": pre})
}

// The Qwen2-VL pixel range of llama.cpp's loader: 8 and 4096 tokens of (14·2)² pixels.
const (
	QwenMinPixels = 8 * 28 * 28
	QwenMaxPixels = 4096 * 28 * 28
)
