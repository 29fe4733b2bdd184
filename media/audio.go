package media

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// audio.go is what replay keeps of a logged audio clip: its container format, sample rate,
// channels and length in samples, read from its header (wav.go, mp3.go), never its samples.

// The audio formats a logged clip may have: those chat's input_audio part names
// (https://platform.openai.com/docs/api-reference/chat/create, input_audio.format).
const (
	WAV = "wav"
	MP3 = "mp3"
)

// MaxAudioSeconds bounds a clip replay builds a stand-in for: an hour, longer than any chat
// API takes in one part, small enough that its PCM fits in memory at speech rates.
const MaxAudioSeconds = 3600

// MaxAudioBytes bounds the decoded size of one logged clip: larger is refused rather than
// decoded (25 MB is OpenAI's own limit on an audio file; this leaves room above it).
const MaxAudioBytes = 64 << 20

// Audio is what a replay keeps of a logged clip.
type Audio struct {
	// Format is WAV or MP3, by the data's magic bytes.
	Format string
	// SampleRate is samples per second per channel; Channels their number.
	SampleRate, Channels int
	// Bits is a WAV clip's bits per sample (0 for MP3, which has none).
	Bits int
	// Samples is the clip's length in samples per channel: a WAV data chunk's frames, an MP3's
	// gapless length (its audio frames' samples less the LAME tag's encoder delay and padding).
	Samples int64
}

// Seconds is the clip's duration.
func (a Audio) Seconds() float64 { return float64(a.Samples) / float64(a.SampleRate) }

// MIME is the clip's media type.
func (a Audio) MIME() string {
	if a.Format == MP3 {
		return "audio/mpeg"
	}
	return "audio/wav"
}

// SniffAudio names data's audio format by its magic bytes, "" when it is neither WAV nor MP3.
func SniffAudio(data []byte) string {
	switch {
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WAVE":
		return WAV
	case bytes.HasPrefix(data, []byte("ID3")):
		return MP3
	case len(data) >= 2 && data[0] == 0xff && data[1]&0xe0 == 0xe0:
		return MP3
	}
	return ""
}

// NormalizeAudioFormat lower-cases a declared format and reads the media types clients write
// for it (audio/wav, audio/x-wav, audio/mpeg, mpeg) as the format's name.
func NormalizeAudioFormat(f string) string {
	f = strings.ToLower(strings.TrimSpace(f))
	switch f {
	case "audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave", "wave":
		return WAV
	case "audio/mpeg", "audio/mp3", "mpeg":
		return MP3
	}
	return f
}

// ReadAudio reads a clip's format, rate, channels and length from its headers (the samples are
// not decoded). declared is the format the request gave ("" for none): one that contradicts the
// magic bytes is an error, as is data of neither format, a header that is cut or a clip
// without a sample.
func ReadAudio(data []byte, declared string) (Audio, error) {
	got := SniffAudio(data)
	if got == "" {
		return Audio{}, errors.New("the data is neither WAV nor MP3 audio (unknown magic bytes)")
	}
	if d := NormalizeAudioFormat(declared); d != "" && d != got {
		return Audio{}, fmt.Errorf("declared format %q, but the data is %s by its magic bytes", declared, got)
	}
	var a Audio
	var err error
	if got == WAV {
		a, err = readWAV(data)
	} else {
		a, err = readMP3(data)
	}
	if err != nil {
		return Audio{}, fmt.Errorf("the %s header: %w", got, err)
	}
	if a.Samples <= 0 {
		return Audio{}, fmt.Errorf("the %s clip holds no samples", got)
	}
	if a.Samples/int64(a.SampleRate) >= MaxAudioSeconds {
		return Audio{}, fmt.Errorf("the %s clip lasts %.0f s: over %d s, beyond what replay builds", got, a.Seconds(), MaxAudioSeconds)
	}
	return a, nil
}
