package samples

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed tokenizer/mistral/tokenizer.json tokenizer/mistral/tokenizer_config.json
var files embed.FS

// Tokenizer is the folder of the default tokenizer (Hugging Face layout).
const Tokenizer = "tokenizer/mistral"

// FS returns the embedded files.
func FS() fs.FS { return files }

// Extract writes the named embedded file or folder into dir (created if needed) and returns the
// path of the written copy, so stages that take file paths can read it.
func Extract(name, dir string) (string, error) {
	dest := filepath.Join(dir, filepath.FromSlash(name))
	err := fs.WalkDir(files, name, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		out := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		return "", fmt.Errorf("samples: extracting %s: %w", name, err)
	}
	return dest, nil
}
