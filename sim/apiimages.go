package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// apiimages.go reads the image forms of the Responses and Messages APIs as the engines read
// them, as chat's image_url parts of the same message (vLLM and llama.cpp convert both APIs
// to chat): a message holding images is its text parts one after the other and its images,
// each read from its header and counted by Config.Images as chat's are (images.go). Inline
// data is accepted, and an image_url on a loopback host is fetched as chat's is (replay's
// --media-listen); an uploaded file's id is refused: the simulator holds no files.
//   - Responses (https://platform.openai.com/docs/api-reference/responses/create):
//     {"type":"input_image","image_url":"data:...","detail":...}, and an input_file whose
//     file_data is a data URL of an image.
//   - Messages (https://docs.anthropic.com/en/api/messages):
//     {"type":"image","source":{"type":"base64","media_type":...,"data":...}}.

// wireInputPart is a Responses content part as far as the simulator reads one.
type wireInputPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
	FileID   string `json:"file_id"`
	FileData string `json:"file_data"`
}

// inputContent is a message item's text and images: a content list holding input_image
// or input_file parts is read part by part, any other content by joinText.
func inputContent(raw json.RawMessage) (string, []Image, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' || (!bytes.Contains(raw, []byte(`"input_image"`)) && !bytes.Contains(raw, []byte(`"input_file"`))) {
		s, err := joinText(raw, isResponsesText)
		return s, nil, err
	}
	var parts []wireInputPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", nil, err
	}
	var b strings.Builder
	var imgs []Image
	for i, p := range parts {
		var u string
		switch {
		case isResponsesText(p.Type):
			b.WriteString(p.Text)
			continue
		case p.Type == "input_image" && p.ImageURL != "":
			u = p.ImageURL
		case p.Type == "input_image":
			return "", nil, fmt.Errorf("part %d: input_image: image_url is required (a file_id names a file the simulator does not hold)", i)
		case p.Type == "input_file" && p.FileData != "":
			if !strings.HasPrefix(strings.ToLower(p.FileData), "data:") {
				return "", nil, fmt.Errorf("part %d: input_file: file_data must be a data URL", i)
			}
			u = p.FileData
		case p.Type == "input_file":
			return "", nil, fmt.Errorf("part %d: input_file: only an image in file_data is accepted (a file_id names a file the simulator does not hold)", i)
		default:
			continue
		}
		img, err := imageOf(u)
		if err != nil {
			return "", nil, fmt.Errorf("part %d: %s: %w", i, p.Type, err)
		}
		imgs = append(imgs, img)
	}
	return b.String(), imgs, nil
}

// wireImageSource is a Messages image block's source.
type wireImageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// blockImage is a Messages image block's image: base64 data of its media_type.
func blockImage(raw json.RawMessage) (Image, error) {
	var s wireImageSource
	if err := json.Unmarshal(raw, &s); err != nil {
		return Image{}, fmt.Errorf("source: %w", err)
	}
	if s.Type != "base64" {
		return Image{}, fmt.Errorf("source: type %q: only base64 data is accepted (for a Messages image the simulator fetches nothing and holds no files)", s.Type)
	}
	if s.MediaType == "" || s.Data == "" {
		return Image{}, errors.New("source: media_type and data are required")
	}
	img, err := imageOf("data:" + s.MediaType + ";base64," + s.Data)
	if err != nil {
		return Image{}, fmt.Errorf("source: %w", err)
	}
	return img, nil
}
