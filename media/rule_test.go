package media

import (
	"errors"
	"fmt"
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
		"no config.json":     {},
		"text model":         {"config.json": `{"model_type": "qwen3"}`},
		"no model_type":      {"config.json": `{}`},
		"gemma3 no length":   {"config.json": `{"model_type": "gemma3"}`},
		"phi3_v no crops":    {"config.json": `{"model_type": "phi3_v"}`},
		"internvl_chat bare": {"config.json": `{"model_type": "internvl_chat"}`},
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

// llama4Scout is meta-llama/Llama-4-Scout-17B-16E-Instruct's values as the repository
// publishes them: 336 tiles, max_patches 16, patch 14, pixel shuffle 0.5.
var llama4Scout = map[string]string{
	"config.json":              `{"model_type": "llama4", "boi_token_index": 200080, "eoi_token_index": 200081, "image_token_index": 200092, "vision_config": {"image_size": 336, "patch_size": 14, "pixel_shuffle_ratio": 0.5, "model_type": "llama4_vision_model"}}`,
	"preprocessor_config.json": `{"image_processor_type": "Llama4ImageProcessorFast", "max_patches": 16, "resize_to_max_canvas": false, "size": {"height": 336, "width": 336}, "processor_class": "Llama4Processor"}`,
	"processor_config.json":    `{"fake_image_token": "<|image|>", "image_token": "<|image|>", "patch_size": 14, "processor_class": "Llama4Processor"}`,
}

// TestLlama4 reproduces transformers' test_split_tiles
// (huggingface/transformers@c1a581b9f18098db9d87a232f227fe7f58ec5695
// tests/models/llama4/test_image_processing_llama4.py): a 400×400 image with 20×20 tiles and
// max_patches 16 is 17 tiles, a 4×4 canvas and the global tile; get_best_fit's own example
// (image_processing_llama4_fast.py as cited in llama4.go): a 200×300 (height×width) image
// among the canvases of at most 3 tiles of 224 is [224, 448]; and
// find_supported_resolutions' example order for 4 tiles of 224. Then Llama-4-Scout's values,
// worked by hand: 336×336 is one tile, <|image_start|><|image|>, 144 <|patch|>,
// <|image_end|>: 147; 1300×876 fits 3×4 and 4×4 at the same smallest upscale (1344/1300),
// the 3×4 smaller: 12 tiles and the global, 13·144 patches, 3 rows of 3 x-separators and a
// y-separator, and the 3 wrappers: 1887.
func TestLlama4(t *testing.T) {
	if rows, cols := (Llama4{Tile: 20, MaxPatches: 16}).Canvas(400, 400); rows*cols+1 != 17 {
		t.Errorf("test_split_tiles: %dx%d canvas, %d tiles with the global, want 17", rows, cols, rows*cols+1)
	}
	if rows, cols := (Llama4{Tile: 224, MaxPatches: 3}).Canvas(300, 200); rows != 1 || cols != 2 {
		t.Errorf("get_best_fit example: %dx%d tiles, want 1x2 ([224, 448])", rows, cols)
	}
	want := [][2]int{{1, 4}, {2, 2}, {1, 1}, {4, 1}, {1, 3}, {3, 1}, {1, 2}, {2, 1}}
	if got := llama4Canvases(4); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("find_supported_resolutions(4): %v, want %v", got, want)
	}
	count := func(s string) int { return strings.Count(s, "<|") } // each marker one special token
	r, err := Load(writeFolder(t, llama4Scout), count)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ w, h, want int }{{336, 336, 147}, {1300, 876, 1887}, {876, 1300, 1887}} {
		if n, err := r.Tokens(c.w, c.h); err != nil || n != c.want {
			t.Errorf("%s %dx%d: %d (%v), want %d", r.Name(), c.w, c.h, n, err, c.want)
		}
	}
}

// internVL3HF is OpenGVLab/InternVL3-1B-hf's configuration as the repository publishes it
// (vision_config's sizes as lists, crop_to_patches false, which the processor overrides).
var internVL3HF = map[string]string{
	"config.json":              `{"model_type": "internvl", "downsample_ratio": 0.5, "vision_feature_select_strategy": "default", "vision_config": {"image_size": [448, 448], "patch_size": [14, 14], "model_type": "internvl_vision"}}`,
	"preprocessor_config.json": `{"crop_to_patches": false, "image_processor_type": "GotOcr2ImageProcessorFast", "max_patches": 12, "min_patches": 1, "processor_class": "InternVLProcessor", "size": {"height": 448, "width": 448}}`,
	"processor_config.json":    `{"image_seq_length": 256, "processor_class": "InternVLProcessor"}`,
}

// TestInternVL reproduces transformers' test_crop_to_patches
// (huggingface/transformers@01c4344314a2417e79182b9d5339615fe5bd9cf0
// tests/models/got_ocr2/test_image_processing_got_ocr2.py): a 400×400 image, 20×20 patches, 1
// to 6 of them and the thumbnail is 5 (the 2×2 grid, ties to the more tiles while the image
// covers over half, 3×3 over 6); and vLLM's test_input_mapper_override
// (vllm-project/vllm@061d97b2c6d03ee51c9ef420d3b9b9e77b5909d6
// tests/models/multimodal/processing/test_internvl.py, OpenGVLab/InternVL2-2B): an 896×896
// image is max_dynamic_patch + 1 tiles, 5 with 4, 1 with 1, and 1 with dynamic_image_size
// false; 256 tokens each plus <img>, </img> and "\n". Then InternVL3-1B-hf's values on
// 1300×876, worked by hand: 3×2 (ratio 1.5) is nearest 1.484 among at most 12 tiles, so 6
// tiles and the thumbnail: 7·256 + 3.
func TestInternVL(t *testing.T) {
	if n := (InternVL{TileW: 20, TileH: 20, MinTiles: 1, MaxTiles: 6, Thumbnail: true}).Tiles(400, 400); n != 5 {
		t.Errorf("test_crop_to_patches: %d tiles, want 5", n)
	}
	count := func(s string) int { return strings.Count(s, "<") + strings.Count(s, "\n") }
	chat := func(extra string) map[string]string {
		return map[string]string{"config.json": `{"model_type": "internvl_chat", "force_image_size": 448, "downsample_ratio": 0.5, "min_dynamic_patch": 1, "use_thumbnail": true, "template": "internlm2-chat", "vision_config": {"image_size": 448, "patch_size": 14}` + extra + `}`}
	}
	for _, c := range []struct {
		name  string
		files map[string]string
		w, h  int
		tiles int
	}{
		{"max_dynamic_patch 4", chat(`, "max_dynamic_patch": 4, "dynamic_image_size": true`), 896, 896, 5},
		{"max_dynamic_patch 1", chat(`, "max_dynamic_patch": 1, "dynamic_image_size": true`), 896, 896, 1},
		{"dynamic_image_size false", chat(`, "max_dynamic_patch": 4, "dynamic_image_size": false`), 896, 896, 1},
		{"InternVL3-1B-hf", internVL3HF, 1300, 876, 7},
	} {
		r, err := Load(writeFolder(t, c.files), count)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if n, err := r.Tokens(c.w, c.h); err != nil || n != c.tiles*256+3 {
			t.Errorf("%s (%s) %dx%d: %d (%v), want %d tiles: %d", c.name, r.Name(), c.w, c.h, n, err, c.tiles, c.tiles*256+3)
		}
	}
}

// TestPhi3V reproduces vLLM's test_processor_override
// (vllm-project/vllm@4bbff31b83b9a29cd0a5a889b21541b028f9e3e0
// tests/models/multimodal/processing/test_phi3v.py, microsoft/Phi-3.5-vision-instruct): its
// 1300×876 image asset is 757 image tokens with num_crops 4 (the model's own) and 1921 with
// 16; our count adds the "\n" vLLM writes after the placeholder. Turned portrait the 16-crop
// image is 4 crops down, not 3: a newline row more, 1933.
func TestPhi3V(t *testing.T) {
	for _, c := range []struct{ crops, w, h, want int }{{4, 1300, 876, 757}, {16, 1300, 876, 1921}, {4, 876, 1300, 757}, {16, 876, 1300, 1933}} {
		dir := writeFolder(t, map[string]string{
			"config.json":              `{"model_type": "phi3_v", "img_processor": {"image_dim_out": 1024, "num_img_tokens": 144}}`,
			"preprocessor_config.json": fmt.Sprintf(`{"num_crops": %d, "image_processor_type": "Phi3VImageProcessor"}`, c.crops),
		})
		r, err := Load(dir, func(s string) int { return len(s) })
		if err != nil {
			t.Fatal(err)
		}
		if n, err := r.Tokens(c.w, c.h); err != nil || n != c.want+1 {
			t.Errorf("num_crops %d %dx%d: %d (%v), want %d + 1", c.crops, c.w, c.h, n, err, c.want)
		}
	}
	if _, err := (Phi3V{NumCrops: 4}).Tokens(100000, 10); err == nil {
		t.Error("100000x10: no error, want the HD transform's 0-pixel side refused")
	}
}

// TestPhi4MM reproduces vLLM's test_processor_override
// (vllm-project/vllm@2b506aa7270c3dc184030d45ff168abeac1e61d5
// tests/models/multimodal/processing/test_phi4mm.py, microsoft/Phi-4-multimodal-instruct): a
// 3136×3136 image (7 crops a side) is 1329 tokens with dynamic_hd 4, 4433 with 16 and 9585
// with 36 (the model's own), each the nearest square grid (2, 4, 6 a side) and no padding;
// and transformers' test_dynamic_hd_kwarg_passed_to_image_processor
// (huggingface/transformers@11747790897744b727a39cf446f30a238cd95f74
// tests/models/phi4_multimodal/test_processing_phi4_multimodal.py): 1000×1000 is 9 crops and
// the global (10) by default, 4 and the global (5) with dynamic_hd 4. Our count adds the "\n"
// vLLM writes after the placeholder.
func TestPhi4MM(t *testing.T) {
	for _, c := range []struct{ hd, want int }{{4, 1329}, {16, 4433}, {36, 9585}} {
		for _, family := range []string{
			`{"model_type": "phi4mm", "embd_layer": {"image_embd_layer": {"crop_size": 448}}}`,
			`{"model_type": "phi4_multimodal", "vision_config": {"crop_size": 448, "image_size": 448, "patch_size": 14}}`,
		} {
			dir := writeFolder(t, map[string]string{
				"config.json":              family,
				"preprocessor_config.json": fmt.Sprintf(`{"dynamic_hd": %d}`, c.hd),
			})
			r, err := Load(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			if n, err := r.Tokens(3136, 3136); err != nil || n != c.want+1 {
				t.Errorf("%s 3136x3136: %d (%v), want %d + 1", r.Name(), n, err, c.want)
			}
		}
	}
	for hd, want := range map[int]int{36: 9, 4: 4} {
		if cols, rows := (Phi4MM{Crop: 448, Patch: 14, HD: hd}).Grid(1000, 1000); cols*rows != want {
			t.Errorf("dynamic_hd %d, 1000x1000: %dx%d crops, want %d", hd, cols, rows, want)
		}
	}
	if _, err := (Phi4MM{Crop: 448, Patch: 14, HD: 36}).Tokens(20000, 10); err == nil {
		t.Error("20000x10: no error, want the processor's extreme-aspect refusal")
	}
}
