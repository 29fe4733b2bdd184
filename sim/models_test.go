package sim

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestServedModels: each served model counts with its own counter, ModelName with the
// server's, /v1/models lists them all, and a name served by none is a 404 as vLLM's.
func TestServedModels(t *testing.T) {
	cfg := fastConfig()
	cfg.ZeroCost = true
	cfg.Models = []Model{{Name: "words", Counter: wordCounter{}, Tokenizer: "/tok/words"}}
	_, url := startServer(t, cfg)
	prompt := strings.Repeat("abcdefgh ", 40) // 40 words, 90 approximate tokens
	usage := func(model string) (int, int) {
		resp, err := http.Post(url+"/v1/completions", "application/json",
			strings.NewReader(`{"model":"`+model+`","prompt":"`+prompt+`","max_tokens":2}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v struct {
			Usage struct {
				PromptTokens int `json:"prompt_tokens"`
			}
		}
		b, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(b, &v)
		return resp.StatusCode, v.Usage.PromptTokens
	}
	if code, n := usage("words"); code != 200 || n != 40 {
		t.Errorf("words: %d, %d prompt tokens, want 40", code, n)
	}
	if code, n := usage(cfg.ModelName); code != 200 || n != (ApproxCounter{}).Count(prompt) {
		t.Errorf("%s: %d, %d prompt tokens", cfg.ModelName, code, n)
	}
	if code, _ := usage("other"); code != http.StatusNotFound {
		t.Errorf("a model served by none: %d, want 404", code)
	}
	resp, err := http.Get(url + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct{ Data []struct{ ID, Root string } }
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || len(list.Data) != 2 || list.Data[1].ID != "words" || list.Data[1].Root != "/tok/words" {
		t.Errorf("/v1/models: %+v %v", list, err)
	}
}
