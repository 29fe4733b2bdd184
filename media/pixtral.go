package media

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
)

// pixtral.go is Pixtral's image count (Pixtral-12B, and Mistral Small 3.1, whose vision tower
// merges 2×2 patches): an image over longest_edge is scaled down, aspect kept, each side
// floored; each side is then rounded up to whole patches of patch_size·spatial_merge_size; the
// processor writes [IMG] a patch, [IMG_BREAK] after each row and [IMG_END] in the last one's
// place: rows·(columns + 1) tokens. Sources: huggingface/transformers@9243e99d559dd84d476ff5c882c7c440d4de458c
// src/transformers/models/pixtral/processing_pixtral.py (__call__, _get_num_multimodal_tokens)
// and image_processing_pixtral.py's get_resize_output_image_size as current transformers has
// it (floor; c801cd786e2e8cd35767125b8a8e8c26538fb648 had ceil, which "can lead to surprising
// results"). Its processor test (tests/models/pixtral/test_processor_pixtral.py,
// test_processor_with_single_image): a 1300×876 image with longest_edge 30 and patch 16 is
// "[IMG][IMG][IMG_BREAK][IMG][IMG][IMG_END]", 6 tokens. Chosen by config.json's model_type
// llava with a pixtral vision_config, or mistral3.

// Pixtral is the patch-rows rule with its processor's values.
type Pixtral struct {
	Longest, Patch, Merge int
}

func loadPixtral(dir string, cfg modelConfig) (Rule, error) {
	var pre struct {
		Size *struct {
			LongestEdge *int `json:"longest_edge"`
		} `json:"size"`
		PatchSize json.RawMessage `json:"patch_size"`
	}
	if _, err := readJSON(dir, "preprocessor_config.json", &pre); err != nil {
		return nil, err
	}
	var proc struct {
		PatchSize *int `json:"patch_size"`
		Merge     *int `json:"spatial_merge_size"`
	}
	if _, err := readJSON(dir, "processor_config.json", &proc); err != nil {
		return nil, err
	}
	r := Pixtral{Longest: 1024, Patch: 16, Merge: 1} // PixtralImageProcessor's and PixtralProcessor's defaults
	if cfg.VisionConfig.PatchSize != nil {
		r.Patch = *cfg.VisionConfig.PatchSize
	}
	if cfg.SpatialMergeSize != nil {
		r.Merge = *cfg.SpatialMergeSize
	}
	if pre.Size != nil && pre.Size.LongestEdge != nil {
		r.Longest = *pre.Size.LongestEdge
	}
	if proc.PatchSize != nil {
		r.Patch = *proc.PatchSize
	}
	if proc.Merge != nil {
		r.Merge = *proc.Merge
	}
	if r.Longest <= 0 || r.Patch <= 0 || r.Merge <= 0 {
		return nil, fmt.Errorf("%s: pixtral longest_edge %d, patch_size %d, spatial_merge_size %d: not a usable processor configuration",
			filepath.Join(dir, "preprocessor_config.json"), r.Longest, r.Patch, r.Merge)
	}
	return r, nil
}

func (r Pixtral) Name() string {
	return fmt.Sprintf("pixtral (longest edge %d, patch %d, merge %d)", r.Longest, r.Patch, r.Merge)
}

func (r Pixtral) Tokens(width, height int) (int, error) {
	if width <= 0 || height <= 0 {
		return 0, fmt.Errorf("image size %dx%d: both sides must be positive", width, height)
	}
	h, w := height, width
	if ratio := math.Max(float64(h)/float64(r.Longest), float64(w)/float64(r.Longest)); ratio > 1 {
		h, w = int(math.Floor(float64(h)/ratio)), int(math.Floor(float64(w)/ratio))
	}
	p := r.Patch * r.Merge
	rows, cols := (max(h, 1)-1)/p+1, (max(w, 1)-1)/p+1
	return rows * (cols + 1), nil
}
