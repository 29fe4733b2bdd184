package gatewaylog

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"strings"
	"sync"

	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/trace"
)

// images.go reads the images of a logged request body, where a source logs the body: each an
// Entry media part with its format and size read from the image's header, its place among its
// message's parts and a keyed hash of its bytes (never the bytes). The body's forms:
//   - Bedrock Converse (Amazon Bedrock API Reference, "ContentBlock" and "ImageBlock",
//     https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ImageBlock.html):
//     messages[].content[] {"image":{"format":"png|jpeg|gif|webp","source":{"bytes":BASE64}}};
//   - Gemini on Vertex (Vertex AI API reference, "Content" and "Part", inlineData a Blob:
//     https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/Content):
//     contents[].parts[] {"inlineData":{"mimeType":"image/png","data":BASE64}}, or the
//     protobuf field names inline_data, mime_type;
//   - Anthropic's Messages body, on Bedrock's InvokeModel and Vertex's rawPredict
//     (https://docs.anthropic.com/en/api/messages):
//     messages[].content[] {"type":"image","source":{"type":"base64","media_type":...,"data":...}}.
//
// An image by reference (an S3 location, a fileData URI, a url source) has no size in the log
// and is an error naming it. The logged prompt count is the hosted model's, so each image's
// Tokens are by that model's documented rule (media.LoggedRule), or, where the usage breaks
// the prompt out by modality (Gemini's promptTokensDetails), the logged image tokens shared
// among the images by that rule; a model with no known rule is an error naming it.

// imageKey keys the images' hashes: random, one for the process, so equal images in one
// ingest are equal hashes and no hash can be looked up.
var imageKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k) // since Go 1.24 it never returns an error (it crashes instead)
	return k
})

func imageHash(data []byte) uint64 {
	mac := hmac.New(sha256.New, imageKey())
	mac.Write([]byte("image\x00"))
	mac.Write(data)
	return binary.BigEndian.Uint64(mac.Sum(nil))
}

// inlineImage reads base64 image data (v) declared as mime into a media part of message msg,
// part part of parts.
func inlineImage(v Value, mime string, msg, part, parts int) (trace.MediaPart, error) {
	s, ok := v.String()
	if !ok || s == "" {
		return trace.MediaPart{}, v.Err("missing or not a string: the log holds no image bytes")
	}
	data, err := media.DecodeBase64(s, media.MaxBytes)
	if err != nil {
		return trace.MediaPart{}, v.Err("the image's data: %w", err)
	}
	hd, err := media.ReadHeader(data, mime)
	if err != nil {
		return trace.MediaPart{}, v.Err("%w", err)
	}
	if hd.Width > media.MaxSide || hd.Height > media.MaxSide {
		return trace.MediaPart{}, v.Err("a %dx%d image: a side over %d pixels, beyond what replay builds", hd.Width, hd.Height, media.MaxSide)
	}
	return trace.MediaPart{Kind: trace.MediaKindImage, MIME: hd.MIME, Width: hd.Width, Height: hd.Height,
		Hash: imageHash(data), Message: msg, Part: part, Parts: parts}, nil
}

// decoded is v with JSON held in a string decoded once (Get decodes it on every step).
func decoded(v Value) Value {
	v.v = asContainer(v.v)
	return v
}

// converseImages reads a Converse body's image blocks.
func converseImages(body Value) ([]trace.MediaPart, error) {
	msgs := decoded(body).Get("messages")
	var out []trace.MediaPart
	for i := range msgs.Len() {
		content := msgs.Index(i).Get("content")
		for j := range content.Len() {
			img := content.Index(j).Get("image")
			if !img.Exists() {
				continue
			}
			format, _ := img.Get("format").String()
			if format == "" {
				return nil, img.Get("format").Err("missing: an image block names its format")
			}
			src := img.Get("source")
			if !src.Get("bytes").Exists() && src.Exists() {
				return nil, src.Err("an image by reference (an S3 location): its size is not in the log")
			}
			m, err := inlineImage(src.Get("bytes"), "image/"+format, i, j, content.Len())
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
	}
	return out, nil
}

// geminiImages reads a GenerateContent body's inlineData parts of an image type.
func geminiImages(body Value) ([]trace.MediaPart, error) {
	contents := decoded(body).Get("contents")
	var out []trace.MediaPart
	for i := range contents.Len() {
		parts := contents.Index(i).Get("parts")
		for j := range parts.Len() {
			p := parts.Index(j)
			if fd := firstPresent(p.Get("fileData"), p.Get("file_data")); fd.Exists() {
				if mt := firstString(fd.Get("mimeType"), fd.Get("mime_type")); strings.HasPrefix(mt, "image/") {
					return nil, fd.Err("an image by reference (fileData): its size is not in the log")
				}
				continue
			}
			blob := firstPresent(p.Get("inlineData"), p.Get("inline_data"))
			if !blob.Exists() {
				continue
			}
			mt := firstString(blob.Get("mimeType"), blob.Get("mime_type"))
			if !strings.HasPrefix(mt, "image/") {
				return nil, blob.Err("inline data of type %q: only images are replayed", mt)
			}
			m, err := inlineImage(blob.Get("data"), mt, i, j, parts.Len())
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
	}
	return out, nil
}

// anthropicImages reads a Messages body's image blocks.
func anthropicImages(body Value) ([]trace.MediaPart, error) {
	msgs := decoded(body).Get("messages")
	var out []trace.MediaPart
	for i := range msgs.Len() {
		content := msgs.Index(i).Get("content")
		for j := range content.Len() {
			b := content.Index(j)
			if t, _ := b.Get("type").String(); t != "image" {
				continue
			}
			src := b.Get("source")
			if t, _ := src.Get("type").String(); t != "base64" {
				return nil, src.Get("type").Err("%q: an image by reference has no size in the log", t)
			}
			mt, _ := src.Get("media_type").String()
			m, err := inlineImage(src.Get("data"), mt, i, j, content.Len())
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
	}
	return out, nil
}

// countImages sets each image's tokens by the logged model's documented rule, or shares
// logged, the image tokens the usage reports (-1: none reported), among them by it.
func countImages(e *Entry, imgs []trace.MediaPart, logged int, at Value) error {
	if len(imgs) == 0 {
		return nil
	}
	rule, ok := media.LoggedRule(e.Model)
	if !ok {
		return at.Err("the request holds images, but the logged model %q has no documented image token rule replay knows (OpenAI's, Anthropic's, Gemini's), so its prompt count cannot be split", e.Model)
	}
	total := 0
	for i := range imgs {
		n, err := rule.Tokens(imgs[i].Width, imgs[i].Height)
		if err != nil {
			return at.Err("image %d: %w", i, err)
		}
		imgs[i].Tokens, total = n, total+n
	}
	if logged >= 0 && total > 0 {
		left := logged
		for i := range imgs {
			if i == len(imgs)-1 {
				imgs[i].Tokens = left
				break
			}
			imgs[i].Tokens = imgs[i].Tokens * logged / total
			left -= imgs[i].Tokens
		}
	}
	sum := 0
	for _, m := range imgs {
		sum += m.Tokens
	}
	if sum >= e.PromptTokens {
		return at.Err("the images' %d tokens (%s) are not less than the logged prompt's %d", sum, rule.Name(), e.PromptTokens)
	}
	e.Media = imgs
	return nil
}

// modalityTokens is the IMAGE entry of a Gemini usage's promptTokensDetails (a list of
// {modality, tokenCount}), -1 when it has none.
func modalityTokens(usage Value) (int, error) {
	details := firstPresent(usage.Get("promptTokensDetails"), usage.Get("prompt_tokens_details"))
	for i := range details.Len() {
		d := details.Index(i)
		if m, _ := d.Get("modality").String(); m != "IMAGE" {
			continue
		}
		n, ok, err := firstPresent(d.Get("tokenCount"), d.Get("token_count")).Int()
		if err != nil {
			return 0, err
		}
		if ok {
			return n, nil
		}
		return 0, nil
	}
	return -1, nil
}
