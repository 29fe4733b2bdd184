package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/llm-replay/replay/internal/genlog"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/requestlog"
	"github.com/llm-replay/replay/sim"
)

// TestSimCountsToolRequests: the simulator set up as `replay sim --tokenizer` sets it up
// (ServerCounting) counts every logged body of a generated log with options as the server that
// logged it did: tools rendered into the prompt by the chat template, earlier turns' tool
// calls and tool answers too, under each optionTemplates model with its real tokenizer. The
// truth is the generator's own usage.prompt_tokens (rendered with chat.RenderTools, encoded
// with the tokenizer), which requestlog's tests hold to the reader's counts. Each body is
// sent as logged with "stream":false appended (encoding/json keeps the last of a duplicated
// key) so the answer carries usage; nothing of the prompt changes.
func TestSimCountsToolRequests(t *testing.T) {
	for _, name := range optionTemplates {
		t.Run(name, func(t *testing.T) {
			tokPath := testenv.Tokenizer(t, name)
			tok, tpl, err := requestlog.LoadModel(tokPath)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			truths, err := genlog.GenerateWith(&buf, 400, genlog.Config{
				Seed: 5, Options: true, Chat: tpl, Tokenizer: tok, MaxParallelCalls: logMaxCalls[name]})
			if err != nil {
				t.Fatal(err)
			}
			sc := sim.DefaultConfig()
			sc.ZeroCost = true
			if err := ServerCounting(tokPath, tok, &sc); err != nil {
				t.Fatal(err)
			}
			srv := sim.New(sc)
			if err := srv.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			hs := httptest.NewServer(srv)
			defer hs.Close()
			tools, turns, exact := 0, 0, 0
			for i, tr := range truths {
				got, err := simPromptTokens(hs.URL, tr)
				if err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				if got == tr.PromptTokens {
					exact++
				} else {
					t.Errorf("line %d (tools %v): the simulator counted %d prompt tokens, the logging server %d", i+1, tr.Tools != nil, got, tr.PromptTokens)
				}
				if tr.Tools != nil {
					tools++
				}
				for _, m := range tr.Messages {
					if len(m.ToolCalls) > 0 {
						turns++
						break
					}
				}
			}
			if tools < 20 || turns < 5 {
				t.Fatalf("only %d requests with tools and %d with tool turns: the test proves little", tools, turns)
			}
			t.Logf("%s: %d of %d logged bodies counted exactly (%d with tools, %d with earlier tool calls)", name, exact, len(truths), tools, turns)
		})
	}
}

// simPromptTokens posts a logged body to the simulator, not streamed, and returns its
// usage.prompt_tokens.
func simPromptTokens(base string, tr genlog.Truth) (int, error) {
	body := bytes.TrimSpace(tr.Body)
	if len(body) < 2 || body[len(body)-1] != '}' {
		return 0, fmt.Errorf("logged body %.40q is not an object", body)
	}
	sent := append(append(append([]byte(nil), body[:len(body)-1]...), `,"stream":false`...), '}')
	path := "/v1/completions"
	if tr.Chat {
		path = "/v1/chat/completions"
	}
	resp, err := http.Post(base+path, "application/json", bytes.NewReader(sent))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("status %d: %s", resp.StatusCode, raw)
	}
	var out struct {
		Usage *struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.Usage == nil {
		return 0, fmt.Errorf("answer without usage (%v): %.200s", err, raw)
	}
	return out.Usage.PromptTokens, nil
}
