package synth

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/synth/tokenizer"
	"github.com/llm-replay/replay/trace"
)

// apiRecord is rec logged against api.
func apiRecord(api string, rec trace.Record) trace.Record {
	rec.Options = &trace.Options{API: api}
	return rec
}

func imageRecord(tokens int, parts ...trace.MediaPart) trace.Record {
	return trace.Record{PromptTokens: tokens, OutputTokens: 3, Options: &trace.Options{API: trace.APIChat}, Media: parts}
}

// TestMediaParts: the logged layout comes back (images where they were, text in the other
// parts' places, an image-only message's text after its images), the text parts one after the
// other are the message's content, the text exact to the logged total less the logged images'
// tokens, the target the text plus the target rule's tokens.
func TestMediaParts(t *testing.T) {
	tok, err := tokenizer.Load(testenv.SampleTokenizer())
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(tok, Config{API: APIChat, Images: media.Fixed(500)})
	if err != nil {
		t.Fatal(err)
	}
	img := func(msg, part, parts int, hash uint64) trace.MediaPart {
		return trace.MediaPart{Kind: "image", MIME: media.PNG, Width: 64, Height: 32, Hash: hash, Message: msg, Part: part, Parts: parts, Tokens: 100}
	}
	for _, c := range []struct {
		rec    trace.Record
		layout string
	}{
		{imageRecord(400, img(0, 1, 4, 1), img(0, 3, 4, 2)), "text image text image"},
		{imageRecord(400, img(0, 0, 2, 1), img(0, 1, 2, 1)), "image image text"},
		{imageRecord(400, img(0, 0, 1, 7), img(2, 1, 3, 8)), "image text image text"},
		{apiRecord(trace.APIResponses, imageRecord(400, img(0, 1, 4, 1), img(0, 3, 4, 2))), "text image text image"},
		{apiRecord(trace.APIMessages, imageRecord(400, img(0, 0, 2, 1), img(0, 1, 2, 1))), "image image text"},
	} {
		req, err := b.Build(c.rec)
		if err != nil {
			t.Fatal(err)
		}
		last := req.Messages[len(req.Messages)-1]
		var kinds []string
		text := ""
		for _, p := range last.Parts {
			kinds = append(kinds, map[string]string{chat.PartText: "text", chat.PartImage: "image"}[p.Type])
			if p.Type == chat.PartText && p.Text == "" {
				t.Errorf("%s: an empty text part", c.layout)
			}
			text += p.Text
		}
		if got := strings.Join(kinds, " "); got != c.layout || text != last.Content {
			t.Errorf("layout %q, want %q; parts' text %q, content %q", got, c.layout, text, last.Content)
		}
		images := len(c.rec.Media)
		if req.MediaTokens != 500*images || req.TargetPromptTokens != len(req.PromptIDs)+500*images || len(req.PromptIDs) != 400-100*images {
			t.Errorf("%s: %d text ids, %d media tokens, target %d", c.layout, len(req.PromptIDs), req.MediaTokens, req.TargetPromptTokens)
		}
	}
}

func TestMediaRefused(t *testing.T) {
	tok, err := tokenizer.Load(testenv.SampleTokenizer())
	if err != nil {
		t.Fatal(err)
	}
	part := trace.MediaPart{Kind: "image", MIME: media.PNG, Width: 64, Height: 32, Hash: 1, Parts: 1, Tokens: 100}
	noRule, _ := New(tok, Config{API: APIChat})
	if _, err := noRule.Build(imageRecord(300, part)); err == nil || !strings.Contains(err.Error(), "--image-tokens") {
		t.Errorf("no rule: %v", err)
	}
	b, _ := New(tok, Config{API: APIChat, Images: media.Fixed(5)})
	rec := imageRecord(300, part)
	rec.Options = &trace.Options{API: trace.APICompletions}
	if _, err := b.Build(rec); err == nil || !strings.Contains(err.Error(), "not completions") {
		t.Errorf("completions: %v", err)
	}
	if _, err := b.Build(imageRecord(100, part)); err == nil || !strings.Contains(err.Error(), "no more than its media") {
		t.Errorf("all images: %v", err)
	}
}

// TestAudioParts: a record's clips come back as input_audio WAV parts in their logged places,
// each read back as the logged rate, channels and length (an MP3 as WAV of the same length),
// the same logged clip as the same bytes and different ones apart, counted by the target's
// audio rule; without a rule the record is refused naming --audio-tokens-per-second.
func TestAudioParts(t *testing.T) {
	tok, err := tokenizer.Load(testenv.SampleTokenizer())
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(tok, Config{API: APIChat, Images: media.Fixed(500), Audio: media.TokensPerSecond(25)})
	if err != nil {
		t.Fatal(err)
	}
	wav := trace.MediaPart{Kind: "audio", MIME: "audio/wav", SampleRate: 16000, Channels: 1, Bits: 16, Samples: 24000, Hash: 1, Message: 0, Part: 0, Parts: 4, Tokens: 40}
	mp3 := trace.MediaPart{Kind: "audio", MIME: "audio/mpeg", SampleRate: 44100, Channels: 2, Samples: 113624, Hash: 2, Message: 0, Part: 2, Parts: 4, Tokens: 70}
	again := wav
	again.Part = 3
	img := trace.MediaPart{Kind: "image", MIME: media.PNG, Width: 64, Height: 32, Hash: 3, Message: 0, Part: 1, Parts: 4, Tokens: 100}
	req, err := b.Build(imageRecord(600, wav, img, mp3, again))
	if err != nil {
		t.Fatal(err)
	}
	parts := req.Messages[len(req.Messages)-1].Parts
	var kinds []string
	var clips []media.Audio
	var data []string
	for _, p := range parts {
		kinds = append(kinds, p.Type)
		if p.Type != chat.PartAudio {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(p.AudioData)
		if err != nil {
			t.Fatal(err)
		}
		a, err := media.ReadAudio(raw, p.AudioFormat)
		if err != nil {
			t.Fatal(err)
		}
		clips, data = append(clips, a), append(data, p.AudioData)
	}
	if got := strings.Join(kinds, " "); got != "input_audio image_url input_audio input_audio text" {
		t.Fatalf("layout %q", got)
	}
	want := []media.Audio{{Format: media.WAV, SampleRate: 16000, Channels: 1, Bits: 16, Samples: 24000},
		{Format: media.WAV, SampleRate: 44100, Channels: 2, Bits: 16, Samples: 113624}, {Format: media.WAV, SampleRate: 16000, Channels: 1, Bits: 16, Samples: 24000}}
	for i := range want {
		if clips[i] != want[i] {
			t.Errorf("clip %d sent as %+v, want %+v", i, clips[i], want[i])
		}
	}
	if data[0] != data[2] || data[0] == data[1] {
		t.Error("the same logged clip is not the same bytes, or different clips are")
	}
	// 1.5 s at 25 a second is 38 (37.5 rounded up); 113624 samples at 44.1 kHz, 2.577 s, 65.
	if mt := 38 + 65 + 38 + 500; req.MediaTokens != mt || len(req.PromptIDs) != 600-40-100-70-40 || req.TargetPromptTokens != len(req.PromptIDs)+mt {
		t.Errorf("%d text ids, %d media tokens, target %d", len(req.PromptIDs), req.MediaTokens, req.TargetPromptTokens)
	}
	noRule, _ := New(tok, Config{API: APIChat, Images: media.Fixed(5)})
	if _, err := noRule.Build(imageRecord(600, wav)); err == nil || !strings.Contains(err.Error(), "--audio-tokens-per-second") {
		t.Errorf("no rule: %v", err)
	}
}

// TestAudioOnChatOnly: a record with a clip logged against the Responses or Messages API is
// refused, naming the API, rather than sent with the clip dropped (the client writes clips in
// chat's shape only).
func TestAudioOnChatOnly(t *testing.T) {
	tok, err := tokenizer.Load(testenv.SampleTokenizer())
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(tok, Config{API: APIChat, Audio: media.TokensPerSecond(25)})
	if err != nil {
		t.Fatal(err)
	}
	clip := trace.MediaPart{Kind: "audio", MIME: "audio/wav", SampleRate: 16000, Channels: 1, Bits: 16, Samples: 16000, Hash: 1, Part: 0, Parts: 2, Tokens: 25}
	for _, api := range []string{trace.APIResponses, trace.APIMessages} {
		rec := imageRecord(300, clip)
		rec.Options.API = api
		if _, err := b.Build(rec); err == nil || !strings.Contains(err.Error(), "chat API only") {
			t.Errorf("%s: %v, want a refusal naming the chat API", api, err)
		}
	}
}

// TestMediaSplitsText: under Config.MediaSplitsText (a llama.cpp endpoint), the text of a
// message holding images reads the same end to end, no text part after an image starts with a
// space (such a piece tokenizes apart from what tokenizer.json says: llama.cpp's "▁▁"), and
// the target is the pieces' count, which on the Mistral sample's SentencePiece vocabulary is
// the whole text's plus a "▁" for each piece after an image (as llama-server counts it: the
// e2e vision slice); counted whole, the text is the target less the media.
func TestMediaSplitsText(t *testing.T) {
	tok, err := tokenizer.Load(testenv.SampleTokenizer())
	if err != nil {
		t.Fatal(err)
	}
	img := func(part, parts int, hash uint64) trace.MediaPart {
		return trace.MediaPart{Kind: "image", MIME: media.PNG, Width: 64, Height: 32, Hash: hash, Part: part, Parts: parts, Tokens: 100}
	}
	rec := imageRecord(400, img(1, 4, 1), img(3, 4, 2)) // text image text image
	build := func(split bool) Request {
		b, err := New(tok, Config{API: APIChat, Images: media.Fixed(500), MediaSplitsText: split})
		if err != nil {
			t.Fatal(err)
		}
		req, err := b.Build(rec)
		if err != nil {
			t.Fatal(err)
		}
		return req
	}
	whole, split := build(false), build(true)
	if got := whole.TargetPromptTokens - whole.MediaTokens; whole.TextTokens != got {
		t.Errorf("counted whole: text %d tokens, target less media %d", whole.TextTokens, got)
	}
	last := split.Messages[len(split.Messages)-1]
	text, afterImage := "", false
	for i, p := range last.Parts {
		if p.Type != chat.PartText {
			afterImage = true
			continue
		}
		if afterImage && strings.HasPrefix(p.Text, " ") {
			t.Errorf("part %d, after an image, starts with a space: %q", i, p.Text)
		}
		text += p.Text
	}
	if text != last.Content {
		t.Errorf("the parts' text is not the message's:\n%q\n%q", text, last.Content)
	}
	// The template closes the message after the last image: its " [/INST]" is a piece of its
	// own there, one "▁" more than in the whole text.
	if extra := split.TargetPromptTokens - split.MediaTokens - split.TextTokens; extra < 1 || extra > 3 {
		t.Errorf("counted in pieces: %d tokens more than the whole text's %d, want 1 to 3 (a \"▁\" a piece after an image)", extra, split.TextTokens)
	}
	if split.TargetPromptTokens != whole.TargetPromptTokens {
		t.Errorf("target %d counted in pieces, %d whole: the logged total less its images plus the target's is one number", split.TargetPromptTokens, whole.TargetPromptTokens)
	}
}
