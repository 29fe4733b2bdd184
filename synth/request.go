package synth

import (
	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/trace"
)

// API says which endpoint a prompt is for, because they count differently: completions and
// embeddings prompts get the tokenizer's post-processor specials (a BOS), chat, responses and
// messages prompts the chat template. Its values are trace's API names.
type API string

const (
	APICompletions API = trace.APICompletions
	APIChat        API = trace.APIChat
	APIResponses   API = trace.APIResponses
	APIMessages    API = trace.APIMessages
	APIEmbeddings  API = trace.APIEmbeddings
)

// Config holds the choices that shape every prompt.
type Config struct {
	// Seed selects the prompt text; the same seed and trace give byte-identical prompts.
	Seed uint64
	// BlockSize overrides the records' BlockSize (tokens per hashed block) when > 0.
	BlockSize int
	// MaxPromptTokens caps a record's prompt tokens (and its hash list to the blocks that fit)
	// when > 0; capped records are counted in Stats.
	MaxPromptTokens int
	// API is the API of records that name none (Options.API empty): APICompletions (the
	// default) or any other; a record that names its API is built for that one.
	API API
	// Chat is the chat template the chat API's prompts are rendered with (chat.LoadTemplate
	// reads the model's); its zero value means chat.DefaultTemplate.
	Chat chat.Template
	// Images counts the images of records that carry them (trace.Record.Media) as the target
	// model's processor does (media.Load on its folder, or media.Fixed for --image-tokens);
	// nil refuses such a record, naming ImagesErr (why the folder has no rule).
	Images    media.Rule
	ImagesErr error
	// Audio counts the audio clips of records that carry them as the target model's processor
	// does (media.LoadAudio on its folder, or media.TokensPerSecond for
	// --audio-tokens-per-second); nil refuses such a record, naming AudioErr.
	Audio    media.AudioRule
	AudioErr error
	// MediaURL is where replay serves stand-in images (--media-listen, "http://HOST:PORT"):
	// an image logged as a URL is sent as the URL of its stand-in there (media.StandInPath);
	// "" inlines every image as a data URL.
	MediaURL string
	// MediaSplitsText counts a chat prompt that holds images or clips as llama.cpp's server
	// does: the rendered template cut where each part was, every piece of text tokenized on
	// its own (mtmd_tokenize), so a tokenizer that prefixes a space ("▁", SentencePiece's
	// add_space_prefix) prefixes each piece. Off, the text is counted whole, as a model's
	// processor counts it (vLLM, SGLang).
	MediaSplitsText bool
	// Tools sizes chat prompts for the tools each record's request is sent with (its
	// Options.Tools, replayed with --options logged): the template renders them into the
	// prompt, so the messages are shortened by exactly that much.
	Tools bool
}

// Request is one synthesized request, ready for the client.
type Request struct {
	// Index is the 0-based position of the record among those built.
	Index  int
	Record trace.Record
	// API is the API the prompt was built for and is sent to: the record's own, else
	// Config.API.
	API API
	// Prompt is the text the server tokenizes: the completions prompt, or for chat the rendered
	// template (Messages is what is sent).
	Prompt string
	// PromptIDs are the ids the server sees: Prompt encoded with the specials it adds.
	PromptIDs []int
	// Messages is set for the chat family (chat, responses, messages): the conversation so
	// far, ending with the user's turn.
	Messages []chat.Message
	// Inputs and InputIDs are an embeddings request's batch (its Options.InputList), each
	// input exact to its logged length; TargetPromptTokens is their sum. A single input is
	// Prompt and PromptIDs, as for completions.
	Inputs   []string
	InputIDs [][]int
	// TargetPromptTokens is the prompt token count the server should report (the record's,
	// after MaxPromptTokens, its logged images' tokens replaced by the target model's);
	// len(PromptIDs) equals it unless a chat overhead override is set or the prompt holds
	// images (PromptIDs are then the text's, MediaTokens the rest).
	TargetPromptTokens int
	// TextTokens is a chat prompt's text counted whole (len(PromptIDs)), what a tokenize
	// route counts; under Config.MediaSplitsText it may differ from TargetPromptTokens less
	// MediaTokens, the text as the engine counts it around the media.
	TextTokens int
	// MediaTokens is the prompt tokens of the request's images and clips by Config.Images and
	// Config.Audio.
	MediaTokens int
	// MaxTokens is the record's output tokens (at least 1).
	MaxTokens int
	// BlockHashes are the record's hashes whose blocks the prompt holds (after capping).
	BlockHashes []uint64
	// Capped is set when MaxPromptTokens shortened the prompt.
	Capped bool
}

// Stats counts what the builder had to do beyond the plain case.
type Stats struct {
	Requests int
	// Capped records were shortened to Config.MaxPromptTokens.
	Capped int
	// SessionTurns extended an earlier turn of their session; SessionRestarts could not
	// (their prompt was shorter than the previous prompt plus answer) and started afresh.
	SessionTurns    int
	SessionRestarts int
	// Repaired prompts needed a word replaced to survive the decode/re-encode round trip.
	Repaired int
	// Adjusted chat prompts needed their length corrected after rendering the template.
	Adjusted int
	// SiblingClashes counts blocks whose first word had to repeat a sibling's (a parent with
	// more children than the pool has words), so two prompts share one token more than their
	// hashes say.
	SiblingClashes int
}
