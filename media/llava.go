package media

import (
	"encoding/json"
	"fmt"
	"path/filepath"
)

// llava.go is LLaVA-1.5's image count: the image is resized and cropped to the processor's
// crop_size, the vision tower cuts it into patch_size patches, and the processor repeats
// <image> once per patch, plus one for the CLS feature unless vision_feature_select_strategy
// is "default" (which drops it): (336/14)² = 576 for llava-1.5. Source:
// huggingface/transformers@00174e827cb29e51df85fab01ef0e71f05127efe
// src/transformers/models/llava/processing_llava.py (num_image_tokens in __call__). The values
// come from preprocessor_config.json's crop_size and processor_config.json's patch_size and
// strategy, else config.json's vision_config.patch_size and vision_feature_select_strategy.

// LLaVA is the fixed grid rule.
type LLaVA struct {
	CropH, CropW, Patch int
	DropCLS             bool
}

// cropSize reads crop_size: {"height": H, "width": W}, or one number for both (older files).
type cropSize struct{ H, W int }

func (c *cropSize) UnmarshalJSON(b []byte) error {
	var n int
	if json.Unmarshal(b, &n) == nil {
		c.H, c.W = n, n
		return nil
	}
	var hw struct{ Height, Width int }
	if err := json.Unmarshal(b, &hw); err != nil {
		return err
	}
	c.H, c.W = hw.Height, hw.Width
	return nil
}

func loadLLaVA(dir string, cfg modelConfig) (Rule, error) {
	var pre struct {
		CropSize *cropSize `json:"crop_size"`
	}
	if _, err := readJSON(dir, "preprocessor_config.json", &pre); err != nil {
		return nil, err
	}
	var proc struct {
		PatchSize *int    `json:"patch_size"`
		Strategy  *string `json:"vision_feature_select_strategy"`
	}
	if _, err := readJSON(dir, "processor_config.json", &proc); err != nil {
		return nil, err
	}
	r := LLaVA{DropCLS: cfg.VisionFeatureSelectStrategy == "default"}
	if proc.Strategy != nil {
		r.DropCLS = *proc.Strategy == "default"
	}
	switch {
	case proc.PatchSize != nil:
		r.Patch = *proc.PatchSize
	case cfg.VisionConfig.PatchSize != nil:
		r.Patch = *cfg.VisionConfig.PatchSize
	}
	if pre.CropSize != nil {
		r.CropH, r.CropW = pre.CropSize.H, pre.CropSize.W
	} else if cfg.VisionConfig.ImageSize != nil {
		r.CropH, r.CropW = *cfg.VisionConfig.ImageSize, *cfg.VisionConfig.ImageSize
	}
	if r.Patch <= 0 || r.CropH <= 0 || r.CropW <= 0 {
		return nil, fmt.Errorf("%s: llava without crop_size (preprocessor_config.json) and patch_size: %w", filepath.Join(dir, "config.json"), ErrNoRule)
	}
	return r, nil
}

func (r LLaVA) Name() string {
	return fmt.Sprintf("llava (%dx%d crop, patch %d)", r.CropW, r.CropH, r.Patch)
}

func (r LLaVA) Tokens(width, height int) (int, error) {
	if width <= 0 || height <= 0 {
		return 0, fmt.Errorf("image size %dx%d: both sides must be positive", width, height)
	}
	n := (r.CropH/r.Patch)*(r.CropW/r.Patch) + 1
	if r.DropCLS {
		n--
	}
	return n, nil
}
