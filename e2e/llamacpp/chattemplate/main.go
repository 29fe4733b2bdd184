// Command chattemplate prints the chat template replay renders chat prompts with for a
// tokenizer: the chat_template of the tokenizer_config.json beside it, or chat.DefaultTemplate
// when it has none (Mistral-7B's has none). setup.sh writes it into the GGUF (mkmodel
// --chat-template FILE), so llama-server renders chat from the very template replay counts with,
// with no second copy of it in the repository.
package main

import (
	"fmt"
	"os"

	"github.com/llm-replay/replay/chat"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "Usage: chattemplate TOKENIZER (a tokenizer.json or its folder)")
		os.Exit(2)
	}
	t, err := chat.LoadTemplate(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "chattemplate:", err)
		os.Exit(1)
	}
	if t.Source == "" {
		t.Source = chat.DefaultTemplate
	}
	fmt.Print(t.Source)
}
