package media

import (
	"fmt"
	"math"
	"path/filepath"
)

// llama4.go is Llama 4's image count. The image processor lists every canvas of at most
// max_patches tiles of size×size (find_supported_resolutions), picks the one the image fits
// best without distortion (get_best_fit: the smallest scale at or above 1, else the largest
// below it, in float32 as torch divides the int64 canvas sides; ties to the smallest area),
// cuts it into tiles and adds a global tile when there is more than one. The processor gives
// each tile (size/patch_size)²/round(1/pixel_shuffle_ratio²) <|patch|> tokens (144 for 336,
// 14 and 0.5) and writes, by _prompt_split_image: <|image_start|>, then, for more than one
// tile, each row's tiles with <|tile_x_separator|> between them and <|tile_y_separator|> after
// the row, then <|image|> and the global tile's patches, then <|image_end|>. The chat template
// writes <|image|> for an image part, which the processor replaces by that whole string.
// Sources: huggingface/transformers@01ad83adc51579a481843f370028b10956a04dd1
// src/transformers/models/llama4/processing_llama4.py (_prompt_split_image, __call__'s
// num_patches_per_chunk, the defaults patch_size 14 and pixel_shuffle_ratio 0.5) and
// huggingface/transformers@0331fb368bad57dab00bf78d52d077ef6115ed27
// src/transformers/models/llama4/image_processing_llama4_fast.py (find_supported_resolutions,
// get_best_fit, _preprocess's global tile; the defaults size 336×336, max_patches 16,
// resize_to_max_canvas false). The patch size and shuffle ratio are read as vLLM reads them,
// from config.json's vision_config, with processor_config.json's over them as Hugging Face's
// processor takes them.

// Llama4 is the tiled-canvas rule with its processor's values.
type Llama4 struct {
	Tile, MaxPatches int
	ToMaxCanvas      bool // resize_to_max_canvas: the largest upscaling canvas, not the smallest
	PerTile          int  // <|patch|> tokens a tile
	// The tokens of the markers as the model's tokenizer encodes them (1 each, all special;
	// 1 each when no counter is given): Wrap is <|image_start|>, <|image|> and <|image_end|>.
	Wrap, Patch, XSep, YSep int
}

func loadLlama4(dir string, cfg modelConfig, count Counter) (Rule, error) {
	var pre struct {
		Size *struct {
			Height, Width int
		} `json:"size"`
		MaxPatches  *int  `json:"max_patches"`
		ToMaxCanvas *bool `json:"resize_to_max_canvas"`
	}
	if _, err := readJSON(dir, "preprocessor_config.json", &pre); err != nil {
		return nil, err
	}
	var proc struct {
		PatchSize *int     `json:"patch_size"`
		Ratio     *float64 `json:"pixel_shuffle_ratio"`
	}
	if _, err := readJSON(dir, "processor_config.json", &proc); err != nil {
		return nil, err
	}
	r := Llama4{Tile: 336, MaxPatches: 16}
	patch, ratio := 14, 0.5
	if cfg.VisionConfig.PatchSize != nil {
		patch = *cfg.VisionConfig.PatchSize
	}
	if cfg.VisionConfig.PixelShuffleRatio != nil {
		ratio = *cfg.VisionConfig.PixelShuffleRatio
	}
	if proc.PatchSize != nil {
		patch = *proc.PatchSize
	}
	if proc.Ratio != nil {
		ratio = *proc.Ratio
	}
	if pre.Size != nil {
		if pre.Size.Height != pre.Size.Width {
			return nil, fmt.Errorf("%s: llama4 size %dx%d: the processor takes square tiles only", filepath.Join(dir, "preprocessor_config.json"), pre.Size.Width, pre.Size.Height)
		}
		r.Tile = pre.Size.Height
	}
	if pre.MaxPatches != nil {
		r.MaxPatches = *pre.MaxPatches
	}
	if pre.ToMaxCanvas != nil {
		r.ToMaxCanvas = *pre.ToMaxCanvas
	}
	down := int(math.RoundToEven(1 / (ratio * ratio)))
	if r.Tile <= 0 || r.MaxPatches <= 0 || patch <= 0 || down <= 0 {
		return nil, fmt.Errorf("%s: llama4 size %d, max_patches %d, patch_size %d, pixel_shuffle_ratio %g: not a usable processor configuration",
			filepath.Join(dir, "preprocessor_config.json"), r.Tile, r.MaxPatches, patch, ratio)
	}
	r.PerTile = (r.Tile / patch) * (r.Tile / patch) / down
	r.Wrap, r.Patch, r.XSep, r.YSep = 3, 1, 1, 1
	if count != nil {
		r.Wrap = count("<|image_start|>") + count("<|image|>") + count("<|image_end|>")
		r.Patch, r.XSep, r.YSep = count("<|patch|>"), count("<|tile_x_separator|>"), count("<|tile_y_separator|>")
	}
	return r, nil
}

func (r Llama4) Name() string {
	return fmt.Sprintf("llama4 tiles (%d px, at most %d, %d patch tokens a tile)", r.Tile, r.MaxPatches, r.PerTile)
}

// Tokens is _prompt_split_image's string for the image's canvas, counted.
func (r Llama4) Tokens(width, height int) (int, error) {
	if width <= 0 || height <= 0 {
		return 0, fmt.Errorf("image size %dx%d: both sides must be positive", width, height)
	}
	rows, cols := r.Canvas(width, height)
	n := r.Wrap + r.PerTile*r.Patch // the global (or only) tile
	if rows*cols > 1 {
		n += rows*cols*r.PerTile*r.Patch + rows*(cols-1)*r.XSep + rows*r.YSep
	}
	return n, nil
}

// Canvas is get_best_fit's canvas for a width×height image, in tiles down and across.
func (r Llama4) Canvas(width, height int) (rows, cols int) {
	canvases := llama4Canvases(r.MaxPatches)
	scales := make([]float32, len(canvases))
	up, down := float32(math.Inf(1)), float32(math.Inf(-1))
	if r.ToMaxCanvas {
		up = float32(math.Inf(-1))
	}
	anyUp := false
	for i, c := range canvases {
		// torch divides the int64 sides by a Python int in float32, the default dtype.
		sh := float32(c[0]*r.Tile) / float32(height)
		sw := float32(c[1]*r.Tile) / float32(width)
		s := min(sh, sw)
		scales[i] = s
		switch {
		case s >= 1 && r.ToMaxCanvas:
			up, anyUp = max(up, s), true
		case s >= 1:
			up, anyUp = min(up, s), true
		default:
			down = max(down, s)
		}
	}
	pick := down
	if anyUp {
		pick = up
	}
	best := -1
	for i, c := range canvases {
		if scales[i] == pick && (best < 0 || c[0]*c[1] < canvases[best][0]*canvases[best][1]) {
			best = i
		}
	}
	return canvases[best][0], canvases[best][1]
}

// llama4Canvases is find_supported_resolutions in tiles: [rows, columns] of every canvas of at
// most maxTiles tiles, grouped by aspect ratio in the order the ratios first appear, counting
// the tiles down from maxTiles and each count's factors up.
func llama4Canvases(maxTiles int) [][2]int {
	var order []float64
	groups := map[float64][][2]int{}
	for n := maxTiles; n >= 1; n-- {
		for f := 1; f <= n; f++ {
			if n%f != 0 {
				continue
			}
			ratio := float64(f) / float64(n/f)
			if _, ok := groups[ratio]; !ok {
				order = append(order, ratio)
			}
			groups[ratio] = append(groups[ratio], [2]int{f, n / f})
		}
	}
	var out [][2]int
	for _, ratio := range order {
		out = append(out, groups[ratio]...)
	}
	return out
}
