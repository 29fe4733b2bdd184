package media

import (
	"fmt"
	"path/filepath"
)

// gemma3.go is Gemma 3's image count: every image is mm_tokens_per_image soft tokens (256),
// whatever its size (pan-and-scan crops are off by default), and the processor replaces the
// template's <start_of_image> with "\n\n<start_of_image>" + the soft tokens +
// "<end_of_image>\n\n" before tokenizing. Source: huggingface/transformers@0068e97099241de217856337e672013cbd2863de
// src/transformers/models/gemma3/processing_gemma3.py (full_image_sequence, image_seq_length,
// do_pan_and_scan False); the count from processor_config.json's image_seq_length, else
// config.json's mm_tokens_per_image (Gemma3Config).

// Gemma3 is the fixed-length rule with the processor's wrapper.
type Gemma3 struct {
	Soft int
	// Wrap is the tokens of the wrapper text as the model's tokenizer encodes it.
	Wrap int
}

func loadGemma3(dir string, cfg modelConfig, count Counter) (Rule, error) {
	var p struct {
		ImageSeqLength *int `json:"image_seq_length"`
	}
	if _, err := readJSON(dir, "processor_config.json", &p); err != nil {
		return nil, err
	}
	n := p.ImageSeqLength
	if n == nil {
		n = cfg.MMTokensPerImage
	}
	if n == nil || *n <= 0 {
		return nil, fmt.Errorf("%s: gemma3 without image_seq_length (processor_config.json) or mm_tokens_per_image: %w", filepath.Join(dir, "config.json"), ErrNoRule)
	}
	if count == nil {
		return nil, fmt.Errorf("%s: gemma3's image wrapper needs the tokenizer to count it", dir)
	}
	return Gemma3{Soft: *n, Wrap: count("\n\n<start_of_image>") + count("<end_of_image>\n\n")}, nil
}

func (r Gemma3) Name() string {
	return fmt.Sprintf("gemma3 (%d soft tokens + %d of \\n\\n<start_of_image>…<end_of_image>\\n\\n)", r.Soft, r.Wrap)
}

func (r Gemma3) Tokens(width, height int) (int, error) {
	if width <= 0 || height <= 0 {
		return 0, fmt.Errorf("image size %dx%d: both sides must be positive", width, height)
	}
	return r.Soft + r.Wrap, nil
}
