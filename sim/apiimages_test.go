package sim

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/llm-replay/replay/media"
)

// TestAPIImages: the Responses API's input_image and input_file parts and the Messages API's
// image blocks are counted as chat's image_url parts are (the text parts one after the other
// plus each image by the rule); by-reference forms and bad data are 400s naming the part.
func TestAPIImages(t *testing.T) {
	cfg := fastConfig()
	cfg.Images = media.Qwen2VL{Family: "qwen2_vl", Patch: 14, Merge: 2, MinPixels: 3136, MaxPixels: 12845056, Wrap: 2}
	var seen []Message
	cfg.ChatCounter = func(msgs []Message, _ json.RawMessage) (int, error) {
		seen = msgs
		return len(strings.Fields(msgs[0].Content)), nil
	}
	_, url := startServer(t, cfg)
	big, _ := media.Build(1, 1300, 876, media.PNG)
	small, _ := media.Build(2, 20, 20, media.JPEG)
	bigURL, smallURL := media.DataURL(big.MIME, big.Data), media.DataURL(small.MIME, small.Data)
	responses := func(parts ...any) map[string]any {
		return map[string]any{"model": "m", "max_output_tokens": 2, "input": []any{map[string]any{"role": "user", "content": parts}}}
	}
	text := func(typ, s string) map[string]any { return map[string]any{"type": typ, "text": s} }
	source := func(mime string, data []byte) map[string]any {
		return map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": mime, "data": strings.TrimPrefix(media.DataURL(mime, data), "data:"+mime+";base64,")}}
	}
	messages := func(blocks ...any) map[string]any {
		return map[string]any{"model": "m", "max_tokens": 2, "messages": []any{map[string]any{"role": "user", "content": blocks}}}
	}
	for path, body := range map[string]map[string]any{
		"/v1/responses": responses(text("input_text", "look"), map[string]any{"type": "input_image", "image_url": bigURL, "detail": "high"},
			map[string]any{"type": "input_file", "filename": "a.jpg", "file_data": smallURL}, text("input_text", " closely")),
		"/v1/messages": messages(text("text", "look"), source(big.MIME, big.Data), source(small.MIME, small.Data), text("text", " closely")),
	} {
		seen = nil
		res := post(t, url, path, body)
		if res.status != 200 {
			t.Fatalf("%s: %d: %s", path, res.status, res.body)
		}
		var a struct {
			Usage struct {
				InputTokens int `json:"input_tokens"`
				CacheRead   int `json:"cache_read_input_tokens"` // Messages counts the cached prompt apart
			} `json:"usage"`
		}
		if err := json.Unmarshal(res.body, &a); err != nil {
			t.Fatalf("%s: %v: %s", path, err, res.body)
		}
		if got := a.Usage.InputTokens + a.Usage.CacheRead; got != 2+1428+6 {
			t.Errorf("%s: input tokens %d, want 2 + 1428 + 6, as chat counts them", path, got)
		}
		if len(seen) != 1 || seen[0].Content != "look closely" || len(seen[0].Images) != 2 || seen[0].Images[1].Width != 20 {
			t.Errorf("%s: the counter saw %+v", path, seen)
		}
	}
	for name, c := range map[string]struct {
		path string
		body map[string]any
		want string
	}{
		"file id":       {"/v1/responses", responses(map[string]any{"type": "input_image", "file_id": "file-1"}), "input[0]"},
		"truncated":     {"/v1/responses", responses(map[string]any{"type": "input_image", "image_url": media.DataURL(big.MIME, big.Data[:30])}), "header"},
		"url source":    {"/v1/messages", messages(map[string]any{"type": "image", "source": map[string]any{"type": "url", "url": "https://example.com/a.png"}}), "fetches nothing"},
		"contradicts":   {"/v1/messages", messages(source(media.GIF, big.Data)), "declared image/gif"},
		"image only ok": {"/v1/messages", messages(source(small.MIME, small.Data)), ""},
	} {
		res := post(t, url, c.path, c.body)
		if c.want == "" {
			if res.status != 200 {
				t.Errorf("%s: %d %s", name, res.status, res.body)
			}
			continue
		}
		if res.status != 400 || !strings.Contains(string(res.body), c.want) {
			t.Errorf("%s: %d %s; want 400 saying %q", name, res.status, res.body, c.want)
		}
	}
}

// TestAPIImageCache: images are cached by content across the APIs as chat's are: a Messages
// request with the images a Responses request sent reads more of its prompt from the cache
// than one whose second image differs. (The simulator's cache blocks hold a message's images
// after its text, as chat's do: images.go.)
func TestAPIImageCache(t *testing.T) {
	cfg := fastConfig()
	cfg.Images = media.Fixed(100)
	_, url := startServer(t, cfg)
	a, _ := media.Build(1, 64, 64, media.PNG)
	b, _ := media.Build(2, 64, 64, media.PNG)
	text := strings.Repeat("the same words every time ", 20)
	input := func(imgs ...media.StandIn) map[string]any {
		parts := []any{map[string]any{"type": "input_text", "text": text}}
		for _, img := range imgs {
			parts = append(parts, map[string]any{"type": "input_image", "image_url": media.DataURL(img.MIME, img.Data)})
		}
		return map[string]any{"model": "m", "max_output_tokens": 2, "input": []any{map[string]any{"role": "user", "content": parts}}}
	}
	blocks := func(imgs ...media.StandIn) map[string]any {
		parts := []any{map[string]any{"type": "text", "text": text}}
		for _, img := range imgs {
			data := strings.TrimPrefix(media.DataURL(img.MIME, img.Data), "data:image/png;base64,")
			parts = append(parts, map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": data}})
		}
		return map[string]any{"model": "m", "max_tokens": 2, "messages": []any{map[string]any{"role": "user", "content": parts}}}
	}
	cached := func(path string, body map[string]any) int {
		res := post(t, url, path, body)
		var u struct {
			Usage struct {
				CacheRead int `json:"cache_read_input_tokens"`
				Details   struct {
					Cached int `json:"cached_tokens"`
				} `json:"input_tokens_details"`
			} `json:"usage"`
		}
		if res.status != 200 || json.Unmarshal(res.body, &u) != nil {
			t.Fatalf("%s: %d %s", path, res.status, res.body)
		}
		return u.Usage.CacheRead + u.Usage.Details.Cached
	}
	if n := cached("/v1/responses", input(a, a)); n != 0 {
		t.Errorf("first request: %d cached", n)
	}
	same := cached("/v1/messages", blocks(a, a))
	other := cached("/v1/messages", blocks(a, b))
	t.Logf("cached: the same images %d, the second another %d", same, other)
	if same == 0 || other >= same {
		t.Errorf("the same images on the Messages API: %d cached; the second image another: %d, want fewer", same, other)
	}
}
