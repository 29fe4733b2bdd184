package media

import (
	"fmt"
	"math"
	"path/filepath"
)

// llavanext.go is LLaVA-NeXT's ("anyres") image count. The processor picks, among
// image_grid_pinpoints, the resolution that keeps the most of the image's pixels and wastes
// the fewest (select_best_resolution), tiles it with crop-sized tiles, and counts the tiles'
// patches with the padding around the resized image taken off (unpadded features), one newline
// feature a row of them, and the base image's patches; "default" feature selection drops one
// (the CLS). Sources: huggingface/transformers@81bb907ccf3494b5409b0b745bb10c8a617050b7
// src/transformers/models/llava_next/processing_llava_next.py (_get_number_of_features,
// _get_unpadded_features) and src/transformers/image_processing_utils.py
// (select_best_resolution); as current transformers has it, the unpadded side is
// int(round(side·scale, 7)) and "default" takes off one token whatever
// num_additional_image_tokens says. Its tests: llava-hf/llava-v1.6-vicuna-7b-hf and a
// 500×316 (height×width) image give 1526 (tests/models/llava_next/test_processor_llava_next.py
// @ 11065c9bcada6946a73b0d9aace4828b8051a0d1, test_image_token_filling); current transformers'
// test gives 1525 for 503×316 with the single pinpoint [672, 336] and no additional tokens.

// LLaVANeXT is the anyres rule with its processor's values.
type LLaVANeXT struct {
	Patch      int      // the vision tower's patch (14)
	TileH      int      // the processed tile: crop_size (336)
	TileW      int      //
	Pinpoints  [][2]int // [height, width] each
	Additional int      // num_additional_image_tokens (1: the CLS)
	Default    bool     // vision_feature_select_strategy "default"
}

func loadLLaVANeXT(dir string, cfg modelConfig) (Rule, error) {
	var pre struct {
		CropSize  *cropSize `json:"crop_size"`
		Pinpoints [][2]int  `json:"image_grid_pinpoints"`
		Size      *struct {
			ShortestEdge *int `json:"shortest_edge"`
		} `json:"size"`
	}
	if _, err := readJSON(dir, "preprocessor_config.json", &pre); err != nil {
		return nil, err
	}
	var proc struct {
		PatchSize  *int    `json:"patch_size"`
		Strategy   *string `json:"vision_feature_select_strategy"`
		Additional *int    `json:"num_additional_image_tokens"`
	}
	if _, err := readJSON(dir, "processor_config.json", &proc); err != nil {
		return nil, err
	}
	r := LLaVANeXT{Pinpoints: pre.Pinpoints, Default: cfg.VisionFeatureSelectStrategy == "default"}
	if len(r.Pinpoints) == 0 {
		r.Pinpoints = cfg.ImageGridPinpoints
	}
	if proc.Strategy != nil {
		r.Default = *proc.Strategy == "default"
	}
	if proc.Additional != nil {
		r.Additional = *proc.Additional
	}
	switch {
	case proc.PatchSize != nil:
		r.Patch = *proc.PatchSize
	case cfg.VisionConfig.PatchSize != nil:
		r.Patch = *cfg.VisionConfig.PatchSize
	}
	switch {
	case pre.CropSize != nil:
		r.TileH, r.TileW = pre.CropSize.H, pre.CropSize.W
	case pre.Size != nil && pre.Size.ShortestEdge != nil:
		r.TileH, r.TileW = *pre.Size.ShortestEdge, *pre.Size.ShortestEdge
	}
	if r.Patch <= 0 || r.TileH <= 0 || r.TileW <= 0 || len(r.Pinpoints) == 0 {
		return nil, fmt.Errorf("%s: llava_next without crop_size, image_grid_pinpoints and patch_size: %w", filepath.Join(dir, "preprocessor_config.json"), ErrNoRule)
	}
	return r, nil
}

func (r LLaVANeXT) Name() string {
	return fmt.Sprintf("llava_next anyres (%dx%d tiles, patch %d, %d pinpoints)", r.TileW, r.TileH, r.Patch, len(r.Pinpoints))
}

func (r LLaVANeXT) Tokens(width, height int) (int, error) {
	if width <= 0 || height <= 0 {
		return 0, fmt.Errorf("image size %dx%d: both sides must be positive", width, height)
	}
	bestH, bestW := r.bestResolution(height, width)
	ph, pw := r.TileH/r.Patch, r.TileW/r.Patch
	curH, curW := ph*(bestH/r.TileH), pw*(bestW/r.TileW)
	if float64(width)/float64(height) > float64(curW)/float64(curH) {
		newH := int(roundTo7(float64(height) * (float64(curW) / float64(width))))
		curH -= (curH - newH) / 2 * 2
	} else {
		newW := int(roundTo7(float64(width) * (float64(curH) / float64(height))))
		curW -= (curW - newW) / 2 * 2
	}
	n := curH*curW + curH + ph*pw + r.Additional
	if r.Default {
		n--
	}
	return n, nil
}

// bestResolution is select_best_resolution: the pinpoint keeping the most of the image's
// pixels when it is scaled to fit, ties to the one wasting the fewest.
func (r LLaVANeXT) bestResolution(height, width int) (int, int) {
	var bestH, bestW int
	most, least := 0, math.MaxInt
	for _, p := range r.Pinpoints {
		h, w := p[0], p[1]
		scale := math.Min(float64(w)/float64(width), float64(h)/float64(height))
		dw, dh := int(float64(width)*scale), int(float64(height)*scale)
		eff := min(dw*dh, width*height)
		waste := w*h - eff
		if eff > most || (eff == most && waste < least) {
			most, least, bestH, bestW = eff, waste, h, w
		}
	}
	return bestH, bestW
}

// roundTo7 is Python's round(x, 7) closely enough for a count (the int() after it truncates).
func roundTo7(x float64) float64 { return math.Round(x*1e7) / 1e7 }
