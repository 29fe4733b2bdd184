// Package samples embeds the small real traces and the tokenizer that the README's first command
// runs: `replay run` without --trace replays the Azure conversation slice, and without
// --tokenizer (only against the built-in simulator) it counts with Mistral's 32k tokenizer.
// It holds data only and must not contain logic beyond handing the files out.
package samples
