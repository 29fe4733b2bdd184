package synth

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/trace"
)

// media.go puts a record's logged images and audio clips back into its prompt on its own API
// (chat, Responses or Messages: the client writes each API's part shapes, and engines render
// all three through the chat template as chat's content list, so one count holds for all):
// each a stand-in of the logged size and format (media.Build, keyed by the logged image's
// hash, so the same logged image is the same bytes in every request; clips by audio.go), in
// the user message, where it was among the logged message's parts, each logged text part a
// synthetic text part in its place. The text stays exact: its target is the logged prompt
// less the logged media's tokens, and the server's count is that text plus the target
// model's tokens for each part (Config.Images, Config.Audio).

// domainImage keys the stand-in images by the logged images' hashes.
const domainImage uint64 = 0x696d616765000007

// imageCacheBytes bounds the stand-ins kept for reuse: an image repeated across a trace (a
// logo, a shared screenshot) is encoded once while it stays under this.
const imageCacheBytes = 256 << 20

// planMedia sizes rec's prompt around its media: it returns the text's target (the logged
// prompt less the logged media's tokens) and sets the job's media tokens by the target rules
// and its target prompt tokens (text plus media).
func (b *Builder) planMedia(j *job, rec trace.Record, at string) (int, error) {
	text := j.req.TargetPromptTokens
	if len(rec.Media) == 0 {
		return text, nil
	}
	if !chatFamily(j.req.API) {
		return 0, fmt.Errorf("%s: images and audio are replayed on the chat, Responses and Messages APIs, not %s", at, j.req.API)
	}
	if j.req.API != APIChat && rec.MediaClips() > 0 { // the client writes clips in chat's shape only
		return 0, fmt.Errorf("%s: audio clips are replayed on the chat API only, not %s", at, j.req.API)
	}
	text -= rec.MediaTokens()
	if text < 1 {
		return 0, fmt.Errorf("%s: prompt_tokens %d is no more than its media's %d tokens", at, j.req.TargetPromptTokens, rec.MediaTokens())
	}
	for i, m := range rec.Media {
		n, err := b.partTokens(m)
		if err != nil {
			return 0, fmt.Errorf("%s: media part %d: %w", at, i, err)
		}
		j.media += n
	}
	j.req.TargetPromptTokens = text + j.media
	return text, nil
}

// partTokens is a logged part's prompt tokens by the target's rule for its kind.
func (b *Builder) partTokens(m trace.MediaPart) (int, error) {
	if m.Kind == trace.MediaKindAudio {
		if b.cfg.Audio == nil {
			return 0, fmt.Errorf("an audio clip, but the model's audio token rule is unknown (%v): give --audio-tokens-per-second R", b.cfg.AudioErr)
		}
		n, err := b.cfg.Audio.Tokens(audioOf(m))
		if err != nil {
			return 0, fmt.Errorf("audio of %d samples at %d Hz: %s: %w", m.Samples, m.SampleRate, b.cfg.Audio.Name(), err)
		}
		return n, nil
	}
	if b.cfg.Images == nil {
		return 0, fmt.Errorf("an image, but the model's image token rule is unknown (%v): give --image-tokens N", b.cfg.ImagesErr)
	}
	n, err := b.cfg.Images.Tokens(m.Width, m.Height)
	if err != nil {
		return 0, fmt.Errorf("image %dx%d: %s: %w", m.Width, m.Height, b.cfg.Images.Name(), err)
	}
	return n, nil
}

// mediaParts lays out the user message's parts: each logged message's parts in order (its
// images where they were, text parts in the others' places), the words split among the text
// parts so that the parts' text one after the other is the message's text. A message logged
// with images alone gets its text as one part after them.
func (b *Builder) mediaParts(rec trace.Record, words []int32, index int) ([]chat.Part, error) {
	layout, err := mediaLayout(rec, func(m trace.MediaPart) (chat.Part, error) { return b.standInPart(m, index) })
	if err != nil {
		return nil, err
	}
	return b.layText(layout, words), nil
}

// layText is fillText, and under Config.MediaSplitsText each text part that follows a media
// part gives its leading spaces to the text part before that media part, so the text reads
// the same end to end and no piece the engine tokenizes alone starts with a space. A piece
// that did would tokenize apart from how any tokenizer.json can say: llama.cpp prefixes it
// with one more space and its SentencePiece merges by score take "▁▁" first (" computer"
// after an image is "▁▁ comput er" there, "▁ ▁computer" by the BPE merges of tokenizer.json).
func (b *Builder) layText(layout []chat.Part, words []int32) []chat.Part {
	parts := b.fillText(layout, words)
	if !b.cfg.MediaSplitsText {
		return parts
	}
	lastText, mediaSince := -1, false
	for i := range parts {
		if parts[i].Type != chat.PartText {
			mediaSince = true
			continue
		}
		if mediaSince && lastText >= 0 {
			t := parts[i].Text
			trimmed := strings.TrimLeft(t, " ")
			parts[lastText].Text += t[:len(t)-len(trimmed)]
			parts[i].Text = trimmed
		}
		lastText, mediaSince = i, false
	}
	return parts
}

// mediaLayout is the logged messages' parts in order: part(m) for each logged image or clip,
// an empty text part in each other part's place.
func mediaLayout(rec trace.Record, part func(trace.MediaPart) (chat.Part, error)) ([]chat.Part, error) {
	var layout []chat.Part
	next := 0
	for next < len(rec.Media) {
		msg, parts := rec.Media[next].Message, rec.Media[next].Parts
		for p := 0; p < parts; p++ {
			if next < len(rec.Media) && rec.Media[next].Message == msg && rec.Media[next].Part == p {
				mp, err := part(rec.Media[next])
				if err != nil {
					return nil, err
				}
				layout = append(layout, mp)
				next++
				continue
			}
			layout = append(layout, chat.Part{Type: chat.PartText})
		}
		for next < len(rec.Media) && rec.Media[next].Message == msg {
			return nil, fmt.Errorf("image %d: part %d of %d parts", next, rec.Media[next].Part, parts)
		}
	}
	return layout, nil
}

// textTokens is the text tokens of a chat prompt whose messages msgs render as got: got's,
// or under Config.MediaSplitsText for a record with media, as llama.cpp counts them
// (piecesCount; words the last message's).
func (b *Builder) textTokens(msgs []chat.Message, tools json.RawMessage, rec trace.Record, words []int32, got []int) (int, error) {
	if !b.cfg.MediaSplitsText || len(rec.Media) == 0 {
		return len(got), nil
	}
	return b.piecesCount(msgs, tools, rec, words)
}

// mediaMarker stands where a part was in the text piecesCount renders: llama.cpp's server
// turns each image or clip part into this text (mtmd_default_marker) before it renders the
// template, and cuts the rendered prompt at it.
const mediaMarker = "<__media__>"

// piecesCount is the text tokens of msgs, whose last message holds rec's media among words,
// as llama.cpp's server counts them (Config.MediaSplitsText): the template rendered with the
// text parts one after the other and a marker for each media part (tools/server's
// oaicompat_chat_params_parse, common/chat.cpp's parts joined with nothing between), the
// result cut at the markers and each non-empty piece tokenized alone (tools/mtmd/mtmd.cpp,
// mtmd_tokenize: split_text, add_text; llama-vocab.cpp's SPM session prefixes a piece with a
// space whatever precedes it), as of llama.cpp b11669.
func (b *Builder) piecesCount(msgs []chat.Message, tools json.RawMessage, rec trace.Record, words []int32) (int, error) {
	layout, err := mediaLayout(rec, func(trace.MediaPart) (chat.Part, error) { return chat.Part{Type: chat.PartImage}, nil })
	if err != nil {
		return 0, err
	}
	var content strings.Builder
	for _, p := range b.layText(layout, words) {
		if p.Type == chat.PartText {
			content.WriteString(p.Text)
		} else {
			content.WriteString(mediaMarker)
		}
	}
	m := slices.Clone(msgs)
	m[len(m)-1].Content = content.String()
	rendered, err := b.render(m, tools)
	if err != nil {
		return 0, err
	}
	pieces := strings.Split(rendered, mediaMarker)
	if len(pieces) != len(rec.Media)+1 {
		return 0, fmt.Errorf("the chat template rendered %d of the message's %d media parts: its text cannot be counted as llama.cpp counts it", len(pieces)-1, len(rec.Media))
	}
	n := 0
	for _, piece := range pieces {
		if piece != "" {
			n += len(b.tok.Encode(piece, false))
		}
	}
	return n, nil
}

// fillText spreads words over layout's text parts (dropping text parts beyond the words),
// each part's text the words' text from where the last one stopped.
func (b *Builder) fillText(layout []chat.Part, words []int32) []chat.Part {
	slots := 0
	for _, p := range layout {
		if p.Type == chat.PartText {
			slots++
		}
	}
	if slots == 0 {
		layout, slots = append(layout, chat.Part{Type: chat.PartText}), 1
	}
	slots = min(slots, len(words))
	out := layout[:0:0]
	start, k := 0, 0
	for _, p := range layout {
		if p.Type != chat.PartText {
			out = append(out, p)
			continue
		}
		if k == slots {
			continue
		}
		end := start + (len(words)-start)/(slots-k)
		text := b.v.renderText(words[:end])[len(b.v.renderText(words[:start])):]
		out = append(out, chat.Part{Type: chat.PartText, Text: text})
		start, k = end, k+1
	}
	return out
}

// standInPart is the part sent for a logged image or clip.
func (b *Builder) standInPart(m trace.MediaPart, index int) (chat.Part, error) {
	if m.Kind == trace.MediaKindAudio {
		return b.audioStandIn(m, index)
	}
	return b.standIn(m, index)
}

// standIn is the image part for a logged image: its stand-in as a data URL, built once while
// the cache holds it; an image logged as a URL, under Config.MediaURL, as the URL of its
// stand-in there.
func (b *Builder) standIn(m trace.MediaPart, index int) (chat.Part, error) {
	k := key(b.cfg.Seed, domainImage, m.Hash)
	if m.URL && b.cfg.MediaURL != "" { // fetched by the engine from replay's media server, as it was logged
		if m.Width <= 0 || m.Height <= 0 || m.Width > media.MaxSide || m.Height > media.MaxSide {
			return chat.Part{}, fmt.Errorf("request %d: image %dx%d: each side must be 1 to %d", index, m.Width, m.Height, media.MaxSide)
		}
		return chat.Part{Type: chat.PartImage, ImageURL: b.cfg.MediaURL + media.StandInPath(k, m.Width, m.Height, m.MIME), Detail: m.Detail}, nil
	}
	url, err := b.images.get(m, k)
	if err != nil {
		return chat.Part{}, fmt.Errorf("request %d: image %dx%d: %w", index, m.Width, m.Height, err)
	}
	return chat.Part{Type: chat.PartImage, ImageURL: url, Detail: m.Detail}, nil
}

// imageCache keeps built stand-ins by what they are made of; it is safe for concurrent use
// (verification runs on several goroutines). Past its bound it starts afresh.
type imageCache struct {
	mu    sync.Mutex
	urls  map[imageKey]string
	bytes int
}

type imageKey struct {
	hash          uint64
	width, height int
	mime          string
}

func (c *imageCache) get(m trace.MediaPart, k uint64) (string, error) {
	ik := imageKey{m.Hash, m.Width, m.Height, m.MIME}
	c.mu.Lock()
	url, ok := c.urls[ik]
	c.mu.Unlock()
	if ok {
		return url, nil
	}
	img, err := media.Build(k, m.Width, m.Height, m.MIME)
	if err != nil {
		return "", err
	}
	url = media.DataURL(img.MIME, img.Data)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.urls == nil || c.bytes+len(url) > imageCacheBytes {
		c.urls, c.bytes = map[imageKey]string{}, 0
	}
	c.urls[ik] = url
	c.bytes += len(url)
	return url, nil
}
