package requestlog

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/media"
)

// TestAPIImages: one request logged on chat, on the Responses API (input_image by data URL and
// by file id, an input_file holding an image) and on the Messages API (base64, url and file
// sources) reads as the same prompt: equal prompt tokens, the same images in the same places
// with equal hashes for equal bytes, the detail where the API has one.
func TestAPIImages(t *testing.T) {
	png := imageURL(t, 1, 1300, 876, media.PNG)
	jpg := imageURL(t, 2, 20, 20, media.JPEG)
	b64 := func(u string) (string, string) {
		mt, data, _ := strings.Cut(strings.TrimPrefix(u, "data:"), ";base64,")
		return mt, data
	}
	chatLine := imageLine(fmt.Sprintf(`[{"type":"text","text":"What is"},{"type":"image_url","image_url":{"url":%q,"detail":"high"}},{"type":"text","text":" in these?"},{"type":"image_url","image_url":{"url":%q}}]`, png, jpg))
	resp := fmt.Sprintf(`{"timestamp":0,"path":"/v1/responses","request":{"model":"m","input":[{"role":"user","content":"be brief"},{"role":"assistant","content":"ok"},{"role":"user","content":[{"type":"input_text","text":"What is"},{"type":"input_image","image_url":%q,"detail":"high"},{"type":"input_text","text":" in these?"},{"type":"input_file","filename":"a.jpg","file_data":%q}]}]},"response":{"usage":{"output_tokens":3}}}`, png, jpg)
	pm, pd := b64(png)
	jm, jd := b64(jpg)
	msgs := fmt.Sprintf(`{"timestamp":0,"path":"/v1/messages","request":{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"be brief"},{"role":"assistant","content":"ok"},{"role":"user","content":[{"type":"text","text":"What is"},{"type":"image","source":{"type":"base64","media_type":%q,"data":%q}},{"type":"text","text":" in these?"},{"type":"image","source":{"type":"base64","media_type":%q,"data":%q}}]}]},"response":{"usage":{"output_tokens":3}}}`, pm, pd, jm, jd)
	reqs, _, err := readAll(t, chatLine+"\n"+resp+"\n"+msgs+"\n", Options{Images: qwenRule})
	if err != nil {
		t.Fatal(err)
	}
	want := reqs[0].Record
	for i, r := range reqs[1:] {
		got := r.Record
		if got.PromptTokens != want.PromptTokens || len(got.Media) != 2 {
			t.Fatalf("%s: %d prompt tokens, %d images; chat's %d, 2", got.Options.API, got.PromptTokens, len(got.Media), want.PromptTokens)
		}
		for k, m := range got.Media {
			w := want.Media[k]
			if i == 1 {
				w.Detail = "" // Messages has no detail
			}
			if m != w {
				t.Errorf("%s image %d: %+v, want chat's %+v", got.Options.API, k, m, w)
			}
		}
	}

	var o Options
	o.Tokenizer = sampleModel(t).tok
	if err := o.SetImages("", "640x480", 77, ""); err != nil {
		t.Fatal(err)
	}
	byRef := `{"timestamp":0,"path":"/v1/responses","request":{"input":[{"role":"user","content":[{"type":"input_image","file_id":"file-abc","detail":"low"},{"type":"input_text","text":"hi"}]}]},"response":{"usage":{"output_tokens":2}}}` + "\n" +
		`{"timestamp":1,"path":"/v1/messages","request":{"max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://example.com/x.webp"}}]}]},"response":{"usage":{"output_tokens":2}}}` + "\n" +
		`{"timestamp":2,"path":"/v1/messages","request":{"max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"file","file_id":"file-abc"}}]}]},"response":{"usage":{"output_tokens":2}}}` + "\n"
	reqs, _, err = readAll(t, byRef, o)
	if err != nil {
		t.Fatal(err)
	}
	for i, wantMIME := range []string{media.PNG, media.WebP, media.PNG} {
		m := reqs[i].Media[0]
		if !m.URL || m.Width != 640 || m.Height != 480 || m.MIME != wantMIME || m.Tokens != 77 || m.Part != 0 {
			t.Errorf("line %d: %+v", i+1, m)
		}
	}
	if reqs[0].Media[0].Detail != "low" || reqs[0].Media[0].Parts != 2 || reqs[0].Media[0].Hash != reqs[2].Media[0].Hash {
		t.Errorf("file ids: %+v and %+v, want detail low, 2 parts and the same file's hash", reqs[0].Media[0], reqs[2].Media[0])
	}
}

// TestAPIImageErrors: the bad inputs of the Responses and Messages forms, each naming the
// line and the part.
func TestAPIImageErrors(t *testing.T) {
	png := imageURL(t, 1, 30, 20, media.PNG)
	data := png[len("data:image/png;base64,"):]
	resp := func(part string) string {
		return `{"timestamp":0,"path":"/v1/responses","request":{"input":[{"role":"user","content":[{"type":"input_text","text":"hi"},` + part + `]}]},"response":{"usage":{"output_tokens":2}}}`
	}
	msgs := func(source string) string {
		return `{"timestamp":0,"path":"/v1/messages","request":{"max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","source":` + source + `}]}]},"response":{"usage":{"output_tokens":2}}}`
	}
	for name, c := range map[string]struct{ line, field, want string }{
		"responses truncated":   {resp(fmt.Sprintf(`{"type":"input_image","image_url":%q}`, png[:60])), "request.input[0].content[1].image_url", "header"},
		"responses not base64":  {resp(`{"type":"input_image","image_url":"data:image/png;base64,%%%%"}`), "request.input[0].content[1].image_url", "base64"},
		"responses contradicts": {resp(fmt.Sprintf(`{"type":"input_image","image_url":%q}`, "data:image/jpeg;base64,"+data)), "request.input[0].content[1].image_url", "declared image/jpeg"},
		"responses no url":      {resp(`{"type":"input_image","detail":"auto"}`), "request.input[0].content[1].image_url", "neither"},
		"responses file id":     {resp(`{"type":"input_image","file_id":"file-1"}`), "request.input[0].content[1].file_id", "--image-size"},
		"responses pdf":         {resp(`{"type":"input_file","file_data":"data:application/pdf;base64,JVBERi0="}`), "request.input[0].content[1].file_data", "only input_files holding images"},
		"responses audio":       {resp(`{"type":"input_audio","input_audio":{}},{"type":"input_image","image_url":"` + png + `"}`), "request.input[0].content[1].type", "input_audio"},
		"messages truncated":    {msgs(fmt.Sprintf(`{"type":"base64","media_type":"image/png","data":%q}`, data[:30])), "request.messages[0].content[1].source.data", "header"},
		"messages not base64":   {msgs(`{"type":"base64","media_type":"image/png","data":"@@@@"}`), "request.messages[0].content[1].source.data", "base64"},
		"messages contradicts":  {msgs(fmt.Sprintf(`{"type":"base64","media_type":"image/gif","data":%q}`, data)), "request.messages[0].content[1].source.data", "declared image/gif"},
		"messages no data":      {msgs(`{"type":"base64","media_type":"image/png"}`), "request.messages[0].content[1].source.data", "missing"},
		"messages source type":  {msgs(`{"type":"s3","url":"x"}`), "request.messages[0].content[1].source.type", "base64, url or file"},
		"messages url no size":  {msgs(`{"type":"url","url":"https://example.com/a.png"}`), "request.messages[0].content[1].source.url", "--image-size"},
	} {
		_, _, err := readAll(t, c.line+"\n", Options{Images: qwenRule})
		var re *ingest.RowError
		if !errors.As(err, &re) || re.Line != 1 || re.Field != c.field || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want line 1, field %s, saying %q", name, err, c.field, c.want)
		}
	}
}

// TestChainedImages: a Responses request continuing an earlier answer (previous_response_id)
// holds the earlier request's images before its own, as vLLM renders the whole conversation
// again, each message's parts apart.
func TestChainedImages(t *testing.T) {
	png := imageURL(t, 1, 1300, 876, media.PNG)
	jpg := imageURL(t, 2, 20, 20, media.JPEG)
	first := fmt.Sprintf(`{"timestamp":0,"path":"/v1/responses","request":{"input":[{"role":"user","content":[{"type":"input_text","text":"What is this?"},{"type":"input_image","image_url":%q}]}]},"response":{"id":"r1","output":[{"type":"message","content":[{"type":"output_text","text":"A cat."}]}],"usage":{"output_tokens":2}}}`, png)
	second := fmt.Sprintf(`{"timestamp":1,"path":"/v1/responses","request":{"previous_response_id":"r1","input":[{"role":"user","content":[{"type":"input_image","image_url":%q},{"type":"input_text","text":"And this?"}]}]},"response":{"id":"r2","usage":{"output_tokens":2}}}`, jpg)
	third := `{"timestamp":2,"path":"/v1/responses","request":{"previous_response_id":"r2","input":"Thanks."},"response":{"usage":{"output_tokens":2}}}`
	reqs, _, err := readAll(t, first+"\n"+second+"\n"+third+"\n", Options{Images: qwenRule})
	if err != nil {
		t.Fatal(err)
	}
	big, _ := qwenRule.Tokens(1300, 876)
	small, _ := qwenRule.Tokens(20, 20)
	for i, want := range [][]int{{big}, {big, small}, {big, small}} {
		m := reqs[i].Media
		if len(m) != len(want) || reqs[i].MediaTokens() != big+small*(len(want)-1) {
			t.Fatalf("request %d: %+v, want %d images", i, m, len(want))
		}
		for k, n := range want {
			if m[k].Tokens != n {
				t.Errorf("request %d image %d: %d tokens, want %d", i, k, m[k].Tokens, n)
			}
		}
		if len(m) == 2 && (m[0].Message == m[1].Message || m[0].Hash != reqs[0].Media[0].Hash) {
			t.Errorf("request %d: %+v, want the first request's image in a message of its own", i, m)
		}
	}
	if reqs[2].PromptTokens <= reqs[1].PromptTokens || reqs[1].SessionID != reqs[0].SessionID {
		t.Errorf("prompt tokens %d, %d, %d; sessions %q %q", reqs[0].PromptTokens, reqs[1].PromptTokens, reqs[2].PromptTokens, reqs[0].SessionID, reqs[1].SessionID)
	}
}
