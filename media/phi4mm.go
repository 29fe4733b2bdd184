package media

import (
	"fmt"
	"math"
	"path/filepath"
)

// phi4mm.go is Phi-4-multimodal's image count (model_type phi4_multimodal in transformers,
// phi4mm in the remote code vLLM serves). Dynamic HD: an image of ceil(W/448)·ceil(H/448)
// crops of 448 at most dynamic_hd keeps that grid, else takes the grid of at most dynamic_hd
// crops nearest its aspect ratio (InternVL's choice, closestGrid); it is resized into the grid
// keeping its aspect and padded, and the patches (14) wholly of padding are masked off. The
// mask, every other row and column kept (the 2×2 token compression), gives the crops' tokens
// and a newline a row of them; the global image is (448/14/2)² tokens and a newline a row,
// with one separator: 256 + 1 + the mask's sum + its rows + 16 for 448 and 14. An image the
// resize leaves under 10 pixels a side is refused. Sources:
// huggingface/transformers@6a7031ae838f7ef1183d4aa84ba9368e2174a610
// src/transformers/models/phi4_multimodal/image_processing_phi4_multimodal_fast.py
// (dynamic_preprocess, _preprocess's num_img_tokens; the defaults size 448, patch_size 14,
// dynamic_hd 36) and huggingface/transformers@014c89e71000d8ac036964b76762c53338818bc2
// src/transformers/models/phi4_multimodal/processing_phi4_multimodal.py (the image token
// repeated num_img_tokens times); vLLM's own count of the remote code,
// vllm-project/vllm@01ab0ee84344bbf96b9c4b2cba6c14c0504b4a57
// vllm/model_executor/models/phi4mm.py (_compute_num_image_tokens: the same sums, the global
// tokens from the crop and patch sizes, the crop from config.json's
// embd_layer.image_embd_layer.crop_size). Its test: vllm-project/vllm@2b506aa7270c3dc184030d45ff168abeac1e61d5
// tests/models/multimodal/processing/test_phi4mm.py (a 3136×3136 image: 1329 tokens with
// dynamic_hd 4, 4433 with 16, 9585 with 36).
//
// The chat template takes text only: vLLM writes each image's placeholder before the
// message's text with "\n" after it (vllm-project/vllm@bd5ec6d50b83652c21a570b81c1fb5219a6ebf76
// vllm/entrypoints/chat_utils.py, _get_full_multimodal_text_prompt), so the "\n" is the
// image's too.

// Phi4MM is the dynamic-HD rule with its processor's values.
type Phi4MM struct {
	Family          string
	Crop, Patch, HD int
	// Wrap is the tokens of the "\n" after the image as the model's tokenizer encodes it (1
	// when no counter is given).
	Wrap int
}

func loadPhi4MM(dir string, cfg modelConfig, count Counter) (Rule, error) {
	var pre struct {
		DynamicHD *int `json:"dynamic_hd"`
		PatchSize *int `json:"patch_size"`
		ImageSize *int `json:"image_size"`
		Size      *struct {
			Height, Width int
		} `json:"size"`
	}
	if _, err := readJSON(dir, "preprocessor_config.json", &pre); err != nil {
		return nil, err
	}
	r := Phi4MM{Family: cfg.ModelType, Crop: 448, Patch: 14, HD: 36, Wrap: 1}
	setInt(&r.Crop, cfg.EmbdLayer.ImageEmbdLayer.CropSize)
	setInt(&r.Crop, pre.ImageSize)
	if pre.Size != nil {
		if pre.Size.Height != pre.Size.Width {
			return nil, fmt.Errorf("%s: %s size %dx%d: the processor takes square crops only", filepath.Join(dir, "preprocessor_config.json"), r.Family, pre.Size.Width, pre.Size.Height)
		}
		r.Crop = pre.Size.Height
	}
	setInt(&r.Patch, pre.PatchSize)
	setInt(&r.HD, pre.DynamicHD)
	if r.Crop <= 0 || r.Patch <= 0 || r.Crop%(2*r.Patch) != 0 || r.HD < 1 {
		return nil, fmt.Errorf("%s: %s crop %d, patch_size %d, dynamic_hd %d: not a usable processor configuration",
			filepath.Join(dir, "preprocessor_config.json"), r.Family, r.Crop, r.Patch, r.HD)
	}
	if count != nil {
		r.Wrap = count("\n")
	}
	return r, nil
}

func (r Phi4MM) Name() string {
	return fmt.Sprintf("%s dynamic HD (%d px crops, patch %d, at most %d)", r.Family, r.Crop, r.Patch, r.HD)
}

func (r Phi4MM) Tokens(width, height int) (int, error) {
	if width <= 0 || height <= 0 {
		return 0, fmt.Errorf("image size %dx%d: both sides must be positive", width, height)
	}
	cols, rows := r.Grid(width, height)
	tw, th := r.Crop*cols, r.Crop*rows
	// Python's int() of the side scaled by the other side's ratio, as dynamic_preprocess has it.
	ratioW, ratioH := float64(tw)/float64(width), float64(th)/float64(height)
	newW, newH, padW, padH := tw, th, 0, 0
	if ratioW < ratioH {
		newH = int(float64(height) * ratioW)
		padH = th - newH
	} else {
		newW = int(float64(width) * ratioH)
		padW = tw - newW
	}
	if min(newH, th) < 10 || min(newW, tw) < 10 {
		return 0, fmt.Errorf("image size %dx%d: resized to %dx%d, an aspect ratio the processor refuses", width, height, newW, newH)
	}
	mask := r.Crop / r.Patch // patches a crop side
	validRows, validCols := mask*rows, mask*cols
	if padH >= r.Patch {
		validRows -= padH / r.Patch
	}
	if padW >= r.Patch {
		validCols -= padW / r.Patch
	}
	// Every other row and column of the mask, from the first: ceil of half the valid ones.
	tokRows, tokCols := (validRows+1)/2, (validCols+1)/2
	global := mask / 2
	return global*global + 1 + tokRows*tokCols + tokRows + global + r.Wrap, nil
}

// Grid is the crops across and down a width×height image is resized into.
func (r Phi4MM) Grid(width, height int) (cols, rows int) {
	cols = int(math.Ceil(float64(width) / float64(r.Crop)))
	rows = int(math.Ceil(float64(height) / float64(r.Crop)))
	if cols*rows > r.HD {
		return closestGrid(width, height, r.Crop, r.Crop, 1, r.HD)
	}
	return cols, rows
}
