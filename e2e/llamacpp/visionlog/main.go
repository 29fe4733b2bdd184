// Command visionlog is slices/97-vision.sh's helper: it writes a request log of requests with
// images, and reads a run's rows back, so the slice can compare each request's prompt
// tokens as the server counted them with replay's count.
//
//	visionlog log OUT.jsonl     the request log (openai-log): 16 requests to the chat,
//	                            Responses and Messages APIs holding 0 to 4 PNG images as data
//	                            URLs (base64 sources on Messages), of sizes from 20×20 to
//	                            4000×3000 and 3000×100, among text parts in several layouts;
//	                            one image repeated in two requests. Beside it OUT.jsonl.images:
//	                            one line a request, "TIMESTAMP_NS N W×H ..." (its images in
//	                            order).
//	visionlog rows RUN_DIR      one line a row of RUN_DIR/requests.parquet:
//	                            "ORIGINAL_TIMESTAMP_NS TARGET_PROMPT_TOKENS PROMPT_TOKENS"
//	visionlog count FOLDER WxH  "TOKENS WRAP": the prompt tokens replay counts for one image of
//	                            that size by the rule of the model folder (package media, as
//	                            replay run chooses it: config.json's model_type,
//	                            preprocessor_config.json), and how many of them are the text
//	                            tokens the processor wraps the image's own in (Qwen2-VL's
//	                            <|vision_start|> and <|vision_end|>; none for LLaVA)
//
// The images are drawn here (image/png from the standard library), each with content that
// differs by request, so the server's own image cache cannot answer for another request's.
// Their size is what matters: the number of tokens a server spends on an image depends on
// it (Qwen2-VL), or does not (LLaVA-1.5).
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/requestlog"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/synth/tokenizer"
)

// request is one logged request: the API it was sent to ("" chat, "responses" or
// "messages") and its user message's parts in order, "text" or an image size.
type request struct {
	api   string
	parts []string
}

// requests are the log's requests: images alone, before, after and between text parts, up to
// four in one request, none in two; on the chat, Responses and Messages APIs.
var requests = []request{
	{parts: []string{"text", "64x48"}},
	{parts: []string{"336x336", "text"}},
	{parts: []string{"text", "500x200", "text"}},
	{parts: []string{"100x700"}},
	{parts: []string{"text", "640x480", "text", "20x20"}},
	{parts: []string{"1400x1000", "text"}},
	{parts: []string{"text", "900x30"}},
	{parts: []string{"text", "64x48"}},     // the first request's image again, same bytes
	{parts: []string{"text", "2000x2000"}}, // over llama.cpp's Qwen2-VL range: clamped, in 2 batches
	{api: "responses", parts: []string{"text", "4000x3000"}},
	{api: "messages", parts: []string{"3000x100", "text"}},
	{parts: []string{"text", "64x48", "20x20", "text", "336x336", "100x700"}},
	{api: "responses", parts: []string{"336x336", "text", "500x200"}},
	{api: "messages", parts: []string{"text", "640x480", "text"}},
	{parts: []string{"text"}},
	{api: "messages", parts: []string{"text"}},
}

// words are the logged text parts' words (replay sends its own words of the same count).
var words = strings.Fields("please describe what this picture shows and whether anything in it looks out of place to you")

func main() {
	var err error
	switch {
	case len(os.Args) == 3 && os.Args[1] == "log":
		err = writeLog(os.Args[2])
	case len(os.Args) == 3 && os.Args[1] == "rows":
		err = printRows(os.Args[2])
	case len(os.Args) == 4 && os.Args[1] == "count":
		err = count(os.Args[2], os.Args[3])
	default:
		fmt.Fprintln(os.Stderr, "Usage: visionlog log OUT.jsonl | visionlog rows RUN_DIR | visionlog count FOLDER WxH")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "visionlog:", err)
		os.Exit(1)
	}
}

func writeLog(out string) error {
	var log, sizes bytes.Buffer
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	first := map[string]string{} // size → data URL of its first image with seed 0 (the repeat)
	for i, r := range requests {
		var parts []map[string]any
		var imgs []string
		text := 0
		for j, p := range r.parts {
			if p == "text" {
				n := 4 + 3*j + i%3
				parts = append(parts, textPart(r.api, strings.Join(words[:n], " ")))
				text += n
				continue
			}
			var w, h int
			if _, err := fmt.Sscanf(p, "%dx%d", &w, &h); err != nil {
				return fmt.Errorf("image size %q: %w", p, err)
			}
			seed := i
			if i == 7 {
				seed = 0 // the repeat of request 0's image
			}
			url, err := dataURL(w, h, seed)
			if err != nil {
				return err
			}
			if seed == 0 {
				if u, ok := first[p]; ok && u != url {
					return fmt.Errorf("the repeated %s image differs", p)
				}
				first[p] = url
			}
			parts = append(parts, imagePart(r.api, url))
			imgs = append(imgs, p)
		}
		at := t0.Add(time.Duration(i) * time.Second)
		line := logLine(r, parts, text+600*len(imgs))
		line["timestamp"] = at.Format(time.RFC3339Nano)
		b, err := json.Marshal(line)
		if err != nil {
			return err
		}
		log.Write(append(b, '\n'))
		fmt.Fprintf(&sizes, "%d %d %s\n", i*int(time.Second), len(imgs), strings.Join(imgs, " "))
	}
	if err := os.WriteFile(out, log.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(out+".images", sizes.Bytes(), 0o644)
}

// logLine is the log's line for r (its user message's parts given), on r's API, as the
// request and the usage its server answered with (prompt tokens given); the model a
// deployment alias, which names no model family: the log's counts are taken as the target's
// own (replay's rule for the tokenizer folder it is given). Replay counts a logged body with
// --tokenizer. The Responses form: OpenAI's API reference (input items of input_text and
// input_image, usage.input_tokens); the Messages form: Anthropic's (image blocks of a base64
// source, usage.input_tokens).
func logLine(r request, parts []map[string]any, prompt int) map[string]any {
	msgs := append(history(r), map[string]any{"role": "user", "content": parts})
	switch r.api {
	case "responses":
		return map[string]any{"path": "/v1/responses",
			"request":  map[string]any{"model": "prod-vision", "input": msgs, "max_output_tokens": 16, "temperature": 0},
			"response": map[string]any{"usage": map[string]int{"input_tokens": prompt, "output_tokens": 16}}}
	case "messages":
		return map[string]any{"path": "/v1/messages",
			"request":  map[string]any{"model": "prod-vision", "messages": msgs, "max_tokens": 16, "temperature": 0},
			"response": map[string]any{"usage": map[string]int{"input_tokens": prompt, "output_tokens": 16}}}
	}
	return map[string]any{
		"request":  map[string]any{"model": "prod-vision", "messages": msgs, "max_tokens": 16, "temperature": 0},
		"response": map[string]any{"usage": map[string]int{"prompt_tokens": prompt, "completion_tokens": 16}},
	}
}

// textPart is a text part of api's user message.
func textPart(api, text string) map[string]any {
	if api == "responses" {
		return map[string]any{"type": "input_text", "text": text}
	}
	return map[string]any{"type": "text", "text": text}
}

// imagePart is an image part of api's user message, the image as a data URL.
func imagePart(api, url string) map[string]any {
	switch api {
	case "responses":
		return map[string]any{"type": "input_image", "image_url": url}
	case "messages":
		data := url[strings.Index(url, ",")+1:]
		return map[string]any{"type": "image", "source": map[string]string{"type": "base64", "media_type": "image/png", "data": data}}
	}
	return map[string]any{"type": "image_url", "image_url": map[string]string{"url": url}}
}

// history is the turns before a request's last user message: none, or for a message of images
// alone one exchange of text before it (so the log's text is more than the chat template's
// own: a prompt of template and images only leaves replay no text to size).
func history(r request) []map[string]any {
	for _, p := range r.parts {
		if p == "text" {
			return nil
		}
	}
	return []map[string]any{
		{"role": "user", "content": strings.Join(words[:6], " ")},
		{"role": "assistant", "content": strings.Join(words[6:10], " ")},
	}
}

// dataURL is a w×h PNG whose pixels depend on seed, as a data URL.
func dataURL(w, h, seed int) (string, error) {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x*7 + seed*31), uint8(y*5 + seed*17), uint8((x ^ y) + seed), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return "", err
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes()), nil
}

// count prints the tokens of one w×h image by the folder's rule, as replay counts it.
func count(folder, size string) error {
	w, h, err := media.ParseSize(size)
	if err != nil {
		return err
	}
	tok, err := tokenizer.Load(folder)
	if err != nil {
		return err
	}
	rule, err := requestlog.ImageRule(folder, tok, 0)
	if err != nil {
		return err
	}
	n, err := rule.Tokens(w, h)
	if err != nil {
		return err
	}
	wrap := 0
	if q, ok := rule.(media.Qwen2VL); ok {
		wrap = q.Wrap
	}
	fmt.Println(n, wrap)
	return nil
}

// printRows prints the measured rows of a run, in the log's order (by original timestamp;
// the log's first line is at offset 0).
func printRows(dir string) error {
	rows, err := rowfile.ReadAll(filepath.Join(dir, "requests.parquet"))
	if err != nil {
		return err
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].OriginalTimestampNS < rows[j].OriginalTimestampNS })
	for _, r := range rows {
		if r.Warmup {
			continue
		}
		fmt.Printf("%d %d %d\n", r.OriginalTimestampNS, r.TargetPromptTokens, r.PromptTokens)
	}
	return nil
}
