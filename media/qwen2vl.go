package media

import (
	"fmt"
	"math"
	"path/filepath"
)

// qwen2vl.go is Qwen2-VL's and Qwen2.5-VL's image count. The processor resizes an image with
// smart_resize to a multiple of factor = patch_size·merge_size on each side, the area within
// [min_pixels, max_pixels], then cuts it into patch_size patches merged merge_size² at a time:
// (h/patch)·(w/patch)/merge² placeholder tokens (<|image_pad|>), between <|vision_start|> and
// <|vision_end|>, which the chat template writes around each image. Source:
// huggingface/transformers@cb0fc56f3caccab77d00d44051a67d4b0980cbd2
// src/transformers/models/qwen2_vl/image_processing_qwen2_vl.py (smart_resize, _preprocess's
// grid, the defaults min_pixels 56·56, max_pixels 28·28·1280, patch 14, merge 2, and size's
// shortest_edge/longest_edge overridden by min_pixels/max_pixels); as current transformers has
// it, a side under the factor is accepted (the area's clamp sizes it; the max_pixels branch
// keeps each side at least the factor) and only an aspect ratio over 200 refused. Python's round() rounds half to even, and the arithmetic is IEEE doubles in
// the same order, so the sizes match bit for bit. vLLM's own test of the count:
// vllm-project/vllm@028611b33fd53f7df1d51126478e2d6fed8a5e53
// tests/models/multimodal/processing/test_qwen2_vl.py (1426 tokens with Qwen2-VL-2B-Instruct's
// config, 330 with max_pixels 512²).

// qwenPreprocessor is what Qwen2-VL's rule reads of preprocessor_config.json.
type qwenPreprocessor struct {
	PatchSize *int `json:"patch_size"`
	MergeSize *int `json:"merge_size"`
	MinPixels *int `json:"min_pixels"`
	MaxPixels *int `json:"max_pixels"`
	Size      *struct {
		ShortestEdge *int `json:"shortest_edge"`
		LongestEdge  *int `json:"longest_edge"`
	} `json:"size"`
}

// Qwen2VL is the smart_resize rule with its processor's values.
type Qwen2VL struct {
	Family                             string
	Patch, Merge, MinPixels, MaxPixels int
	// Wrap is the tokens of <|vision_start|> and <|vision_end|> around the pads as the model's
	// tokenizer encodes them: 2, both special tokens (2 when no counter is given).
	Wrap int
}

func loadQwen2VL(dir, family string, count Counter) (Rule, error) {
	var p qwenPreprocessor
	if _, err := readJSON(dir, "preprocessor_config.json", &p); err != nil {
		return nil, err
	}
	r := Qwen2VL{Family: family, Patch: 14, Merge: 2, MinPixels: 56 * 56, MaxPixels: 28 * 28 * 1280, Wrap: 2}
	if p.Size != nil && p.Size.ShortestEdge != nil && p.Size.LongestEdge != nil {
		r.MinPixels, r.MaxPixels = *p.Size.ShortestEdge, *p.Size.LongestEdge
	}
	set := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	set(&r.Patch, p.PatchSize)
	set(&r.Merge, p.MergeSize)
	set(&r.MinPixels, p.MinPixels)
	set(&r.MaxPixels, p.MaxPixels)
	if count != nil {
		r.Wrap = count("<|vision_start|><|vision_end|>")
	}
	if r.Patch <= 0 || r.Merge <= 0 || r.MinPixels <= 0 || r.MaxPixels < r.MinPixels {
		return nil, fmt.Errorf("%s: patch_size %d, merge_size %d, min_pixels %d, max_pixels %d: not a usable processor configuration",
			filepath.Join(dir, "preprocessor_config.json"), r.Patch, r.Merge, r.MinPixels, r.MaxPixels)
	}
	return r, nil
}

func (r Qwen2VL) Name() string {
	return fmt.Sprintf("%s smart_resize (patch %d, merge %d, pixels %d..%d)", r.Family, r.Patch, r.Merge, r.MinPixels, r.MaxPixels)
}

// Tokens is the pads of the resized image plus the two wrapper tokens.
func (r Qwen2VL) Tokens(width, height int) (int, error) {
	h, w, err := SmartResize(height, width, r.Patch*r.Merge, r.MinPixels, r.MaxPixels)
	if err != nil {
		return 0, err
	}
	return (h/r.Patch)*(w/r.Patch)/(r.Merge*r.Merge) + r.Wrap, nil
}

// SmartResize is transformers' smart_resize: the height and width an image is resized to.
func SmartResize(height, width, factor, minPixels, maxPixels int) (int, int, error) {
	if height <= 0 || width <= 0 {
		return 0, 0, fmt.Errorf("image size %dx%d: both sides must be positive", width, height)
	}
	if float64(max(height, width))/float64(min(height, width)) > 200 {
		return 0, 0, fmt.Errorf("image size %dx%d: the processor refuses an aspect ratio over 200", width, height)
	}
	f := float64(factor)
	// A side under half the factor rounds to 0 here; the area is then under min_pixels, and
	// the min_pixels branch sizes it, as in transformers.
	hBar := int(math.RoundToEven(float64(height)/f)) * factor
	wBar := int(math.RoundToEven(float64(width)/f)) * factor
	switch {
	case hBar*wBar > maxPixels:
		beta := math.Sqrt(float64(height*width) / float64(maxPixels))
		hBar = max(factor, int(math.Floor(float64(height)/beta/f))*factor)
		wBar = max(factor, int(math.Floor(float64(width)/beta/f))*factor)
	case hBar*wBar < minPixels:
		beta := math.Sqrt(float64(minPixels) / float64(height*width))
		hBar = int(math.Ceil(float64(height)*beta/f)) * factor
		wBar = int(math.Ceil(float64(width)*beta/f)) * factor
	}
	return hBar, wBar, nil
}
