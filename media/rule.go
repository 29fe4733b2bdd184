package media

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Rule is how a model's processor counts an image: the prompt tokens one image of the given
// size adds, its placeholder tokens and the text the processor wraps them in. The chat
// template's text around an image is counted with the message's text, where image parts
// render nothing: both the builder and the simulator count a prompt as its text plus each
// image's Tokens.
type Rule interface {
	// Name says which rule this is, for messages ("qwen2_vl smart_resize, patch 14, merge 2").
	Name() string
	// Tokens is the prompt tokens one width×height image adds; an image the processor refuses
	// (an aspect ratio beyond its limit) is an error.
	Tokens(width, height int) (int, error)
}

// ErrNoRule is wrapped by Load's error when a folder names no family replay has a rule for;
// --image-tokens N is the way out.
var ErrNoRule = errors.New("no image token rule for this model (give --image-tokens N)")

// Counter counts the prompt tokens of a text as the served model's tokenizer encodes it,
// special tokens recognized and none added: the wrappers some processors put around an
// image's placeholders.
type Counter func(text string) int

// Load chooses the rule of the model whose folder holds path (a tokenizer.json or its
// folder), as Hugging Face's AutoProcessor chooses the processor: by config.json's model_type,
// with the values of preprocessor_config.json (and processor_config.json) beside it. count
// counts the processor's wrapper text. A folder without config.json, or of a family without a
// rule, is an error wrapping ErrNoRule.
func Load(path string, count Counter) (Rule, error) {
	dir, cfg, err := readModelConfig(path, ErrNoRule)
	if err != nil {
		return nil, err
	}
	switch cfg.ModelType {
	case "qwen2_vl", "qwen2_5_vl", "qwen3_vl", "qwen3_vl_moe": // Qwen3-VL: the same processor, patch 16 in its preprocessor_config.json
		return loadQwen2VL(dir, cfg.ModelType, count)
	case "gemma3":
		return loadGemma3(dir, cfg, count)
	case "llava":
		if cfg.VisionConfig.ModelType == "pixtral" {
			return loadPixtral(dir, cfg)
		}
		return loadLLaVA(dir, cfg)
	case "mistral3":
		return loadPixtral(dir, cfg)
	case "llava_next":
		return loadLLaVANeXT(dir, cfg)
	case "llama4":
		return loadLlama4(dir, cfg, count)
	case "internvl":
		return loadInternVL(dir, count)
	case "internvl_chat": // the remote code's config: its values in config.json
		return loadInternVLChat(dir, cfg, count)
	case "phi3_v":
		return loadPhi3V(dir, count)
	case "phi4_multimodal", "phi4mm": // transformers' model and the remote code's
		return loadPhi4MM(dir, cfg, count)
	case "":
		return nil, fmt.Errorf("%s: config.json has no model_type: %w", dir, ErrNoRule)
	}
	return nil, fmt.Errorf("%s: model_type %q: %w", dir, cfg.ModelType, ErrNoRule)
}

// readModelConfig reads config.json of the model folder holding path (a tokenizer.json or
// its folder); a folder without one is an error wrapping none (ErrNoRule, ErrNoAudioRule).
func readModelConfig(path string, none error) (string, modelConfig, error) {
	dir := path
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		dir = filepath.Dir(path)
	}
	var cfg modelConfig
	found, err := readJSON(dir, "config.json", &cfg)
	if err == nil && !found {
		err = fmt.Errorf("%s has no config.json, so its model family is unknown: %w", dir, none)
	}
	return dir, cfg, err
}

// modelConfig is what the rules read of config.json.
type modelConfig struct {
	ModelType string `json:"model_type"`
	// Gemma 3: the soft tokens per image (Gemma3Config.mm_tokens_per_image).
	MMTokensPerImage *int `json:"mm_tokens_per_image"`
	// LLaVA: the vision tower's patch and whether its CLS feature is dropped.
	VisionFeatureSelectStrategy string `json:"vision_feature_select_strategy"`
	// LLaVA-NeXT: the anyres resolutions, [height, width] each.
	ImageGridPinpoints [][2]int     `json:"image_grid_pinpoints"`
	VisionConfig       visionConfig `json:"vision_config"`
	// Mistral Small 3.1: the patches merged on each side.
	SpatialMergeSize *int `json:"spatial_merge_size"`
	// InternVL's remote code (internvl_chat): the tile side over vision_config's, the pixel
	// shuffle, the tiles' bounds and whether they apply and a thumbnail is added.
	ForceImageSize   *int     `json:"force_image_size"`
	DownsampleRatio  *float64 `json:"downsample_ratio"`
	MinDynamicPatch  *int     `json:"min_dynamic_patch"`
	MaxDynamicPatch  *int     `json:"max_dynamic_patch"`
	DynamicImageSize *bool    `json:"dynamic_image_size"`
	UseThumbnail     *bool    `json:"use_thumbnail"`
	// Phi-4-multimodal's remote code (phi4mm): the crop side of its image embedding.
	EmbdLayer struct {
		ImageEmbdLayer struct {
			CropSize *int `json:"crop_size"`
		} `json:"image_embd_layer"`
	} `json:"embd_layer"`
}

// visionConfig is what the rules read of config.json's vision_config.
type visionConfig struct {
	PatchSize *int
	ImageSize *int
	ModelType string
	// Llama 4: the pixel shuffle that merges a tile's patches.
	PixelShuffleRatio *float64
}

// UnmarshalJSON reads patch_size and image_size as a number, or as a list of numbers, the
// first taken (InternVL's converted config gives [448, 448] and [14, 14]).
func (v *visionConfig) UnmarshalJSON(b []byte) error {
	var raw struct {
		PatchSize         json.RawMessage `json:"patch_size"`
		ImageSize         json.RawMessage `json:"image_size"`
		ModelType         string          `json:"model_type"`
		PixelShuffleRatio *float64        `json:"pixel_shuffle_ratio"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	v.ModelType, v.PixelShuffleRatio = raw.ModelType, raw.PixelShuffleRatio
	var err error
	if v.PatchSize, err = firstInt(raw.PatchSize); err != nil {
		return fmt.Errorf("vision_config.patch_size: %w", err)
	}
	if v.ImageSize, err = firstInt(raw.ImageSize); err != nil {
		return fmt.Errorf("vision_config.image_size: %w", err)
	}
	return nil
}

// firstInt reads a number, or a list of numbers as its first; nil when b is absent or null.
func firstInt(b json.RawMessage) (*int, error) {
	if len(b) == 0 || string(b) == "null" {
		return nil, nil
	}
	var n int
	if json.Unmarshal(b, &n) == nil {
		return &n, nil
	}
	var list []int
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, nil
	}
	return &list[0], nil
}

// readJSON reads dir/name into v; found is false when the file does not exist.
func readJSON(dir, name string, v any) (found bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return true, fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
	}
	return true, nil
}

// Fixed is --image-tokens N: every image adds n prompt tokens, whatever its size.
func Fixed(n int) Rule { return fixed(n) }

type fixed int

func (f fixed) Name() string                 { return fmt.Sprintf("--image-tokens %d", int(f)) }
func (f fixed) Tokens(_, _ int) (int, error) { return int(f), nil }
