package requestlog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/synth/tokenizer"
	"github.com/llm-replay/replay/trace"
)

// images.go reads the images of chat messages (image_url parts: a data URL or an http URL,
// with its detail) into trace.MediaParts: the format and size from the image's header, a keyed
// hash of its bytes, and the prompt tokens the served model's processor turns it into
// (Options.Images). The bytes are dropped once read. A message's parts are walked here for
// both kinds of media; audio.go reads the input_audio parts.

// loggedPart is an image_url or input_audio part as the line holds it, before its header is
// read.
type loggedPart struct {
	kind                 string // trace.MediaKindImage or trace.MediaKindAudio
	message, part, parts int
	field                string // the part's field, for errors
	url, detail          string
	// data and format are an input_audio part's base64 data and declared format.
	data, format string
	// fileID is an uploaded file's id (Responses input_image, a Messages file source): no
	// bytes in the log, so sized by --image-size as a URL is.
	fileID string
}

// messageContent is a chat message's content as the template sees it (contentText's) and its
// images and audio clips. The text of a content list holding media is its text parts one after
// the other, as the multimodal templates (Qwen2-VL's, Gemma 3's, Qwen2-Audio's) write them
// while walking the parts; a list of text parts alone is joined by newlines, as vLLM joins it
// for text-only templates.
func messageContent(v any, f string, message int) (string, []loggedPart, error) {
	list, ok := v.([]any)
	if !ok || !hasMedia(list) {
		s, err := contentText(v)
		if err != nil {
			return "", nil, &fieldError{field: f, err: err}
		}
		return s, nil, nil
	}
	var text strings.Builder
	var media []loggedPart
	for i, p := range list {
		pf := fmt.Sprintf("%s[%d]", f, i)
		po, _ := p.(map[string]any)
		var lp loggedPart
		var err error
		switch t, _ := po["type"].(string); t {
		case "text":
			s, ok := po["text"].(string)
			if !ok {
				return "", nil, bad(pf+".text", "missing or not a string")
			}
			text.WriteString(s)
			continue
		case "image_url":
			lp, err = imagePart(po, pf)
		case "input_audio":
			lp, err = audioPart(po, pf)
		default:
			return "", nil, bad(pf+".type", "%q: only text, image_url and input_audio parts are replayed in a message with media", t)
		}
		if err != nil {
			return "", nil, err
		}
		lp.message, lp.part, lp.parts = message, i, len(list)
		media = append(media, lp)
	}
	return text.String(), media, nil
}

func hasMedia(list []any) bool {
	for _, p := range list {
		if po, ok := p.(map[string]any); ok && (po["type"] == "image_url" || po["type"] == "input_audio") {
			return true
		}
	}
	return false
}

// imagePart reads {"type":"image_url","image_url":{"url":...,"detail":...}} (or the url as a
// bare string, as some clients log it).
func imagePart(po map[string]any, pf string) (loggedPart, error) {
	img := loggedPart{kind: trace.MediaKindImage, field: pf + ".image_url.url"}
	switch iu := po["image_url"].(type) {
	case string:
		img.url, img.field = iu, pf+".image_url"
	case map[string]any:
		u, ok := iu["url"].(string)
		if !ok {
			return img, bad(img.field, "missing or not a string")
		}
		img.url = u
		if d, ok := iu["detail"].(string); ok {
			img.detail = d
		} else if iu["detail"] != nil {
			return img, bad(pf+".image_url.detail", "not a string")
		}
	default:
		return img, bad(pf+".image_url", "missing or not an object")
	}
	return img, nil
}

// errNoImageRule is a line's image when no rule counts images: every line with one would fail
// alike, so the reader stops at the first even under --on-error skip.
var errNoImageRule = errors.New("the request holds an image, but no image token rule is known")

// readMedia turns a line's logged images and clips into media parts, counted and hashed:
// images by the rule of the model the line was logged for (loggedRule), whose name it returns
// ("" for a line without images).
// A line's images logged by URL without a size (no --image-size) are sized by what its
// logged prompt count (usagePrompt, -1 for none) does not explain by its text (text tokens).
func (r *Reader) readMedia(logged []loggedPart, model string, h *blockHasher, usagePrompt, text int) ([]trace.MediaPart, int, string, error) {
	parts := make([]trace.MediaPart, 0, len(logged))
	total := 0
	rule, own := r.loggedRule(model)
	images := false
	for _, lp := range logged {
		var m trace.MediaPart
		var err error
		if lp.kind == trace.MediaKindAudio {
			m, err = r.readAudio(lp, h)
		} else {
			images = true
			m, err = r.readImage(lp, rule, h)
		}
		if err != nil {
			return nil, 0, "", err
		}
		parts = append(parts, m)
		total += m.Tokens
	}
	if !images || rule == nil { // no image, or readImage has refused the first
		return parts, total, "", nil
	}
	unexplained := -1
	if usagePrompt >= 0 {
		unexplained = usagePrompt - text - total
	}
	inferred, err := r.inferSizes(parts, logged, rule, unexplained)
	if err != nil {
		return nil, 0, "", err
	}
	total += inferred
	name := rule.Name()
	if own {
		name += " (the served model's own)"
	}
	return parts, total, name, nil
}

func (r *Reader) readImage(img loggedPart, rule media.Rule, h *blockHasher) (trace.MediaPart, error) {
	m := trace.MediaPart{Kind: trace.MediaKindImage, Detail: img.detail, Message: img.message, Part: img.part, Parts: img.parts}
	switch lower := strings.ToLower(img.url); {
	case img.fileID != "":
		m.URL, m.Width, m.Height, m.MIME = true, r.opts.ImageWidth, r.opts.ImageHeight, media.PNG
		m.Hash = h.mediaHash("file", []byte(img.fileID))
	case strings.HasPrefix(lower, "data:"):
		mime, data, err := media.ParseDataURL(img.url)
		if err == nil {
			var hd media.Image
			if hd, err = media.ReadHeader(data, mime); err == nil {
				m.MIME, m.Width, m.Height = hd.MIME, hd.Width, hd.Height
			}
		}
		if err != nil {
			return m, &fieldError{field: img.field, err: err}
		}
		m.Hash = h.mediaHash("image", data)
	case strings.HasPrefix(lower, "http://"), strings.HasPrefix(lower, "https://"):
		m.URL, m.Width, m.Height, m.MIME = true, r.opts.ImageWidth, r.opts.ImageHeight, mimeByName(img.url)
		m.Hash = h.mediaHash("url", []byte(img.url))
	default:
		return m, bad(img.field, "neither a data URL nor an http(s) URL")
	}
	if m.Width > media.MaxSide || m.Height > media.MaxSide {
		return m, bad(img.field, "a %dx%d image: a side over %d pixels, beyond what replay builds", m.Width, m.Height, media.MaxSide)
	}
	if rule == nil {
		return m, &fieldError{field: img.field, err: fmt.Errorf("%w: %w", errNoImageRule, r.noRule())}
	}
	if m.URL && m.Width <= 0 { // sized by the line's logged count, once every other part is counted
		m.SizeInferred = true
		return m, nil
	}
	n, err := media.TokensOf(rule, m.Width, m.Height, m.Detail)
	if err != nil {
		return m, &fieldError{field: img.field, err: fmt.Errorf("%s (%s): %w", rule.Name(), m.MIME, err)}
	}
	m.Tokens = n
	return m, nil
}

// inferSizes sizes the parts logged by URL without a size (SizeInferred): the line's logged
// prompt tokens that its text and its other parts do not explain (unexplained) are shared
// among them, the first taking what does not divide, and each gets the square media.InferSize
// finds for its share by rule (unexplained -1: no logged count). It returns the tokens given.
// Without a logged count, or with
// too few tokens unexplained, or by a rule whose count says nothing of the size, such a part
// is an error naming the way out, --image-size.
func (r *Reader) inferSizes(parts []trace.MediaPart, logged []loggedPart, rule media.Rule, unexplained int) (int, error) {
	var idx []int
	for i, m := range parts {
		if m.SizeInferred {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return 0, nil
	}
	what := func(i int) string {
		if logged[i].fileID != "" {
			return "an image logged by file id has no size in the log"
		}
		return "an image logged by URL has no size in the log"
	}
	switch {
	case unexplained < 0:
		return 0, bad(logged[idx[0]].field, "%s, nor a logged prompt count to tell it from: give --image-size WxH", what(idx[0]))
	case unexplained < len(idx):
		return 0, bad(logged[idx[0]].field, "%s, and the line's logged prompt tokens leave %d beside its text for its %d such images: give --image-size WxH", what(idx[0]), unexplained, len(idx))
	}
	given := 0
	for k, i := range idx {
		n := unexplained / len(idx)
		if k == 0 {
			n += unexplained % len(idx)
		}
		w, h, err := media.InferSize(rule, parts[i].Detail, n)
		if err != nil {
			return 0, bad(logged[i].field, "%s, nor can its size be told from the %d prompt tokens its line's text does not explain (%v): give --image-size WxH", what(i), n, err)
		}
		parts[i].Width, parts[i].Height, parts[i].Tokens = w, h, n
		given += n
	}
	return given, nil
}

// loggedRule is the rule that counted the images of a line logged for model: --logged-model's
// (Options.Logged), else the hosted family the name names (media.LoggedRule: gpt-4o…,
// claude-…, gemini-…), else the served model's own (Options.Images): a name that says nothing
// (a deployment alias) is taken as counted as the served model counts, and own says so.
func (r *Reader) loggedRule(model string) (rule media.Rule, own bool) {
	if r.opts.Logged != nil {
		return r.opts.Logged, false
	}
	if rule, ok := media.LoggedRule(model); ok {
		return rule, false
	}
	return r.opts.Images, true
}

// noRule says why no rule is known.
func (r *Reader) noRule() error {
	if r.opts.ImagesErr != nil {
		return r.opts.ImagesErr
	}
	return media.ErrNoRule
}

// mimeByName guesses an image URL's format from its file name (PNG when it says nothing):
// the stand-in is built in it.
func mimeByName(u string) string {
	u, _, _ = strings.Cut(u, "?")
	switch strings.ToLower(path.Ext(u)) {
	case ".jpg", ".jpeg":
		return media.JPEG
	case ".webp":
		return media.WebP
	case ".gif":
		return media.GIF
	}
	return media.PNG
}

// mediaHash is the first 8 bytes of HMAC-SHA256(key, kind || 0 || data): the block hashes'
// key, so a trace's image hashes are as unguessable as its block hashes.
func (h *blockHasher) mediaHash(kind string, data []byte) uint64 {
	h.mac.Reset()
	h.mac.Write([]byte(kind))
	h.mac.Write([]byte{0})
	h.mac.Write(data)
	h.buf = h.mac.Sum(h.buf[:0])
	return binary.BigEndian.Uint64(h.buf)
}

// ImageRule is the rule a request log's images are counted by: --image-tokens N when n > 0,
// else the model's own from the folder of the tokenizer at tokPath (media.Load, its wrapper
// text counted by tok). err wraps media.ErrNoRule when the folder names no known family: the
// caller keeps it and reports it at the first image (Options.ImagesErr), since a log without
// images needs no rule.
func ImageRule(tokPath string, tok tokenizer.Tokenizer, n int) (media.Rule, error) {
	if n > 0 {
		return media.Fixed(n), nil
	}
	return media.Load(tokPath, func(s string) int { return len(tok.Encode(s, false)) })
}

// LoggedModelRule is --logged-model's rule: a hosted family's by its name (media.LoggedRule),
// or a model folder's (media.Load; its wrapper text counted by the folder's tokenizer when it
// has one).
func LoggedModelRule(spec string) (media.Rule, error) {
	if rule, ok := media.LoggedRule(spec); ok {
		return rule, nil
	}
	if _, err := os.Stat(spec); err != nil {
		return nil, fmt.Errorf("--logged-model %q: neither a hosted model family (gpt-4o…, gpt-4.1…, o1, o3, o4-mini, claude-…, gemini-…) nor a model folder on this machine", spec)
	}
	var count media.Counter
	if tok, err := tokenizer.Load(spec); err == nil {
		count = func(s string) int { return len(tok.Encode(s, false)) }
	}
	rule, err := media.Load(spec, count)
	if err != nil {
		return nil, fmt.Errorf("--logged-model %s: %w", spec, err)
	}
	return rule, nil
}

// SetImages fills the image options from the flags: size is --image-size ("" for none), n is
// --image-tokens (0 for the model's own rule, read from the folder of the tokenizer at
// tokPath), logged is --logged-model ("" for none: each line's model name says). A folder
// without a rule is not an error here (ImagesErr keeps why): only a line with an image needs
// one.
func (o *Options) SetImages(tokPath, size string, n int, logged string) error {
	if n < 0 {
		return fmt.Errorf("--image-tokens %d: must not be negative", n)
	}
	if size != "" {
		w, h, err := media.ParseSize(size)
		if err != nil {
			return fmt.Errorf("--image-size: %w", err)
		}
		o.ImageWidth, o.ImageHeight = w, h
	}
	rule, err := ImageRule(tokPath, o.Tokenizer, n)
	switch {
	case err == nil:
		o.Images = rule
	case errors.Is(err, media.ErrNoRule):
		o.ImagesErr = err
	default:
		return fmt.Errorf("--tokenizer: the model's image processor: %w", err)
	}
	if logged == "" {
		return nil
	}
	o.Logged, err = LoggedModelRule(logged)
	return err
}
