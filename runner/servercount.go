package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/requestlog"
	"github.com/llm-replay/replay/sim"
	"github.com/llm-replay/replay/synth/tokenizer"
)

// ServerCounting makes sc count prompts as a server serving tok does, and as this package's
// prompts are built for it: completions prompts with the specials the tokenizer's post-processor
// adds (a BOS for Llama and Mistral), chat prompts through the chat template of the
// tokenizer_config.json beside tokPath, rendered and encoded as synth builds them, the
// request's tools and earlier turns' tool calls rendered too (chat.Renderer.RenderTools, as
// requestlog counts a logged request). With no
// tokenizer_config.json that is chat.DefaultTemplate with empty bos_token and eos_token,
// exactly what the client renders then, so the two agree. It is the one definition shared by
// the in-process simulator of Run and `replay sim --tokenizer`, so that a standalone simulator
// reports the same counts. It fails on an unreadable tokenizer_config.json or chat template.
func ServerCounting(tokPath string, tok tokenizer.Tokenizer, sc *sim.Config) error {
	tpl, err := chat.Load(tokPath)
	if err != nil {
		return err
	}
	count := func(text string, special bool) int { return len(tok.Encode(text, special)) }
	if hf, ok := tok.(interface{ WithCountMemo(int) *tokenizer.Memo }); ok {
		count = hf.WithCountMemo(serverMemoEntries).Count // the same counts, most of the work skipped
	}
	sc.Counter = serverCounter{count}
	if sc.TokenizerSHA256, err = tokenizerDigest(tokPath); err != nil {
		return err
	}
	sc.Tokenizer = tokPath
	if abs, err := filepath.Abs(tokPath); err == nil {
		sc.Tokenizer = abs // a name another process on this machine can find
	}
	sc.Tokenize = func(text string) []int { return tok.Encode(text, true) }
	// Images by the model folder's processor rule, the one the prompts are built for; a
	// folder with none leaves images refused (or counted by --image-tokens, set by the caller).
	if rule, err := requestlog.ImageRule(tokPath, tok, 0); err == nil {
		sc.Images = rule
	} else if !errors.Is(err, media.ErrNoRule) {
		return fmt.Errorf("the model's image processor: %w", err)
	}
	// Audio likewise (or by --audio-tokens-per-second, set by the caller).
	if rule, err := requestlog.AudioRule(tokPath, tok, 0); err == nil {
		sc.Audio = rule
	} else if !errors.Is(err, media.ErrNoAudioRule) {
		return fmt.Errorf("the model's audio processor: %w", err)
	}
	sc.ChatCounter = func(msgs []sim.Message, tools json.RawMessage) (int, error) {
		m := make([]chat.Message, len(msgs))
		for i, x := range msgs {
			m[i] = chat.Message{Role: x.Role, Content: x.Content, Name: x.Name, ToolCallID: x.ToolCallID}
			if len(x.ToolCalls) > 0 {
				if err := json.Unmarshal(x.ToolCalls, &m[i].ToolCalls); err != nil {
					return 0, fmt.Errorf("request body: field \"messages[%d].tool_calls\": %w", i, err)
				}
			}
		}
		rendered, err := tpl.RenderTools(m, tools)
		if err != nil {
			return 0, err
		}
		// The template holds the BOS text already: recognize specials, add none (as
		// synth.Builder.CountChat does).
		return count(rendered, false), nil
	}
	return nil
}

// serverMemoEntries bounds the simulator's memo of prompt openings (tokenizer.Memo): two
// generations of this many, about 30 MB at most, for a count that skips the model's work on
// the openings a run's prompts share (a session's earlier turns, shared prefixes).
const serverMemoEntries = 1 << 19

// serverCounter counts a completions prompt the way a server does: with the specials its
// tokenizer's post-processor adds (a BOS for Llama and Mistral).
type serverCounter struct {
	count func(text string, special bool) int
}

func (c serverCounter) Count(text string) int { return c.count(text, true) }
