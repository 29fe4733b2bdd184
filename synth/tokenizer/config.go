package tokenizer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Config is what replay needs from tokenizer_config.json: the chat template and the special
// tokens around a prompt.
type Config struct {
	// ChatTemplate is the Jinja chat template ("default" one when the file lists several).
	ChatTemplate string
	BOSToken     string
	EOSToken     string
	// AddBOSToken is the file's add_bos_token (false when absent: the post-processor in
	// tokenizer.json decides then).
	AddBOSToken bool
}

// LoadConfig reads the tokenizer_config.json beside a tokenizer: path is the tokenizer.json
// file or the folder holding both. A missing file is an error wrapping os.ErrNotExist.
func LoadConfig(path string) (*Config, error) {
	file, err := tokenizerFile(path)
	if err != nil {
		return nil, err
	}
	file = filepath.Join(filepath.Dir(file), "tokenizer_config.json")
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("tokenizer config: %w", err)
	}
	c, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return c, nil
}

// ParseConfig reads the bytes of a tokenizer_config.json.
func ParseConfig(data []byte) (*Config, error) {
	var raw struct {
		ChatTemplate json.RawMessage `json:"chat_template"`
		BOSToken     json.RawMessage `json:"bos_token"`
		EOSToken     json.RawMessage `json:"eos_token"`
		AddBOSToken  *bool           `json:"add_bos_token"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("not a tokenizer_config.json: %w", err)
	}
	c := &Config{}
	var err error
	if c.ChatTemplate, err = chatTemplate(raw.ChatTemplate); err != nil {
		return nil, fmt.Errorf("chat_template: %w", err)
	}
	if c.BOSToken, err = tokenContent(raw.BOSToken); err != nil {
		return nil, fmt.Errorf("bos_token: %w", err)
	}
	if c.EOSToken, err = tokenContent(raw.EOSToken); err != nil {
		return nil, fmt.Errorf("eos_token: %w", err)
	}
	if raw.AddBOSToken != nil {
		c.AddBOSToken = *raw.AddBOSToken
	}
	return c, nil
}

// chatTemplate accepts a string or a list of {"name", "template"} and returns the default one.
func chatTemplate(raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var list []struct {
		Name     string `json:"name"`
		Template string `json:"template"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return "", fmt.Errorf("want a string or a list of {name, template}: %w", err)
	}
	for _, e := range list {
		if e.Name == "default" {
			return e.Template, nil
		}
	}
	if len(list) > 0 {
		return "", fmt.Errorf("no template named \"default\" among %d", len(list))
	}
	return "", nil
}

// tokenContent accepts a string or an object with "content" (an AddedToken).
func tokenContent(raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var obj struct {
		Content *string `json:"content"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil || obj.Content == nil {
		return "", fmt.Errorf("want a string or an object with \"content\"")
	}
	return *obj.Content, nil
}
