package media

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// mp3.go reads an MP3 file's length by walking its MPEG audio frame headers, decoding nothing.
// Sources:
//   - ID3v2 tags before the audio are skipped by their size: ID3v2.4.0 structure
//     (https://id3.org/id3v2.4.0-structure, §3.1: "ID3", version, flags, a 28-bit synchsafe
//     size excluding the 10-byte header, a 10-byte footer when flag bit 4 is set).
//   - Each frame's 32-bit header (ISO/IEC 11172-3 §2.4.2.3, extended to the lower rates by
//     ISO/IEC 13818-3 and the unofficial MPEG 2.5): 11 sync bits, version, layer, protection,
//     bitrate index, sampling-rate index, padding; the frame's length in bytes from them
//     (Layer I: (12·bitrate/rate + padding)·4; Layer II and MPEG-1 Layer III: 144·bitrate/rate
//     + padding; MPEG-2/2.5 Layer III: 72·bitrate/rate + padding) and its samples (384 for
//     Layer I, 1152 for Layer II and MPEG-1 Layer III, 576 for MPEG-2/2.5 Layer III).
//   - The Xing/Info tag a VBR or LAME-encoded file opens with is a frame of silence holding
//     a header, not audio: it is not counted. Its LAME extension gives the encoder delay and
//     the padding the encoder added, which a gapless decoder drops: "LAME" tag specification
//     rev 1 (http://gabriel.mp3-tech.org/mp3infotag.html): the Xing fields (flags; frames,
//     bytes, 100-byte TOC and quality, each present by its flag), then a 9-byte encoder string,
//     and 21 bytes after its start 12 bits of delay and 12 of padding. FFmpeg writes the same
//     tag under its own name ("Lavf", "Lavc"), read alike.
//
// The length is the audio frames' samples less that delay and padding: the clip's gapless
// length. ID3v1 ("TAG"), APE and Lyrics3 tags after the audio end the walk; any other byte where
// a frame should start, or a frame cut by the file's end, is an error.

// MPEG audio versions as the header's two bits give them.
const (
	mpeg25 = 0
	mpeg2  = 2
	mpeg1  = 3
)

// mp3Bitrates is kbit/s by [MPEG-1 or not][layer 1..3][index].
var mp3Bitrates = [2][3][15]int{
	{ // MPEG-1
		{0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448},
		{0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384},
		{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320},
	},
	{ // MPEG-2 and 2.5
		{0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256},
		{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
		{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
	},
}

// mp3Rates is Hz by version bits and index.
var mp3Rates = [4][3]int{
	mpeg25: {11025, 12000, 8000},
	mpeg2:  {22050, 24000, 16000},
	mpeg1:  {44100, 48000, 32000},
}

// mp3Frame is one frame header's meaning.
type mp3Frame struct {
	version, layer  int
	rate, channels  int
	length, samples int
	crc             bool
}

// parseMP3Frame reads the frame header at the start of h (4 bytes or more); ok is false when
// they are no valid header (no sync, a reserved version, layer, bitrate or rate, or the free
// bitrate, whose frames have no length in their header).
func parseMP3Frame(h []byte) (mp3Frame, bool) {
	if len(h) < 4 || h[0] != 0xff || h[1]&0xe0 != 0xe0 {
		return mp3Frame{}, false
	}
	version, layerBits := int(h[1]>>3&3), int(h[1]>>1&3)
	brIndex, rateIndex := int(h[2]>>4), int(h[2]>>2&3)
	if version == 1 || layerBits == 0 || brIndex == 0 || brIndex == 15 || rateIndex == 3 {
		return mp3Frame{}, false
	}
	f := mp3Frame{version: version, layer: 4 - layerBits, rate: mp3Rates[version][rateIndex], crc: h[1]&1 == 0, channels: 2}
	if h[3]>>6 == 3 {
		f.channels = 1
	}
	lsf := 0
	if version != mpeg1 {
		lsf = 1
	}
	bitrate := mp3Bitrates[lsf][f.layer-1][brIndex] * 1000
	pad := int(h[2] >> 1 & 1)
	switch {
	case f.layer == 1:
		f.length, f.samples = (12*bitrate/f.rate+pad)*4, 384
	case f.layer == 2 || version == mpeg1:
		f.length, f.samples = 144*bitrate/f.rate+pad, 1152
	default:
		f.length, f.samples = 72*bitrate/f.rate+pad, 576
	}
	return f, true
}

func readMP3(data []byte) (Audio, error) {
	off, err := skipID3v2(data)
	if err != nil {
		return Audio{}, err
	}
	var first mp3Frame
	frames, trim := int64(0), int64(0)
	for off < len(data) {
		if endTag(data[off:]) {
			break
		}
		f, ok := parseMP3Frame(data[off:])
		if !ok {
			return Audio{}, fmt.Errorf("no MPEG audio frame header at byte %d", off)
		}
		if off+f.length > len(data) {
			return Audio{}, fmt.Errorf("the frame at byte %d of %d bytes is cut by the file's end", off, f.length)
		}
		if frames == 0 && first.rate == 0 {
			first = f
			if tag, t := infoTag(data[off:off+f.length], f); tag {
				trim, off = t, off+f.length
				continue
			}
		} else if f.version != first.version || f.layer != first.layer || f.rate != first.rate {
			return Audio{}, fmt.Errorf("the frame at byte %d changes version, layer or rate mid-stream", off)
		}
		frames++
		off += f.length
	}
	if first.rate == 0 {
		return Audio{}, errors.New("no MPEG audio frame")
	}
	samples := frames*int64(first.samples) - trim
	if samples <= 0 {
		return Audio{}, fmt.Errorf("%d frames of %d samples, less the LAME tag's delay and padding %d: no samples", frames, first.samples, trim)
	}
	return Audio{Format: MP3, SampleRate: first.rate, Channels: first.channels, Samples: samples}, nil
}

// skipID3v2 is the offset after the ID3v2 tags data opens with.
func skipID3v2(data []byte) (int, error) {
	off := 0
	for len(data)-off >= 3 && string(data[off:off+3]) == "ID3" {
		if len(data)-off < 10 {
			return 0, errors.New("ID3v2 header cut")
		}
		h := data[off : off+10]
		size := 0
		for _, b := range h[6:10] {
			if b >= 0x80 {
				return 0, fmt.Errorf("ID3v2 tag at byte %d: its size is not synchsafe", off)
			}
			size = size<<7 | int(b)
		}
		size += 10
		if h[5]&0x10 != 0 {
			size += 10
		}
		if size > len(data)-off {
			return 0, fmt.Errorf("ID3v2 tag at byte %d of %d bytes runs past the file's end", off, size)
		}
		off += size
	}
	return off, nil
}

// endTag reports whether b opens a tag that may follow the audio: ID3v1, APEv2, Lyrics3.
func endTag(b []byte) bool {
	for _, p := range []string{"TAG", "APETAGEX", "LYRICSBEGIN"} {
		if len(b) >= len(p) && string(b[:len(p)]) == p {
			return true
		}
	}
	return false
}

// infoTag reports whether frame (a whole frame) is a Xing/Info tag frame, and the samples its
// LAME extension says to drop (encoder delay plus padding; 0 without one).
func infoTag(frame []byte, f mp3Frame) (bool, int64) {
	side := 32 // the side information's bytes before the tag (MPEG-1 stereo)
	switch {
	case f.layer != 3:
		return false, 0
	case f.version == mpeg1 && f.channels == 1:
		side = 17
	case f.version != mpeg1 && f.channels == 1:
		side = 9
	case f.version != mpeg1:
		side = 17
	}
	// Encoders write the tag right after the side information; with a CRC it follows the CRC's
	// two bytes. Both places are tried.
	for _, at := range []int{4 + side, 6 + side} {
		if at == 6+side && !f.crc {
			break
		}
		if len(frame) < at+8 {
			continue
		}
		if id := string(frame[at : at+4]); id != "Xing" && id != "Info" {
			continue
		}
		return true, lameTrim(frame, at)
	}
	return false, 0
}

// lameTrim reads the LAME extension after the Xing fields at xing: delay plus padding, 0 when
// there is none or it is cut.
func lameTrim(frame []byte, xing int) int64 {
	flags := binary.BigEndian.Uint32(frame[xing+4 : xing+8])
	p := xing + 8
	for _, field := range []struct {
		bit  uint32
		size int
	}{{1, 4}, {2, 4}, {4, 100}, {8, 4}} {
		if flags&field.bit != 0 {
			p += field.size
		}
	}
	if len(frame) < p+24 {
		return 0
	}
	switch string(frame[p : p+4]) {
	case "LAME", "Lavf", "Lavc":
	default:
		return 0
	}
	d := frame[p+21 : p+24]
	delay := int64(d[0])<<4 | int64(d[1]>>4)
	padding := int64(d[1]&0x0f)<<8 | int64(d[2])
	return delay + padding
}
