package media

import (
	"fmt"
	"path/filepath"
)

// internvl.go is InternVL's image count (InternVL2, 2.5 and 3): the image is cut into tiles of
// the vision tower's side (448), on the grid of at least min and at most max tiles whose
// columns/rows ratio is nearest the image's width/height, a tie going to the later grid while
// the image's area is over half the grid's; when there is more than one tile a thumbnail of the
// whole image is one more. Every tile is image_seq_length <IMG_CONTEXT> tokens (256: (448/14)²
// after a 0.5 pixel shuffle), all between <img> and </img>.
//
// Transformers' own InternVLProcessor (model_type internvl) tiles with GotOcr2's image
// processor, crop_to_patches always on (the processor's images_kwargs default, whatever
// preprocessor_config.json says) and a thumbnail always added. Sources:
// huggingface/transformers@024fd4ce2d70431f862b944832c3fde9f8303164
// src/transformers/models/internvl/processing_internvl.py (crop_to_patches True,
// image_seq_length 256, _get_num_multimodal_tokens: 2 + image_seq_length·patches) and
// huggingface/transformers@0b97ca8d385723d268f5566778e458d0c51213d5
// src/transformers/models/got_ocr2/image_processing_got_ocr2.py
// (get_all_supported_aspect_ratios, get_optimal_tiled_canvas, get_number_of_image_patches;
// the defaults size 384×384, min_patches 1, max_patches 12). Its chat template writes an image
// part as the placeholder and "\n" (huggingface/transformers@015d3b273cbc4a72f2feb1da386896655a23b3da
// src/transformers/models/internvl/convert_internvl_weights_to_hf.py), so the "\n" after
// </img> is the image's too.
//
// The remote-code models (model_type internvl_chat) read the same from config.json:
// force_image_size or vision_config.image_size, vision_config.patch_size and
// downsample_ratio (int((448//14)²·0.5²) = 256 tokens a tile), min_dynamic_patch,
// max_dynamic_patch and use_thumbnail; one tile when dynamic_image_size is false. Sources:
// vllm-project/vllm@004202bcd1659591e9071bde1a09594004b346f9
// vllm/model_executor/models/internvl.py (calculate_num_blocks, find_closest_aspect_ratio,
// input_processor_for_internvl: <img> + <IMG_CONTEXT>·n + </img> for "<image>"), the config's
// defaults from OpenGVLab/InternVL@016ae21f18dbec7efdbf91d96de1febb6626a561
// internvl_chat/internvl/model/internvl_chat/configuration_internvl_chat.py (downsample_ratio
// 0.5, dynamic_image_size and use_thumbnail false, min 1, max 6 tiles). Their chat template
// takes text only; vLLM writes each image's "<image>" before the message's text with "\n"
// after it (vllm-project/vllm@bd5ec6d50b83652c21a570b81c1fb5219a6ebf76
// vllm/entrypoints/chat_utils.py, _get_full_multimodal_text_prompt), the same "\n".
//
// The grids are tried by tile count, and within a count in transformers' order (columns, then
// rows); vLLM and the remote code order a count's grids as Python iterates a set. The order
// decides only an exact tie of two grids of one count, which a grid of fewer tiles always
// beats when min is 1 (1×1 is nearer the midpoint of c/r and r/c).

// InternVL is the dynamic-tiles rule with its processor's values.
type InternVL struct {
	Family             string
	TileW, TileH       int
	MinTiles, MaxTiles int
	Thumbnail          bool
	PerTile            int // <IMG_CONTEXT> tokens a tile
	// Wrap is the tokens of <img>, </img> and the "\n" after as the model's tokenizer
	// encodes them (3 when no counter is given).
	Wrap int
}

func loadInternVL(dir string, count Counter) (Rule, error) {
	var pre struct {
		Size *struct {
			Height, Width int
		} `json:"size"`
		MinPatches *int `json:"min_patches"`
		MaxPatches *int `json:"max_patches"`
	}
	if _, err := readJSON(dir, "preprocessor_config.json", &pre); err != nil {
		return nil, err
	}
	var proc struct {
		ImageSeqLength *int `json:"image_seq_length"`
	}
	if _, err := readJSON(dir, "processor_config.json", &proc); err != nil {
		return nil, err
	}
	r := InternVL{Family: "internvl", TileW: 384, TileH: 384, MinTiles: 1, MaxTiles: 12, Thumbnail: true, PerTile: 256}
	if pre.Size != nil {
		r.TileW, r.TileH = pre.Size.Width, pre.Size.Height
	}
	setInt(&r.MinTiles, pre.MinPatches)
	setInt(&r.MaxTiles, pre.MaxPatches)
	setInt(&r.PerTile, proc.ImageSeqLength)
	return r.checked(filepath.Join(dir, "preprocessor_config.json"), count)
}

func loadInternVLChat(dir string, cfg modelConfig, count Counter) (Rule, error) {
	side := cfg.VisionConfig.ImageSize
	if cfg.ForceImageSize != nil {
		side = cfg.ForceImageSize
	}
	if side == nil || cfg.VisionConfig.PatchSize == nil || *cfg.VisionConfig.PatchSize <= 0 {
		return nil, fmt.Errorf("%s: internvl_chat without vision_config's image_size and patch_size: %w", filepath.Join(dir, "config.json"), ErrNoRule)
	}
	ratio := 0.5
	if cfg.DownsampleRatio != nil {
		ratio = *cfg.DownsampleRatio
	}
	per := *side / *cfg.VisionConfig.PatchSize
	r := InternVL{Family: "internvl_chat", TileW: *side, TileH: *side, MinTiles: 1, MaxTiles: 6,
		PerTile: int(float64(per*per) * (ratio * ratio))}
	setInt(&r.MinTiles, cfg.MinDynamicPatch)
	setInt(&r.MaxTiles, cfg.MaxDynamicPatch)
	if cfg.UseThumbnail != nil {
		r.Thumbnail = *cfg.UseThumbnail
	}
	if cfg.DynamicImageSize != nil && !*cfg.DynamicImageSize {
		r.MinTiles, r.MaxTiles = 1, 1
	}
	return r.checked(filepath.Join(dir, "config.json"), count)
}

// checked refuses values no processor could use and counts the wrapper.
func (r InternVL) checked(file string, count Counter) (Rule, error) {
	if r.TileW <= 0 || r.TileH <= 0 || r.MinTiles < 1 || r.MaxTiles < r.MinTiles || r.PerTile <= 0 {
		return nil, fmt.Errorf("%s: %s tile %dx%d, %d..%d tiles, %d tokens a tile: not a usable processor configuration",
			file, r.Family, r.TileW, r.TileH, r.MinTiles, r.MaxTiles, r.PerTile)
	}
	r.Wrap = 3
	if count != nil {
		r.Wrap = count("<img></img>\n")
	}
	return r, nil
}

func (r InternVL) Name() string {
	return fmt.Sprintf("%s dynamic tiles (%dx%d, %d..%d, %d tokens a tile)", r.Family, r.TileW, r.TileH, r.MinTiles, r.MaxTiles, r.PerTile)
}

func (r InternVL) Tokens(width, height int) (int, error) {
	if width <= 0 || height <= 0 {
		return 0, fmt.Errorf("image size %dx%d: both sides must be positive", width, height)
	}
	return r.Tiles(width, height)*r.PerTile + r.Wrap, nil
}

// Tiles is the tiles a width×height image is cut into, the thumbnail counted.
func (r InternVL) Tiles(width, height int) int {
	if r.MaxTiles <= 1 { // crop_to_patches needs max_patches over 1
		return 1
	}
	cols, rows := closestGrid(width, height, r.TileW, r.TileH, r.MinTiles, r.MaxTiles)
	n := cols * rows
	if r.Thumbnail && n > 1 {
		n++
	}
	return n
}

// closestGrid is get_optimal_tiled_canvas (InternVL's and Phi-4-multimodal's
// find_closest_aspect_ratio): the columns and rows, between minTiles and maxTiles tiles, whose
// ratio is nearest the image's; of two as near, the later while the image's area is over half
// the grid's.
func closestGrid(width, height, tileW, tileH, minTiles, maxTiles int) (cols, rows int) {
	aspect := float64(width) / float64(height)
	area := float64(width) * float64(height)
	best, cols, rows := 0.0, 1, 1
	first := true
	for n := 1; n <= maxTiles; n++ {
		if n < minTiles {
			continue
		}
		for c := 1; c <= n; c++ {
			if n%c != 0 {
				continue
			}
			r := n / c
			d := aspect - float64(c)/float64(r)
			if d < 0 {
				d = -d
			}
			switch {
			case first || d < best:
				best, cols, rows, first = d, c, r, false
			case d == best && area > 0.5*float64(tileH)*float64(tileW)*float64(c*r):
				cols, rows = c, r
			}
		}
	}
	return cols, rows
}

// setInt sets *dst to *v when v is given.
func setInt(dst *int, v *int) {
	if v != nil {
		*dst = *v
	}
}
