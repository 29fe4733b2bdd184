package tokenizer

import (
	"encoding/json"
	"strings"
)

// componentJSON holds any normalizer, pre-tokenizer, post-processor or decoder of
// tokenizer.json: its type and the fields of every type this package supports.
type componentJSON struct {
	Type string `json:"type"`
	// Sequence members, under the key each Sequence type uses.
	Normalizers   []json.RawMessage `json:"normalizers"`
	Pretokenizers []json.RawMessage `json:"pretokenizers"`
	Processors    []json.RawMessage `json:"processors"`
	Decoders      []json.RawMessage `json:"decoders"`

	Pattern    *patternJSON `json:"pattern"`
	Content    *string      `json:"content"`
	Prepend    *string      `json:"prepend"`
	StripLeft  *bool        `json:"strip_left"`
	StripRight *bool        `json:"strip_right"`
	Behavior   string       `json:"behavior"`
	Invert     bool         `json:"invert"`

	AddPrefixSpace   *bool   `json:"add_prefix_space"`
	UseRegex         *bool   `json:"use_regex"`
	Replacement      *string `json:"replacement"`
	PrependScheme    *string `json:"prepend_scheme"`
	Split            *bool   `json:"split"`
	IndividualDigits bool    `json:"individual_digits"`

	Start int `json:"start"`
	Stop  int `json:"stop"`

	Single        []templatePiece            `json:"single"`
	SpecialTokens map[string]templateSpecial `json:"special_tokens"`
	Cls           []json.RawMessage          `json:"cls"`
	Sep           []json.RawMessage          `json:"sep"`
}

// patternJSON is {"String": "..."} or {"Regex": "..."}.
type patternJSON struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}

// isNull tells an absent or null component.
func isNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}
