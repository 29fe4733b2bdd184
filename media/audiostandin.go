package media

import (
	"encoding/binary"
	"fmt"
)

// audiostandin.go builds the clip a replay sends for a logged one: a WAV file of the logged
// rate, channels and length in samples (so every rule counts it as the logged clip), made from
// nothing but the logged clip's keyed hash, so the same logged clip is the same bytes every
// time it is sent and different ones differ. Its samples are two triangle waves of periods
// drawn from the hash with a little noise from it: never silence, cheap to make, nothing of
// the logged samples. A clip logged as MP3 is sent as WAV of the same length: no well-kept
// pure-Go MP3 encoder exists, and the caller says so.

// BuildAudio makes the stand-in for the clip keyed key with a's rate, channels and samples:
// a WAV file of linear PCM at a's bits (8, 16, 24 or 32, a float clip's 32 as integer PCM; 16
// for a clip that logged none).
func BuildAudio(key uint64, a Audio) (StandIn, error) {
	if a.SampleRate < 1 || a.SampleRate > maxSampleRate || a.Channels < 1 || a.Channels > maxChannels || a.Samples < 1 ||
		a.Samples/int64(a.SampleRate) >= MaxAudioSeconds {
		return StandIn{}, fmt.Errorf("audio of %d samples at %d Hz in %d channels: beyond what replay builds (1 to %d channels, under %d s)",
			a.Samples, a.SampleRate, a.Channels, maxChannels, MaxAudioSeconds)
	}
	bits := a.Bits
	if bits != 8 && bits != 24 && bits != 32 {
		bits = 16
	}
	width := bits / 8
	data := int64(a.Channels*width) * a.Samples
	if data > 1<<31 {
		return StandIn{}, fmt.Errorf("audio of %d samples in %d channels of %d bits: over 2 GiB of PCM", a.Samples, a.Channels, bits)
	}
	buf := make([]byte, 44+data)
	le := binary.LittleEndian
	copy(buf[0:], "RIFF")
	le.PutUint32(buf[4:], uint32(36+data))
	copy(buf[8:], "WAVEfmt ")
	le.PutUint32(buf[16:], 16)
	le.PutUint16(buf[20:], wavePCM)
	le.PutUint16(buf[22:], uint16(a.Channels))
	le.PutUint32(buf[24:], uint32(a.SampleRate))
	le.PutUint32(buf[28:], uint32(a.SampleRate*a.Channels*width))
	le.PutUint16(buf[32:], uint16(a.Channels*width))
	le.PutUint16(buf[34:], uint16(bits))
	copy(buf[36:], "data")
	le.PutUint32(buf[40:], uint32(data))
	fillPCM(buf[44:], key, a.Channels, width)
	return StandIn{MIME: "audio/wav", Data: buf}, nil
}

// fillPCM writes the samples: per channel two triangle waves of periods 20 to 275 samples
// (about 58 Hz to 800 Hz at 16 kHz) drawn from the key, plus xorshift noise.
func fillPCM(pcm []byte, key uint64, channels, width int) {
	type voice struct{ p1, p2 int64 }
	voices := make([]voice, channels)
	for c := range voices {
		v := mix(key ^ uint64(c+1)*0x9e3779b97f4a7c15)
		voices[c] = voice{20 + int64(v&0xff), 20 + int64(v>>8&0xff)}
	}
	noise := mix(key) | 1
	frame := channels * width
	for i, o := int64(0), 0; o+frame <= len(pcm); i++ {
		for _, v := range voices {
			noise ^= noise << 13
			noise ^= noise >> 7
			noise ^= noise << 17
			// Each wave spans ±0.4 of full scale and the noise ±1/32: the sum stays within range.
			s := triangle(i, v.p1) + triangle(i, v.p2) + float64(int64(noise>>59)-16)/512
			putSample(pcm[o:o+width], s)
			o += width
		}
	}
}

// triangle is a triangle wave of the given period at sample i, within ±0.4.
func triangle(i, period int64) float64 {
	ph := float64(i%period) / float64(period)
	if ph < 0.5 {
		return 0.4 * (4*ph - 1)
	}
	return 0.4 * (3 - 4*ph)
}

// putSample writes s (within ±1) as one little-endian PCM sample of len(b) bytes: 8-bit
// unsigned, wider signed, as WAVE stores them.
func putSample(b []byte, s float64) {
	switch len(b) {
	case 1:
		b[0] = uint8(int(s*127) + 128)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(int16(s*32767)))
	case 3:
		v := int32(s * 8388607)
		b[0], b[1], b[2] = byte(v), byte(v>>8), byte(v>>16)
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(int32(s*2147483647)))
	}
}
