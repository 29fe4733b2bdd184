package requestlog

import (
	"fmt"
	"strings"
)

// apiimages.go reads the image forms of the Responses and Messages APIs into the loggedImages
// chat's image_url parts become (images.go counts, sizes and hashes them alike):
//   - Responses (https://platform.openai.com/docs/api-reference/responses/create, input
//     item content): {"type":"input_image","image_url":"data:...","detail":"auto"}, or with a
//     "file_id" in place of the URL (an uploaded file: no bytes in the log, so sized by
//     --image-size like an http URL); and {"type":"input_file","file_data":"data:image/...",
//     "filename":...} holding an image.
//   - Messages (https://docs.anthropic.com/en/api/messages, content blocks, "image"):
//     {"type":"image","source":{"type":"base64","media_type":"image/png","data":...}}, a
//     {"type":"url","url":...} source, or a {"type":"file","file_id":...} one (Files API).
//
// Both engines turn such a part into chat's image_url part of the same message, in its place
// among the text parts, and render the message as chat's: vLLM reads input_image parts
// directly (vllm-project/vllm@d0ac57910c16de107f5758d0e530b638d8b0f91b:
// vllm/entrypoints/chat_utils.py, MM_PARSER_MAP's "input_image"; construct_input_messages
// passes message items through) and makes a base64 or url source a data URL or the URL
// (vllm-project/vllm@0001948bc76939369ca855c90b36d81256477e85:
// vllm/entrypoints/anthropic/serving.py, _convert_block and _convert_image_source_to_url);
// llama.cpp does the same in server_chat_convert_responses_to_chatcmpl and
// server_chat_convert_anthropic_to_oai (ggml-org/llama.cpp@03eb25f39343f1c9ecc6f85ca4f9796a6ab7b230:
// tools/server/server-chat.cpp), dropping the detail. So a message holding images is counted
// as chat's is: its text parts one after the other, and each image by the rule. Neither engine
// reads input_file; one holding an image is replayed as the input_image both read (the
// stand-in is sent in that shape). An image inside a Messages tool_result is refused (vLLM
// moves it to a user message after the tool's, llama.cpp keeps it in the tool message).

// responsesTextPart reports the Responses content parts that carry text, and the member
// holding it.
func responsesTextPart(t string) (string, bool) {
	switch t {
	case "input_text", "output_text", "text":
		return "text", true
	case "refusal":
		return "refusal", true
	}
	return "", false
}

// hasResponsesImage reports whether a Responses content list holds an image part.
func hasResponsesImage(v any) bool {
	list, _ := v.([]any)
	for _, p := range list {
		if po, ok := p.(map[string]any); ok && (po["type"] == "input_image" || po["type"] == "input_file") {
			return true
		}
	}
	return false
}

// responsesContent is a message item's text and images. A content list with an image part is
// read part by part (message is the item's index, for the parts' place); any other content is
// responsesText's.
func responsesContent(v any, f string, message int) (string, []loggedPart, error) {
	if !hasResponsesImage(v) {
		s, err := responsesText(v)
		if err != nil {
			return "", nil, &fieldError{field: f, err: err}
		}
		return s, nil, nil
	}
	list := v.([]any)
	var text strings.Builder
	var imgs []loggedPart
	for i, p := range list {
		pf := fmt.Sprintf("%s[%d]", f, i)
		po, _ := p.(map[string]any)
		t, _ := po["type"].(string)
		if key, ok := responsesTextPart(t); ok {
			s, ok := po[key].(string)
			if !ok {
				return "", nil, bad(pf+"."+key, "missing or not a string")
			}
			text.WriteString(s)
			continue
		}
		var img loggedPart
		var err error
		switch t {
		case "input_image":
			img, err = inputImage(po, pf)
		case "input_file":
			img, err = inputFileImage(po, pf)
		default:
			err = bad(pf+".type", "%q: only text, input_image and input_file parts are replayed in a message with images", t)
		}
		if err != nil {
			return "", nil, err
		}
		img.message, img.part, img.parts = message, i, len(list)
		imgs = append(imgs, img)
	}
	return text.String(), imgs, nil
}

// inputImage reads {"type":"input_image","image_url":...,"file_id":...,"detail":...}.
func inputImage(po map[string]any, pf string) (loggedPart, error) {
	var img loggedPart
	switch d := po["detail"].(type) {
	case nil:
	case string:
		img.detail = d
	default:
		return img, bad(pf+".detail", "not a string")
	}
	if u, ok := po["image_url"].(string); ok && u != "" {
		img.url, img.field = u, pf+".image_url"
		return img, nil
	}
	if id, ok := po["file_id"].(string); ok && id != "" {
		img.fileID, img.field = id, pf+".file_id"
		return img, nil
	}
	return img, bad(pf+".image_url", "neither image_url nor file_id is a non-empty string")
}

// inputFileImage reads an input_file part that holds an image inline:
// {"type":"input_file","file_data":"data:image/png;base64,...","filename":...}. A file of
// another type (a PDF), or one by file_id or file_url whose type the log does not say, is
// refused: only images are replayed.
func inputFileImage(po map[string]any, pf string) (loggedPart, error) {
	img := loggedPart{field: pf + ".file_data"}
	data, ok := po["file_data"].(string)
	if !ok || data == "" {
		return img, bad(pf, "an input_file without file_data: only a file holding an image inline is replayed")
	}
	mime, _, _ := strings.Cut(strings.TrimPrefix(strings.ToLower(data[:min(len(data), 64)]), "data:"), ";")
	if !strings.HasPrefix(strings.ToLower(data), "data:") || !strings.HasPrefix(mime, "image/") {
		return img, bad(img.field, "not a data URL of an image (%q): only input_files holding images are replayed", mime)
	}
	img.url = data
	return img, nil
}

// anthropicImage reads a Messages image block's source: base64 data (made a data URL of its
// media_type, so it is read as chat's are), a URL, or an uploaded file's id.
func anthropicImage(b map[string]any, bf string) (loggedPart, error) {
	src, ok := b["source"].(map[string]any)
	if !ok {
		return loggedPart{}, bad(bf+".source", "missing or not an object")
	}
	sf := bf + ".source"
	str := func(k string) (string, error) {
		s, ok := src[k].(string)
		if !ok || s == "" {
			return "", bad(sf+"."+k, "missing or not a string")
		}
		return s, nil
	}
	switch t, _ := src["type"].(string); t {
	case "base64":
		mt, err := str("media_type")
		if err != nil {
			return loggedPart{}, err
		}
		data, err := str("data")
		if err != nil {
			return loggedPart{}, err
		}
		return loggedPart{url: "data:" + mt + ";base64," + data, field: sf + ".data"}, nil
	case "url":
		u, err := str("url")
		return loggedPart{url: u, field: sf + ".url"}, err
	case "file":
		id, err := str("file_id")
		return loggedPart{fileID: id, field: sf + ".file_id"}, err
	default:
		return loggedPart{}, bad(sf+".type", "%q: an image's source is base64, url or file", t)
	}
}
