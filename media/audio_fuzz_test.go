package media

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadAudio runs the audio header readers on any bytes and declared format: an error, or a
// clip with a format, a rate, channels and samples that every rule counts without error; never
// a panic. The seeds in testdata/fuzz/FuzzReadAudio are a short WAV, an MP3 with a LAME tag and
// an ID3v2 tag, and cut or contradicted ones; every clip in testdata/audio, written by real
// encoders (audio_real_test.go), is a seed too.
func FuzzReadAudio(f *testing.F) {
	f.Add(mp3Frames(2, true, 576, 100), "mp3")
	clips, err := filepath.Glob(filepath.Join("testdata", "audio", "*"))
	if err != nil || len(clips) == 0 {
		f.Fatalf("no clips in testdata/audio: %v", err)
	}
	for _, p := range clips {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "")
	}
	f.Fuzz(func(t *testing.T, data []byte, format string) {
		a, err := ReadAudio(data, format)
		if err != nil {
			return
		}
		if a.Format == "" || a.SampleRate <= 0 || a.Channels <= 0 || a.Samples <= 0 {
			t.Fatalf("accepted as %+v", a)
		}
		for _, r := range []AudioRule{Qwen2Audio{Rate: 16000, Hop: 160, NSamples: 480000, Wrap: 2}, TokensPerSecond(25)} {
			if n, err := r.Tokens(a); err != nil || n < 0 {
				t.Fatalf("%+v: %s counts %d, %v", a, r.Name(), n, err)
			}
		}
	})
}
