package media

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFolder writes a model folder's config files, each a JSON text.
func writeFolder(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// qwen2VL2BConfig is Qwen/Qwen2-VL-2B-Instruct's preprocessor_config.json values as the
// repository publishes them (min_pixels 3136, max_pixels 12845056, patch 14, merge 2,
// temporal patch 2): the model vLLM's test_qwen2_vl.py counts with.
const qwen2VL2BConfig = `{"min_pixels": 3136, "max_pixels": 12845056, "patch_size": 14, "temporal_patch_size": 2, "merge_size": 2,
 "image_processor_type": "Qwen2VLImageProcessor", "processor_class": "Qwen2VLProcessor"}`

// TestQwen2VLAgainstVLLM reproduces vllm-project/vllm@028611b33fd53f7df1d51126478e2d6fed8a5e53
// tests/models/multimodal/processing/test_qwen2_vl.py test_processor_override: its image
// asset (1300×876) is 1426 <|image_pad|> tokens (5704 patches) with the model's own config,
// and 330 (1320 patches) with min_pixels 64², max_pixels 512², given as min/max_pixels or as
// size's shortest/longest_edge. Our count adds <|vision_start|> and <|vision_end|>.
func TestQwen2VLAgainstVLLM(t *testing.T) {
	for _, c := range []struct {
		name, pre string
		pads      int
	}{
		{"model defaults", qwen2VL2BConfig, 1426},
		{"min/max_pixels", `{"min_pixels": 4096, "max_pixels": 262144, "patch_size": 14, "merge_size": 2}`, 330},
		{"size edges", `{"size": {"shortest_edge": 4096, "longest_edge": 262144}, "patch_size": 14, "merge_size": 2}`, 330},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFolder(t, map[string]string{"config.json": `{"model_type": "qwen2_vl"}`, "preprocessor_config.json": c.pre})
			r, err := Load(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, wh := range [][2]int{{1300, 876}, {876, 1300}} {
				n, err := r.Tokens(wh[0], wh[1])
				if err != nil {
					t.Fatal(err)
				}
				if n != c.pads+2 {
					t.Errorf("%dx%d: %d tokens, want %d pads + 2 wrappers (%s)", wh[0], wh[1], n, c.pads, r.Name())
				}
			}
		})
	}
}

// TestSmartResize checks smart_resize's branches against transformers' function run in
// Python 3 (its code as cited in qwen2vl.go, default min 56², max 28²·1280): rounding half to
// even, the max_pixels floor, the min_pixels ceiling for tiny and thin images, and the refusal
// of an aspect ratio over 200.
func TestSmartResize(t *testing.T) {
	for _, c := range []struct{ h, w, wantH, wantW int }{
		{876, 1300, 812, 1204},  // over max_pixels: floored
		{42, 42, 56, 56},        // round(1.5)=2 (half to even)
		{70, 70, 56, 56},        // round(2.5)=2 (half to even), not 3
		{20, 20, 56, 56},        // 0×0 after rounding: the min_pixels branch sizes it
		{14, 2800, 28, 812},     // round(0.5)=0: min_pixels branch, not 28×2800
		{3000, 4000, 840, 1148}, // the max_pixels branch floors
		{100, 3000, 112, 2996},  // thin, over max_pixels
		{3000, 100, 2996, 112},
	} {
		h, w, err := SmartResize(c.h, c.w, 28, 56*56, 28*28*1280)
		if err != nil {
			t.Fatalf("%dx%d: %v", c.w, c.h, err)
		}
		if h != c.wantH || w != c.wantW {
			t.Errorf("smart_resize(%d, %d) = %d, %d; want %d, %d", c.h, c.w, h, w, c.wantH, c.wantW)
		}
	}
	if _, _, err := SmartResize(10, 2010, 28, 3136, 1003520); err == nil || !strings.Contains(err.Error(), "200") {
		t.Errorf("aspect ratio 201: err %v, want a refusal naming 200", err)
	}
}

// TestGemma3 counts Gemma 3's 256 soft tokens (google/gemma-3-4b-it's config.json:
// mm_tokens_per_image 256; processor_config.json: image_seq_length 256) plus the wrapper as the
// counter encodes it, whatever the size.
func TestGemma3(t *testing.T) {
	dir := writeFolder(t, map[string]string{
		"config.json":           `{"model_type": "gemma3", "mm_tokens_per_image": 256, "boi_token_index": 255999, "eoi_token_index": 256000}`,
		"processor_config.json": `{"image_seq_length": 256, "processor_class": "Gemma3Processor"}`,
	})
	// A counter that sees "\n\n" as one token and each marker as one, as Gemma's tokenizer does.
	count := func(s string) int { return strings.Count(s, "\n\n") + strings.Count(s, "<") }
	r, err := Load(dir, count)
	if err != nil {
		t.Fatal(err)
	}
	for _, wh := range [][2]int{{20, 20}, {4000, 3000}, {3000, 100}} {
		if n, _ := r.Tokens(wh[0], wh[1]); n != 256+4 {
			t.Errorf("%v: %d tokens, want 260", wh, n)
		}
	}
}

// TestLLaVA15 counts llava-hf/llava-1.5-7b-hf's 576 (crop_size 336, patch_size 14,
// vision_feature_select_strategy "default": (336/14)² + 1 - 1), and 577 with "full".
func TestLLaVA15(t *testing.T) {
	for strategy, want := range map[string]int{"default": 576, "full": 577} {
		dir := writeFolder(t, map[string]string{
			"config.json":              `{"model_type": "llava", "vision_feature_select_strategy": "` + strategy + `", "vision_config": {"image_size": 336, "patch_size": 14, "model_type": "clip_vision_model"}}`,
			"preprocessor_config.json": `{"crop_size": {"height": 336, "width": 336}, "image_processor_type": "CLIPImageProcessor"}`,
		})
		r, err := Load(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := r.Tokens(1300, 876); n != want {
			t.Errorf("%s: %d tokens, want %d", strategy, n, want)
		}
	}
}

func TestLoadRefusesUnknownFamilies(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"no config.json":   {},
		"text model":       {"config.json": `{"model_type": "qwen3"}`},
		"no model_type":    {"config.json": `{}`},
		"gemma3 no length": {"config.json": `{"model_type": "gemma3"}`},
	} {
		_, err := Load(writeFolder(t, files), func(string) int { return 1 })
		if !errors.Is(err, ErrNoRule) || !strings.Contains(err.Error(), "--image-tokens") {
			t.Errorf("%s: err %v, want ErrNoRule naming --image-tokens", name, err)
		}
	}
	if _, err := Load(writeFolder(t, map[string]string{"config.json": `{"model_type": `}), nil); err == nil || errors.Is(err, ErrNoRule) {
		t.Errorf("bad config.json: err %v, want a parse error", err)
	}
}

// vicunaNeXT is llava-hf/llava-v1.6-vicuna-7b-hf's configuration as the repository publishes
// it: crop 336, its five pinpoints, patch 14, "default" selection, one additional token.
var vicunaNeXT = map[string]string{
	"config.json":              `{"model_type": "llava_next", "vision_feature_select_strategy": "default", "image_grid_pinpoints": [[336, 672], [672, 336], [672, 672], [1008, 336], [336, 1008]], "vision_config": {"image_size": 336, "patch_size": 14}}`,
	"preprocessor_config.json": `{"crop_size": {"height": 336, "width": 336}, "size": {"shortest_edge": 336}, "image_grid_pinpoints": [[336, 672], [672, 336], [672, 672], [1008, 336], [336, 1008]], "image_processor_type": "LlavaNextImageProcessor"}`,
	"processor_config.json":    `{"patch_size": 14, "vision_feature_select_strategy": "default", "num_additional_image_tokens": 1, "processor_class": "LlavaNextProcessor"}`,
}

// TestLLaVANeXT reproduces transformers' test_image_token_filling (cited in llavanext.go):
// 1526 tokens for a 500×316 (height×width) image with llava-v1.6-vicuna-7b-hf's values, and
// 1525 for 503×316 with the single pinpoint [672, 336] and no additional token; then, worked
// by hand, a square 336 image: [336, 672] keeps every pixel with the least waste (tied with
// [672, 336], the first wins), its 24×48 grid unpadded to 24×24, so 576 + 24 newlines + 576.
func TestLLaVANeXT(t *testing.T) {
	r, err := Load(writeFolder(t, vicunaNeXT), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := r.Tokens(316, 500); err != nil || n != 1526 {
		t.Errorf("vicuna 316x500: %d (%v), want 1526 (%s)", n, err, r.Name())
	}
	one := LLaVANeXT{Patch: 14, TileH: 336, TileW: 336, Pinpoints: [][2]int{{672, 336}}, Default: true}
	if n, _ := one.Tokens(316, 503); n != 1525 {
		t.Errorf("one pinpoint 316x503: %d, want 1525", n)
	}
	if n, _ := r.Tokens(336, 336); n != 1176 {
		t.Errorf("vicuna 336x336: %d, want 1176", n)
	}
}

// TestPixtral reproduces transformers' test_processor_with_single_image (cited in pixtral.go):
// 1300×876 with longest_edge 30 and patch 16 is 2×2 patches, 6 tokens with the break and end;
// then Pixtral-12B's published values (mistral-community/pixtral-12b: model_type llava over a
// pixtral vision tower, longest_edge 1024, patch 16) on a 1024×1024 image, 64 rows of 64 and a
// break, and Mistral Small 3.1's (mistral3, patch 14, spatial merge 2, longest_edge 1540) on a
// 4000×3000 image, floored to 1540×1155 and cut in 28-pixel patches: 42 rows of 55 + 1.
func TestPixtral(t *testing.T) {
	if n, _ := (Pixtral{Longest: 30, Patch: 16, Merge: 1}).Tokens(1300, 876); n != 6 {
		t.Errorf("longest 30, patch 16, 1300x876: %d, want 6", n)
	}
	p12 := writeFolder(t, map[string]string{
		"config.json":              `{"model_type": "llava", "vision_config": {"model_type": "pixtral", "patch_size": 16, "image_size": 1024}}`,
		"preprocessor_config.json": `{"image_processor_type": "PixtralImageProcessor", "patch_size": {"height": 16, "width": 16}, "size": {"longest_edge": 1024}}`,
		"processor_config.json":    `{"patch_size": 16, "processor_class": "PixtralProcessor"}`,
	})
	ms31 := writeFolder(t, map[string]string{
		"config.json":              `{"model_type": "mistral3", "spatial_merge_size": 2, "vision_config": {"model_type": "pixtral", "patch_size": 14, "image_size": 1540}}`,
		"preprocessor_config.json": `{"image_processor_type": "PixtralImageProcessor", "patch_size": {"height": 14, "width": 14}, "size": {"longest_edge": 1540}}`,
		"processor_config.json":    `{"patch_size": 14, "spatial_merge_size": 2, "processor_class": "PixtralProcessor"}`,
	})
	for _, c := range []struct {
		dir        string
		w, h, want int
	}{{p12, 1024, 1024, 64 * 65}, {p12, 16, 16, 2}, {p12, 20, 20, 2 * 3}, {ms31, 4000, 3000, 42 * 56}} {
		r, err := Load(c.dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := r.Tokens(c.w, c.h); err != nil || n != c.want {
			t.Errorf("%s %dx%d: %d (%v), want %d", r.Name(), c.w, c.h, n, err, c.want)
		}
	}
}

// TestInferSize: a count turned back into a square the rule counts nearest it: Qwen2-VL's 1426
// (vLLM's 1300×876 with the defaults) is no square's count (a side of 38 merged patches counts
// 1446, 37 counts 1371), so the nearer, 1446; Claude's area rule (w·h/750, at most 1568 a
// side, so 1599 at most) gives 1200 for a side near 949 (949²/750 = 1200.8); a rule that counts every size alike, or a count
// out of the rule's range, tells no size.
func TestInferSize(t *testing.T) {
	qwen := Qwen2VL{Family: "qwen2_vl", Patch: 14, Merge: 2, MinPixels: 56 * 56, MaxPixels: 14 * 14 * 4 * 16384, Wrap: 2} // the checkpoint's max_pixels, 12845056
	w, h, err := InferSize(qwen, "", 1426)
	n, _ := qwen.Tokens(w, h)
	if err != nil || w != h || n != 1446 {
		t.Errorf("qwen2_vl 1426: %dx%d counting %d (%v), want a square counting 1446", w, h, n, err)
	}
	claude, _ := LoggedRule("claude-sonnet-4")
	w, h, err = InferSize(claude, "", 1200)
	n, _ = claude.Tokens(w, h)
	if err != nil || w != h || n < 1199 || n > 1201 {
		t.Errorf("claude 1200: %dx%d counting %d (%v), want a square counting 1200 ± 1", w, h, n, err)
	}
	for name, c := range map[string]struct {
		rule   Rule
		tokens int
	}{
		"fixed":  {Fixed(576), 576},
		"over":   {qwen, 100000},
		"claude": {claude, 1600},
		"under":  {qwen, 1},
	} {
		if _, _, err := InferSize(c.rule, "", c.tokens); !errors.Is(err, ErrSizeUnknowable) {
			t.Errorf("%s: err %v, want ErrSizeUnknowable", name, err)
		}
	}
}
