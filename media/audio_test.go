package media

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mp3Frames is n frames of an MPEG-1 Layer III stream at 128 kbit/s and 44.1 kHz (417 bytes
// each), opened by an Info tag frame with a LAME extension of the given delay and padding
// when tag is set; the frames' audio bits are zeros (the reader decodes none).
func mp3Frames(n int, tag bool, delay, padding int) []byte {
	header := []byte{0xff, 0xfb, 0x90, 0x44}
	frame := func() []byte { f := make([]byte, 417); copy(f, header); return f }
	var out []byte
	if tag {
		f := frame()
		copy(f[36:], "Info\x00\x00\x00\x0f")  // all four Xing fields present
		copy(f[36+8+4+4+100+4:], "LAME3.100") // the encoder string after them
		d := f[36+8+112+21:]                  // 12 bits of delay, 12 of padding
		d[0], d[1], d[2] = byte(delay>>4), byte(delay<<4|padding>>8), byte(padding)
		out = append(out, f...)
	}
	for i := 0; i < n; i++ {
		out = append(out, frame()...)
	}
	return out
}

func TestReadMP3(t *testing.T) {
	id3 := append([]byte("ID3\x04\x00\x00\x00\x00\x01\x00"), make([]byte, 128)...) // a 128-byte ID3v2.4 tag
	id1 := append([]byte("TAG"), make([]byte, 125)...)
	cases := []struct {
		name string
		data []byte
		want int64
	}{
		// 100 frames of 1152 samples less LAME's delay 576 and padding 1000: 113624, and the tag
		// frame is not counted.
		{"lame", mp3Frames(100, true, 576, 1000), 100*1152 - 576 - 1000},
		{"id3 around", append(append(append([]byte{}, id3...), mp3Frames(10, true, 576, 0)...), id1...), 10*1152 - 576},
		{"no tag", mp3Frames(7, false, 0, 0), 7 * 1152},
	}
	for _, c := range cases {
		a, err := ReadAudio(c.data, "mp3")
		if err != nil || a != (Audio{Format: MP3, SampleRate: 44100, Channels: 2, Samples: c.want}) {
			t.Errorf("%s: %+v, %v; want %d samples at 44100 Hz in 2 channels", c.name, a, err, c.want)
		}
	}
	// MPEG-2 Layer III, mono, 64 kbit/s at 22.05 kHz: 208-byte frames of 576 samples.
	mono := bytes.Repeat(append([]byte{0xff, 0xf3, 0x80, 0xc0}, make([]byte, 204)...), 5)
	if a, err := ReadAudio(mono, ""); err != nil || a != (Audio{Format: MP3, SampleRate: 22050, Channels: 1, Samples: 5 * 576}) {
		t.Errorf("mpeg-2 mono: %+v, %v", a, err)
	}
}

func TestReadWAV(t *testing.T) {
	for _, a := range []Audio{
		{Format: WAV, SampleRate: 16000, Channels: 1, Bits: 16, Samples: 16000},
		{Format: WAV, SampleRate: 44100, Channels: 2, Bits: 24, Samples: 12345},
		{Format: WAV, SampleRate: 8000, Channels: 1, Bits: 8, Samples: 7},
	} {
		s, err := BuildAudio(42, a)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadAudio(s.Data, "wav")
		if err != nil || got != a {
			t.Errorf("%+v read back as %+v, %v", a, got, err)
		}
	}
}

// TestStandInAudio: the same key makes the same bytes, another key others, and no clip is
// silence.
func TestStandInAudio(t *testing.T) {
	a := Audio{Format: MP3, SampleRate: 16000, Channels: 1, Samples: 8000}
	x, _ := BuildAudio(1, a)
	y, _ := BuildAudio(1, a)
	z, err := BuildAudio(2, a)
	if err != nil || !bytes.Equal(x.Data, y.Data) || bytes.Equal(x.Data[44:], z.Data[44:]) || x.MIME != "audio/wav" {
		t.Fatalf("same key equal %v, other key equal %v, %s, %v", bytes.Equal(x.Data, y.Data), bytes.Equal(x.Data[44:], z.Data[44:]), x.MIME, err)
	}
	if bytes.Count(x.Data[44:], []byte{0}) > len(x.Data[44:])/4 {
		t.Error("the clip is mostly zero bytes: silence")
	}
	if _, err := BuildAudio(1, Audio{SampleRate: 16000, Channels: 1, Samples: 16000 * MaxAudioSeconds}); err == nil {
		t.Error("an hour's clip was built")
	}
}

// TestBadAudio is the bad inputs: each a clear error, never a panic.
func TestBadAudio(t *testing.T) {
	wav, _ := BuildAudio(3, Audio{SampleRate: 16000, Channels: 1, Bits: 16, Samples: 100})
	lame := mp3Frames(3, true, 576, 0)
	adpcm := append([]byte{}, wav.Data...)
	adpcm[20] = 2
	cases := []struct {
		name, format, want string
		data               []byte
	}{
		{"wav as mp3", "mp3", "declared format", wav.Data},
		{"mp3 as wav", "wav", "declared format", lame},
		{"cut wav", "wav", "cut", wav.Data[:len(wav.Data)-10]},
		{"cut mp3", "mp3", "cut", lame[:len(lame)-10]},
		{"adpcm", "wav", "format tag", adpcm},
		{"junk", "", "neither WAV nor MP3", []byte("OggS and more")},
		{"junk after frames", "mp3", "no MPEG audio frame header", append(mp3Frames(2, false, 0, 0), "junk"...)},
		{"only the tag", "mp3", "no samples", mp3Frames(0, true, 0, 0)},
		{"trim over length", "mp3", "no samples", mp3Frames(1, true, 1000, 1000)},
		{"empty wav", "wav", "no samples", wav.Data[:44]},
	}
	for _, c := range cases {
		if c.name == "empty wav" {
			c.data = append([]byte{}, c.data...)
			c.data[40], c.data[41] = 0, 0
		}
		_, err := ReadAudio(c.data, c.format)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// TestQwen2AudioTokens holds the rule to its processor's arithmetic: Qwen2AudioProcessor's
// integration test (tests/models/qwen2_audio/test_modeling_qwen2_audio.py at
// d8227e479ffa29253a8d8a6549b5fb73b90e26d3) expects 101 <|AUDIO|> placeholders for its
// glass-breaking clip of about 4 s at 16 kHz, which feature lengths 403 to 406 frames
// (64321 to 64960 samples) give and 402 and 407 do not; 30 s, the extractor's chunk, is 3000
// frames and 750 placeholders (25 a second), and longer clips are cut to it.
func TestQwen2AudioTokens(t *testing.T) {
	r := Qwen2Audio{Rate: 16000, Hop: 160, NSamples: 480000, Wrap: 2}
	cases := []struct {
		samples int64
		rate    int
		want    int
	}{
		{64320, 16000, 100 + 2},
		{64321, 16000, 101 + 2},
		{64960, 16000, 101 + 2},
		{64961, 16000, 102 + 2},
		{16000, 16000, 25 + 2},
		{480000, 16000, 750 + 2},
		{960000, 16000, 750 + 2},
		{8000, 8000, 25 + 2},   // 1 s at 8 kHz is 16000 samples at 16 kHz
		{44100, 44100, 25 + 2}, // and at 44.1 kHz
		{160, 16000, 0 + 2},    // one frame: Python's // leaves no placeholder
		{481, 16000, 1 + 2},    // four frames
	}
	for _, c := range cases {
		got, err := r.Tokens(Audio{SampleRate: c.rate, Channels: 1, Samples: c.samples})
		if err != nil || got != c.want {
			t.Errorf("%d samples at %d Hz: %d, %v; want %d", c.samples, c.rate, got, err, c.want)
		}
	}
}

func TestTokensPerSecond(t *testing.T) {
	r := TokensPerSecond(12.5)
	for _, c := range []struct {
		samples int64
		want    int
	}{{16000, 13}, {32000, 25}, {1, 1}, {480000, 375}} {
		if got, err := r.Tokens(Audio{SampleRate: 16000, Channels: 1, Samples: c.samples}); err != nil || got != c.want {
			t.Errorf("%d samples: %d, %v; want %d", c.samples, got, err, c.want)
		}
	}
}

// TestVoxtralTokens holds Voxtral's rule to mistral_common's arithmetic (audio.py at
// 5f8a50f487ae3572c5dbde4782f91c984e9ee059) with Voxtral-Mini's tekken.json values: a clip is
// padded to whole 30 s chunks of 3000 frames, 8 frames a token (16000 // 12.5 / 160), so each
// started chunk is 375 [AUDIO] tokens after one [BEGIN_AUDIO]: 12.5 a second of padded audio.
// Without chunking, a clip is at least one 400-sample window and its frames ceil(n/160 − 1)
// when 160 does not divide it.
func TestVoxtralTokens(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"model_type": "voxtral"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadAudio(dir, nil); !errors.Is(err, ErrNoAudioRule) || !strings.Contains(err.Error(), "tekken.json") {
		t.Errorf("no tekken.json: %v", err)
	}
	tekken := `{"config": {"version": "v7"}, "audio": {"sampling_rate": 16000, "frame_rate": 12.5, "chunk_length_s": 30.0, "audio_encoding_config": {"num_mel_bins": 128, "hop_length": 160, "window_size": 400}}}`
	if err := os.WriteFile(filepath.Join(dir, "tekken.json"), []byte(tekken), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := LoadAudio(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	unchunked := r.(Voxtral)
	unchunked.Chunk = 0
	for _, c := range []struct {
		rule          AudioRule
		samples, want int64
		rate          int
	}{
		{r, 1, 1 + 375, 16000},
		{r, 480000, 1 + 375, 16000},
		{r, 480001, 1 + 750, 16000},
		{r, 441000, 1 + 375, 44100},          // 10 s at 44.1 kHz
		{r, 1323001, 1 + 750, 44100},         // just over 30 s
		{unchunked, 16000, 1 + 13, 16000},    // 100 frames: ceil(100/8)
		{unchunked, 16001, 1 + 13, 16000},    // ceil(100.00625 − 1) = 100 frames
		{unchunked, 100, 1 + 1, 16000},       // padded to one 400-sample window: 2 frames
		{unchunked, 160 * 81, 1 + 11, 16000}, // 81 frames: 11 tokens
	} {
		got, err := c.rule.Tokens(Audio{SampleRate: c.rate, Channels: 1, Samples: c.samples})
		if err != nil || int64(got) != c.want {
			t.Errorf("%s: %d samples at %d Hz: %d, %v; want %d", c.rule.Name(), c.samples, c.rate, got, err, c.want)
		}
	}
}
