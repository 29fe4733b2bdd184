package client

import (
	"fmt"
	"os"
	"strings"
)

// APIKeyFromEnv returns the API key held in environment variable name, trimmed. Keys come
// from the environment or a file, never argv, so they stay out of ps and shell history.
func APIKeyFromEnv(name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("api key: no environment variable named")
	}
	key := strings.TrimSpace(os.Getenv(name))
	if key == "" {
		return "", fmt.Errorf("api key: environment variable %s is unset or empty", name)
	}
	return key, nil
}

// APIKeyFromFile returns the API key stored in the file at path, trimmed. The error names the
// file, never its content.
func APIKeyFromFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("api key: %w", err)
	}
	key := strings.TrimSpace(string(b))
	if key == "" {
		return "", fmt.Errorf("api key: file %s is empty", path)
	}
	return key, nil
}
