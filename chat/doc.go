// Package chat owns the chat message type and chat template rendering: a model's Jinja chat
// template (from the tokenizer_config.json beside its tokenizer, or DefaultTemplate) rendered
// with gonja as transformers' apply_chat_template renders it, so that the prompt text, and so
// its token count, is what a server builds from a chat request, tools and tool turns included
// (RenderTools: tool definitions decoded in their key order, calls' arguments parsed, and
// transformers' tojson, which is Python's json.dumps; an assistant turn's reasoning as
// reasoning_content), and the Responses API's and Anthropic's tools in chat's shape as the
// engines hand them to templates (ToolsAsChat). synth sizes chat prompts with it,
// requestlog counts logged chat requests with it and runner's ServerCounting makes the
// simulator count as a server would. It must not tokenize, send requests or know about traces;
// of this module it imports only synth/tokenizer, to read tokenizer_config.json.
package chat
