package synth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ApplyTokenizerConfig fills cfg's ChatTemplate, BOSToken and EOSToken from the
// tokenizer_config.json beside tokenizerPath (a tokenizer.json file or its folder). A missing
// file or template leaves the fields empty (DefaultChatTemplate applies).
func ApplyTokenizerConfig(tokenizerPath string, cfg *Config) error {
	dir := tokenizerPath
	if st, err := os.Stat(tokenizerPath); err == nil && !st.IsDir() {
		dir = filepath.Dir(tokenizerPath)
	}
	path := filepath.Join(dir, "tokenizer_config.json")
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	var c struct {
		ChatTemplate json.RawMessage `json:"chat_template"`
		BOS          json.RawMessage `json:"bos_token"`
		EOS          json.RawMessage `json:"eos_token"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return fmt.Errorf("synth: %s: %w", path, err)
	}
	if cfg.ChatTemplate, err = chatTemplateField(c.ChatTemplate); err != nil {
		return fmt.Errorf("synth: %s: chat_template: %w", path, err)
	}
	if cfg.BOSToken, err = tokenField(c.BOS); err != nil {
		return fmt.Errorf("synth: %s: bos_token: %w", path, err)
	}
	if cfg.EOSToken, err = tokenField(c.EOS); err != nil {
		return fmt.Errorf("synth: %s: eos_token: %w", path, err)
	}
	return nil
}

// chatTemplateField reads chat_template: a string, or a list of {name, template} whose
// "default" entry is the chat template.
func chatTemplateField(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var list []struct {
		Name     string `json:"name"`
		Template string `json:"template"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return "", errors.New("neither a string nor a list of named templates")
	}
	for _, t := range list {
		if t.Name == "default" {
			return t.Template, nil
		}
	}
	return "", errors.New("no template named \"default\"")
}

// tokenField reads a special token given as a string or as {"content": ...}.
func tokenField(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var obj struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return "", errors.New("neither a string nor an object with content")
	}
	return obj.Content, nil
}
