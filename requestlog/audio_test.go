package requestlog

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/trace"
)

// qwenAudio is Qwen2-Audio's rule with its feature extractor's values (media's tests hold it
// to the processor's).
var qwenAudio = media.Qwen2Audio{Rate: 16000, Hop: 160, NSamples: 480000, Wrap: 2}

func wavData(t *testing.T, key uint64, a media.Audio) string {
	t.Helper()
	s, err := media.BuildAudio(key, a)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(s.Data)
}

// mp3Data is n frames of MPEG-1 Layer III at 128 kbit/s, 44.1 kHz, joint stereo (417 bytes,
// 1152 samples each).
func mp3Data(n int) string {
	frame := append([]byte{0xff, 0xfb, 0x90, 0x44}, make([]byte, 413)...)
	return base64.StdEncoding.EncodeToString(bytes.Repeat(frame, n))
}

func audioPartJSON(data, format string) string {
	return fmt.Sprintf(`{"type":"input_audio","input_audio":{"data":%q,"format":%q}}`, data, format)
}

// TestReadAudio: a message of text, a WAV clip, an image and an MP3 clip is counted as its text
// plus each part's tokens by its kind's rule; the parts keep format, rate, channels, length,
// place and a keyed hash, equal for equal bytes.
func TestReadAudio(t *testing.T) {
	wav := wavData(t, 1, media.Audio{SampleRate: 16000, Channels: 1, Bits: 16, Samples: 64321})
	mp3 := mp3Data(40)
	png := imageURL(t, 1, 100, 80, media.PNG)
	content := fmt.Sprintf(`[{"type":"text","text":"What is"},%s,{"type":"image_url","image_url":{"url":%q}},%s,{"type":"text","text":" in these?"},%s]`,
		audioPartJSON(wav, "wav"), png, audioPartJSON(mp3, "mp3"), audioPartJSON(wav, "wav"))
	log := imageLine(content) + "\n" + imageLine(`"What is in these?"`) + "\n"
	reqs, counts, err := readAll(t, log, Options{Images: qwenRule, Audio: qwenAudio})
	if err != nil {
		t.Fatal(err)
	}
	got := reqs[0].Record
	img, _ := qwenRule.Tokens(100, 80)
	// 64321 samples at 16 kHz: 403 frames, 101 placeholders (the processor's test's count);
	// 40 MP3 frames, 46080 samples at 44.1 kHz: 16719 at 16 kHz, 105 frames, 26 placeholders.
	wavTokens, mp3Tokens := 101+2, 26+2
	if want := reqs[1].PromptTokens + img + 2*wavTokens + mp3Tokens; got.PromptTokens != want {
		t.Errorf("prompt tokens %d, want the text's %d + %d + 2×%d + %d", got.PromptTokens, reqs[1].PromptTokens, img, wavTokens, mp3Tokens)
	}
	want := []trace.MediaPart{
		{Kind: "audio", MIME: "audio/wav", SampleRate: 16000, Channels: 1, Bits: 16, Samples: 64321, Message: 2, Part: 1, Parts: 6, Tokens: wavTokens},
		{Kind: "image", MIME: media.PNG, Width: 100, Height: 80, Message: 2, Part: 2, Parts: 6, Tokens: img},
		{Kind: "audio", MIME: "audio/mpeg", SampleRate: 44100, Channels: 2, Samples: 46080, Message: 2, Part: 3, Parts: 6, Tokens: mp3Tokens},
		{Kind: "audio", MIME: "audio/wav", SampleRate: 16000, Channels: 1, Bits: 16, Samples: 64321, Message: 2, Part: 5, Parts: 6, Tokens: wavTokens},
	}
	if len(got.Media) != len(want) {
		t.Fatalf("%d media parts, want %d", len(got.Media), len(want))
	}
	for i, m := range got.Media {
		h := m.Hash
		m.Hash = 0
		if m != want[i] || h == 0 {
			t.Errorf("part %d: %+v (hash %x), want %+v", i, m, h, want[i])
		}
	}
	if got.Media[0].Hash != got.Media[3].Hash || got.Media[0].Hash == got.Media[2].Hash {
		t.Errorf("hashes %x %x: want the same clip's equal and another's apart", got.Media[0].Hash, got.Media[2].Hash)
	}
	if counts.Audio != 3 || counts.Images != 1 {
		t.Errorf("counted %d clips and %d images, want 3 and 1", counts.Audio, counts.Images)
	}
}

// TestAudioErrors are the bad inputs, each naming the line and the part; --on-error
// skip quarantines them, but a missing rule ends the read naming --audio-tokens-per-second.
func TestAudioErrors(t *testing.T) {
	wav := wavData(t, 1, media.Audio{SampleRate: 16000, Channels: 1, Bits: 16, Samples: 1600})
	part := func(p string) string { return `[{"type":"text","text":"hi"},` + p + `]` }
	const field = `request.messages[2].content[1].input_audio.data`
	for name, c := range map[string]struct {
		content string
		opts    Options
		want    string
	}{
		"truncated":   {part(audioPartJSON(wav[:len(wav)-400], "wav")), Options{Audio: qwenAudio}, "cut"},
		"not base64":  {part(audioPartJSON("%%%%", "wav")), Options{Audio: qwenAudio}, "base64"},
		"contradicts": {part(audioPartJSON(wav, "mp3")), Options{Audio: qwenAudio}, `declared format "mp3", but the data is wav`},
		"no audio":    {part(audioPartJSON(base64.StdEncoding.EncodeToString([]byte("OggS....")), "wav")), Options{Audio: qwenAudio}, "neither WAV nor MP3"},
		"no rule":     {part(audioPartJSON(wav, "wav")), Options{}, "--audio-tokens-per-second"},
	} {
		_, _, err := readAll(t, imageLine(c.content)+"\n", c.opts)
		var re *ingest.RowError
		if !errors.As(err, &re) || re.Line != 1 || re.Field != field || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want line 1, field %s, saying %q", name, err, field, c.want)
		}
	}
	var q bytes.Buffer
	bad := imageLine(part(audioPartJSON(wav[:len(wav)-400], "wav"))) + "\n"
	reqs, counts, err := readAll(t, bad+imageLine(part(audioPartJSON(wav, "wav")))+"\n", Options{Audio: qwenAudio, OnError: ingest.OnErrorSkip, Quarantine: &q})
	if err != nil || len(reqs) != 1 || counts.Rejected != 1 || q.String() != bad {
		t.Errorf("skip: %d records, %d rejected, quarantine holds the bad line %v, err %v", len(reqs), counts.Rejected, q.String() == bad, err)
	}
	_, _, err = readAll(t, imageLine(part(audioPartJSON(wav, "wav")))+"\n", Options{OnError: ingest.OnErrorSkip})
	if err == nil || !strings.Contains(err.Error(), "--audio-tokens-per-second") {
		t.Errorf("skip without a rule: err %v, want the read ended naming --audio-tokens-per-second", err)
	}
}

// TestAudioRuleFromFolder chooses the rule from a model folder as AutoProcessor does: a
// qwen2_audio config.json with Qwen/Qwen2-Audio-7B-Instruct's published feature extractor
// values gives Qwen2-Audio's rule (its wrapper counted by the tokenizer), qwen2_5_omni the same
// arithmetic, a vision model's folder none (a clip is then refused naming the flag), and --audio-tokens-per-second wins.
func TestAudioRuleFromFolder(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("config.json", `{"model_type":"qwen2_audio"}`)
	write("preprocessor_config.json", `{"chunk_length":30,"feature_extractor_type":"WhisperFeatureExtractor","feature_size":128,"hop_length":160,"n_fft":400,"n_samples":480000,"nb_max_frames":3000,"sampling_rate":16000}`)
	var o Options
	o.Tokenizer = sampleModel(t).tok
	if err := o.SetAudio(dir, 0); err != nil || o.Audio == nil {
		t.Fatalf("qwen2_audio: %v, %v", o.Audio, err)
	}
	wrap := len(o.Tokenizer.Encode("<|audio_bos|><|audio_eos|>", false))
	if n, _ := o.Audio.Tokens(media.Audio{SampleRate: 16000, Channels: 1, Samples: 480000}); n != 750+wrap {
		t.Errorf("30 s: %d tokens, want 750 + the wrapper's %d", n, wrap)
	}
	write("config.json", `{"model_type":"qwen2_5_omni"}`)
	o = Options{Tokenizer: o.Tokenizer}
	if err := o.SetAudio(dir, 0); err != nil || o.Audio == nil || !strings.HasPrefix(o.Audio.Name(), "qwen2_5_omni") {
		t.Fatalf("qwen2_5_omni: %v, %v", o.Audio, err)
	}
	if n, _ := o.Audio.Tokens(media.Audio{SampleRate: 16000, Channels: 1, Samples: 64321}); n != 101+wrap {
		t.Errorf("qwen2_5_omni, 64321 samples: %d tokens, want 101 + the wrapper's %d", n, wrap)
	}
	write("config.json", `{"model_type":"qwen2_vl"}`)
	o = Options{Tokenizer: o.Tokenizer}
	if err := o.SetAudio(dir, 0); err != nil || o.Audio != nil || !errors.Is(o.AudioErr, media.ErrNoAudioRule) {
		t.Errorf("qwen2_vl: rule %v, err %v, why %v", o.Audio, err, o.AudioErr)
	}
	if err := o.SetAudio(dir, 12.5); err != nil || o.Audio == nil || o.Audio.Name() != "--audio-tokens-per-second 12.5" {
		t.Errorf("the flag: %v, %v", o.Audio, err)
	}
	if err := o.SetAudio(dir, -1); err == nil {
		t.Error("a negative rate was taken")
	}
}
