package media

import (
	"fmt"
	"math"
	"path/filepath"
)

// phi3v.go is Phi-3-vision's and Phi-3.5-vision's image count (model_type phi3_v, remote
// code). The HD transform turns the image to lie landscape, takes the largest scale s with
// s·ceil(s/ratio) at most num_crops, resizes the long side to s·336 and the short one to
// int(s·336/ratio), pads that to a multiple of 336 and turns it back; a padded H×W image is
// ((H/336)·(W/336) + 1)·144 + 1 + (H/336 + 1)·12 tokens: 12×12 for each 336 crop and for the
// global image, a newline a row of 12, and one separator. Source:
// vllm-project/vllm@004202bcd1659591e9071bde1a09594004b346f9 vllm/model_executor/models/phi3v.py
// (_calc_padded_size, _calc_hd_transform_size, get_phi3v_image_feature_size, each "based on"
// microsoft/Phi-3-vision-128k-instruct's image_processing_phi3_v.py, the Hub's remote code,
// whose calc_num_image_tokens_from_image_size current vLLM calls); num_crops is
// preprocessor_config.json's (4 for Phi-3.5-vision-instruct, 16 for Phi-3-vision), the 336
// crop, 144 and 12 the processor's constants. vLLM's test of the count:
// vllm-project/vllm@4bbff31b83b9a29cd0a5a889b21541b028f9e3e0
// tests/models/multimodal/processing/test_phi3v.py (757 tokens with num_crops 4, 1921 with 16).
//
// The image's "<|image_N|>" placeholder is replaced whole. The chat template takes text only:
// vLLM writes each image's placeholder before the message's text with "\n" after it
// (vllm-project/vllm@bd5ec6d50b83652c21a570b81c1fb5219a6ebf76 vllm/entrypoints/chat_utils.py,
// _get_full_multimodal_text_prompt), so the "\n" is the image's too.

// Phi3V is the HD-transform rule with its processor's crop count.
type Phi3V struct {
	NumCrops int
	// Wrap is the tokens of the "\n" after the image as the model's tokenizer encodes it (1
	// when no counter is given).
	Wrap int
}

func loadPhi3V(dir string, count Counter) (Rule, error) {
	var pre struct {
		NumCrops *int `json:"num_crops"`
	}
	if _, err := readJSON(dir, "preprocessor_config.json", &pre); err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "preprocessor_config.json")
	if pre.NumCrops == nil {
		return nil, fmt.Errorf("%s: phi3_v without num_crops: %w", file, ErrNoRule)
	}
	if *pre.NumCrops < 1 {
		return nil, fmt.Errorf("%s: phi3_v num_crops %d: not a usable processor configuration", file, *pre.NumCrops)
	}
	r := Phi3V{NumCrops: *pre.NumCrops, Wrap: 1}
	if count != nil {
		r.Wrap = count("\n")
	}
	return r, nil
}

func (r Phi3V) Name() string {
	return fmt.Sprintf("phi3_v HD transform (num_crops %d, 336 crops)", r.NumCrops)
}

func (r Phi3V) Tokens(width, height int) (int, error) {
	if width <= 0 || height <= 0 {
		return 0, fmt.Errorf("image size %dx%d: both sides must be positive", width, height)
	}
	w, h := Phi3VSize(width, height, r.NumCrops)
	if w == 0 || h == 0 {
		return 0, fmt.Errorf("image size %dx%d: the HD transform resizes its short side to 0 pixels, which the processor cannot", width, height)
	}
	return ((h/336)*w/336+1)*144 + 1 + (h/336+1)*12 + r.Wrap, nil
}

// Phi3VSize is _calc_hd_transform_size: the width and height, padded to multiples of 336,
// that the HD transform gives a width×height image with num_crops crops.
func Phi3VSize(width, height, numCrops int) (int, int) {
	transposed := width < height
	if transposed {
		width, height = height, width
	}
	ratio := float64(width) / float64(height)
	scale := 1
	for float64(scale)*math.Ceil(float64(scale)/ratio) <= float64(numCrops) {
		scale++
	}
	scale--
	newW := scale * 336
	newH := int(float64(newW) / ratio)
	padH := int(math.Ceil(float64(newH)/336) * 336)
	if transposed {
		return padH, newW
	}
	return newW, padH
}
