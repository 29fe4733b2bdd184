package requestlog

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/trace"
)

// qwenRule is Qwen2-VL's rule with its processor's defaults (media's tests check it against
// vLLM's values).
var qwenRule = media.Qwen2VL{Family: "qwen2_vl", Patch: 14, Merge: 2, MinPixels: 56 * 56, MaxPixels: 28 * 28 * 1280, Wrap: 2}

func imageURL(t *testing.T, key uint64, w, h int, mime string) string {
	t.Helper()
	img, err := media.Build(key, w, h, mime)
	if err != nil {
		t.Fatal(err)
	}
	return media.DataURL(img.MIME, img.Data)
}

func imageLine(content string) string {
	return `{"timestamp":0,"request":{"model":"m","messages":[{"role":"user","content":"be brief"},{"role":"assistant","content":"ok"},{"role":"user","content":` + content + `}]},"response":{"usage":{"completion_tokens":3}}}`
}

// TestReadImages: a message of text, two images and text is counted as its text (the parts one
// after the other) plus each image's tokens by the rule; the media parts keep format, size,
// detail, place and a keyed hash equal for equal bytes; nothing of the bytes stays.
func TestReadImages(t *testing.T) {
	png := imageURL(t, 1, 1300, 876, media.PNG)
	jpg := imageURL(t, 2, 20, 20, media.JPEG)
	content := fmt.Sprintf(`[{"type":"text","text":"What is"},{"type":"image_url","image_url":{"url":%q,"detail":"high"}},{"type":"image_url","image_url":{"url":%q}},{"type":"text","text":" in these?"},{"type":"image_url","image_url":{"url":%q}}]`, png, jpg, png)
	plain := imageLine(`"What is in these?"`)
	log := imageLine(content) + "\n" + plain + "\n"
	reqs, _, err := readAll(t, log, Options{Images: qwenRule})
	if err != nil {
		t.Fatal(err)
	}
	got := reqs[0].Record
	big, _ := qwenRule.Tokens(1300, 876)
	small, _ := qwenRule.Tokens(20, 20)
	if want := reqs[1].PromptTokens + 2*big + small; got.PromptTokens != want || got.MediaTokens() != 2*big+small {
		t.Errorf("prompt tokens %d (media %d), want the text's %d + %d + %d + %d", got.PromptTokens, got.MediaTokens(), reqs[1].PromptTokens, big, small, big)
	}
	want := []trace.MediaPart{
		{Kind: "image", MIME: media.PNG, Width: 1300, Height: 876, Detail: "high", Message: 2, Part: 1, Parts: 5, Tokens: big},
		{Kind: "image", MIME: media.JPEG, Width: 20, Height: 20, Message: 2, Part: 2, Parts: 5, Tokens: small},
		{Kind: "image", MIME: media.PNG, Width: 1300, Height: 876, Message: 2, Part: 4, Parts: 5, Tokens: big},
	}
	for i, m := range got.Media {
		h := m.Hash
		m.Hash = 0
		if m != want[i] {
			t.Errorf("part %d: %+v, want %+v", i, m, want[i])
		}
		if h == 0 {
			t.Errorf("part %d: no hash", i)
		}
	}
	if got.Media[0].Hash != got.Media[2].Hash || got.Media[0].Hash == got.Media[1].Hash {
		t.Errorf("hashes %x %x %x: want the same image's equal and the others' apart", got.Media[0].Hash, got.Media[1].Hash, got.Media[2].Hash)
	}
}

// TestImageErrors are the bad inputs, each naming the line and the part; --on-error
// skip quarantines them, but a missing rule ends the read (every image line would fail).
func TestImageErrors(t *testing.T) {
	png := imageURL(t, 1, 30, 20, media.PNG)
	b64 := png[len("data:image/png;base64,"):]
	part := func(url string) string {
		return fmt.Sprintf(`[{"type":"text","text":"hi"},{"type":"image_url","image_url":{"url":%q}}]`, url)
	}
	const field = `request.messages[2].content[1].image_url.url`
	for name, c := range map[string]struct {
		content string
		opts    Options
		want    string
	}{
		"truncated":    {part("data:image/png;base64," + b64[:24]), Options{Images: qwenRule}, "header"},
		"not base64":   {part("data:image/png;base64,%%%%"), Options{Images: qwenRule}, "base64"},
		"contradicts":  {part("data:image/gif;base64," + b64), Options{Images: qwenRule}, "declared image/gif, but the data is image/png"},
		"url, no size": {part("https://example.com/cat.jpg"), Options{Images: qwenRule}, "--image-size"},
		"no rule":      {part(png), Options{}, "--image-tokens"},
		"video":        {`[{"type":"video_url","video_url":{"url":"x"}},{"type":"image_url","image_url":{"url":"` + png + `"}}]`, Options{Images: qwenRule}, "video_url"},
		"ratio":        {part(imageURL(t, 3, 4020, 20, media.PNG)), Options{Images: qwenRule}, "aspect ratio"},
	} {
		_, _, err := readAll(t, imageLine(c.content)+"\n", c.opts)
		var re *ingest.RowError
		if !errors.As(err, &re) || re.Line != 1 || !strings.Contains(err.Error(), c.want) || !strings.Contains(re.Field, "messages[2].content") {
			t.Errorf("%s: err %v, want line 1, a field in messages[2].content, saying %q", name, err, c.want)
		}
		if name != "video" && re != nil && re.Field != field && name != "url, no size" {
			t.Errorf("%s: field %q, want %q", name, re.Field, field)
		}
	}
	var q bytes.Buffer
	bad := imageLine(part("data:image/png;base64,"+b64[:24])) + "\n"
	reqs, counts, err := readAll(t, bad+imageLine(part(png))+"\n", Options{Images: qwenRule, OnError: ingest.OnErrorSkip, Quarantine: &q})
	if err != nil || len(reqs) != 1 || counts.Rejected != 1 || q.String() != bad {
		t.Errorf("skip: %d records, %d rejected, quarantine %q, err %v", len(reqs), counts.Rejected, q.String(), err)
	}
	_, _, err = readAll(t, imageLine(part(png))+"\n", Options{OnError: ingest.OnErrorSkip})
	if err == nil || !strings.Contains(err.Error(), "--image-tokens") {
		t.Errorf("skip without a rule: err %v, want the read ended naming --image-tokens", err)
	}
}

// TestImageByURL sizes an image logged by URL with --image-size and takes its format from its
// name.
func TestImageByURL(t *testing.T) {
	var o Options
	o.Tokenizer = sampleModel(t).tok
	if err := o.SetImages("", "640x480", 77, ""); err != nil {
		t.Fatal(err)
	}
	reqs, _, err := readAll(t, imageLine(`[{"type":"image_url","image_url":{"url":"https://example.com/a/cat.JPG?x=1"}}]`)+"\n", o)
	if err != nil {
		t.Fatal(err)
	}
	m := reqs[0].Media[0]
	if !m.URL || m.Width != 640 || m.Height != 480 || m.MIME != media.JPEG || m.Tokens != 77 {
		t.Errorf("%+v", m)
	}
}

// TestImageRuleGemma3 loads Gemma 3's rule from a model folder: the fetched Gemma 3 tokenizer
// with google/gemma-3-4b-it's published config.json (model_type gemma3, mm_tokens_per_image
// 256) and processor_config.json (image_seq_length 256), written here. Gemma's tokenizer has
// "\n\n" as one token and <start_of_image>, <end_of_image> as specials, so an image is
// 256 + 2 + 2 prompt tokens whatever its size.
func TestImageRuleGemma3(t *testing.T) {
	src := testenv.Tokenizer(t, "gemma3")
	dir := t.TempDir()
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json"} {
		if err := os.Symlink(filepath.Join(src, f), filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range map[string]string{
		"config.json":           `{"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3", "mm_tokens_per_image": 256, "boi_token_index": 255999, "eoi_token_index": 256000, "image_token_index": 262144}`,
		"processor_config.json": `{"image_seq_length": 256, "processor_class": "Gemma3Processor"}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := loadModel(t, "gemma3")
	rule, err := ImageRule(dir, m.tok, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, wh := range [][2]int{{20, 20}, {4000, 3000}, {3000, 100}} {
		if n, err := rule.Tokens(wh[0], wh[1]); err != nil || n != 260 {
			t.Errorf("%v: %d tokens (%v), want 260 (%s)", wh, n, err, rule.Name())
		}
	}
	if r, err := ImageRule(dir, m.tok, 42); err != nil || r.Name() != "--image-tokens 42" {
		t.Errorf("--image-tokens 42: %v, %v", r, err)
	}
}

// TestImageRuleQwen2VL loads Qwen2-VL's rule from a model folder through ImageRule: Qwen3's
// tokenizer (its vocabulary holds <|vision_start|> and <|vision_end|> as single special tokens)
// with Qwen/Qwen2-VL-2B-Instruct's published config values, written here; vLLM's test image
// (1300×876) is 1426 pads (test_qwen2_vl.py, cited in media/qwen2vl.go) and the 2 wrappers.
func TestImageRuleQwen2VL(t *testing.T) {
	src := testenv.Tokenizer(t, "qwen3")
	dir := t.TempDir()
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json"} {
		if err := os.Symlink(filepath.Join(src, f), filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range map[string]string{
		"config.json":              `{"model_type": "qwen2_vl"}`,
		"preprocessor_config.json": `{"min_pixels": 3136, "max_pixels": 12845056, "patch_size": 14, "temporal_patch_size": 2, "merge_size": 2}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rule, err := ImageRule(dir, loadModel(t, "qwen3").tok, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := rule.Tokens(1300, 876); err != nil || n != 1428 {
		t.Errorf("1300x876: %d tokens (%v), want 1426 + 2 (%s)", n, err, rule.Name())
	}
}

// TestLoggedModelRule: an image is counted as logged by the rule of the model the line names
// (gpt-4o's tiles, Claude's area), by the served model's own where the name names no hosted
// family, and by --logged-model's (Options.Logged) whatever the name; Counts.ImageRules says
// which counted how many.
func TestLoggedModelRule(t *testing.T) {
	img := imageURL(t, 7, 1024, 1024, media.PNG)
	line := func(model string) string {
		return `{"timestamp":0,"request":{"model":"` + model + `","messages":[{"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image_url","image_url":{"url":"` + img + `","detail":"high"}}]}]},"response":{"usage":{"prompt_tokens":2000,"completion_tokens":3}}}`
	}
	log := line("gpt-4o-2024-08-06") + "\n" + line("claude-sonnet-4-20250514") + "\n" + line("prod-vision") + "\n"
	own, _ := qwenRule.Tokens(1024, 1024)
	reqs, c, err := readAll(t, log, Options{Images: qwenRule})
	if err != nil {
		t.Fatal(err)
	}
	text := reqs[2].PromptTokens - own           // the text as the served tokenizer counts it, the same in every line
	for i, want := range []int{765, 1399, own} { // 85 + 4·170; ceil(1024·1024/750)
		if got := reqs[i].MediaTokens(); got != want || reqs[i].PromptTokens != text+want {
			t.Errorf("line %d: media tokens %d, prompt %d; want %d, the text's %d + %d", i+1, got, reqs[i].PromptTokens, want, text, want)
		}
	}
	if len(c.ImageRules) != 3 || c.ImageRules[qwenRule.Name()+" (the served model's own)"] != 1 {
		t.Errorf("image rules %v: want gpt-4o's, claude's and the served model's own, one image each", c.ImageRules)
	}
	logged, err := LoggedModelRule("gpt-4o")
	if err != nil {
		t.Fatal(err)
	}
	reqs, _, err = readAll(t, log, Options{Images: qwenRule, Logged: logged})
	if err != nil {
		t.Fatal(err)
	}
	for i := range reqs {
		if got := reqs[i].MediaTokens(); got != 765 {
			t.Errorf("--logged-model gpt-4o, line %d: media tokens %d, want 765", i+1, got)
		}
	}
	if _, err := LoggedModelRule("no-such-model"); err == nil || !strings.Contains(err.Error(), "--logged-model") {
		t.Errorf("an unknown --logged-model: %v, want an error naming the flag", err)
	}
}

// TestImageSizeInferred: an image logged by URL alone, without --image-size, is sized from the
// prompt tokens its line's usage holds beyond its text, by the logged model's rule: gpt-4o's
// 765 is a square OpenAI's tiles count 765 for (its guide: 1024×1024 at high detail, 4 tiles,
// 85 + 4×170); two such images share what is left; a rule that counts every size alike
// (LLaVA-1.5's 576, --image-tokens) cannot tell a size, and neither can a line without usage:
// both name --image-size.
func TestImageSizeInferred(t *testing.T) {
	line := func(model, content string, prompt int) string {
		usage := `"completion_tokens":3`
		if prompt >= 0 {
			usage = fmt.Sprintf(`"prompt_tokens":%d,"completion_tokens":3`, prompt)
		}
		return fmt.Sprintf(`{"timestamp":0,"request":{"model":%q,"messages":[{"role":"user","content":%s}]},"response":{"usage":{%s}}}`, model, content, usage) + "\n"
	}
	url := func(name string) string {
		return `{"type":"image_url","image_url":{"url":"https://cdn.example.com/` + name + `.jpg","detail":"high"}}`
	}
	plain, _, err := readAll(t, line("gpt-4o", `"Describe these"`, -1), Options{Images: qwenRule})
	if err != nil {
		t.Fatal(err)
	}
	text := plain[0].PromptTokens
	gpt, _ := media.LoggedRule("gpt-4o")
	reqs, counts, err := readAll(t, line("gpt-4o", `[{"type":"text","text":"Describe these"},`+url("a")+`]`, text+765)+
		line("gpt-4o", `[{"type":"text","text":"Describe these"},`+url("b")+`,`+url("c")+`]`, text+1021), Options{Images: qwenRule})
	if err != nil {
		t.Fatal(err)
	}
	m := reqs[0].Media[0]
	n, _ := media.TokensOf(gpt, m.Width, m.Height, "high")
	if !m.SizeInferred || m.Tokens != 765 || n != 765 || m.Width != m.Height || reqs[0].PromptTokens != text+765 {
		t.Errorf("one image: %+v (the rule counts %d for its size), prompt %d, want a square counted 765, prompt %d", m, n, reqs[0].PromptTokens, text+765)
	}
	b, c := reqs[1].Media[0], reqs[1].Media[1]
	if !b.SizeInferred || !c.SizeInferred || b.Tokens != 511 || c.Tokens != 510 || reqs[1].PromptTokens != text+1021 {
		t.Errorf("two images: %+v %+v, prompt %d, want 511 and 510 of the 1021 beside the text", b, c, reqs[1].PromptTokens)
	}
	if counts.ImagesSizeInferred != 3 {
		t.Errorf("counts: %d images sized from the usage, want 3", counts.ImagesSizeInferred)
	}
	for name, c := range map[string]struct {
		model  string
		prompt int
		opts   Options
		want   string
	}{
		"no usage":    {"gpt-4o", -1, Options{Images: qwenRule}, "nor a logged prompt count"},
		"fixed count": {"prod-model", text + 576, Options{Images: media.Fixed(576)}, "counts every size as 576"},
		"too few":     {"gpt-4o", text, Options{Images: qwenRule}, "leave 0 beside its text"},
	} {
		_, _, err := readAll(t, line(c.model, `[{"type":"text","text":"Describe these"},`+url("a")+`]`, c.prompt), c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--image-size") {
			t.Errorf("%s: err %v, want it to say %q and name --image-size", name, err, c.want)
		}
	}
}
