package media

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// wav.go reads a WAV file's header: the RIFF form of type WAVE, its "fmt " chunk (format tag,
// channels, sample rate, block align, bits per sample) and the size of its "data" chunk, which
// holds whole sample frames of block align bytes each. Sources: Microsoft and IBM, "Multimedia
// Programming Interface and Data Specifications 1.0" (1991), the RIFF chunk layout (a four-byte
// id, a little-endian 32-bit size, the data, a pad byte after odd sizes) and the WAVE form's
// chunks; and Microsoft's WAVEFORMATEX and WAVEFORMATEXTENSIBLE structures
// (https://learn.microsoft.com/en-us/windows/win32/api/mmeapi/ns-mmeapi-waveformatex,
// https://learn.microsoft.com/en-us/windows/win32/api/mmreg/ns-mmreg-waveformatextensible:
// format tag 0xFFFE, the actual format in the first two bytes of its SubFormat GUID at byte 24
// of the fmt chunk). Linear PCM (1), IEEE float (3) and G.711's A-law (6) and µ-law (7), the
// telephony codings a call recording keeps, are read: their length follows from the data's
// size, one byte a sample for G.711 (ITU-T G.711; the tags from Microsoft's mmreg.h,
// WAVE_FORMAT_ALAW and WAVE_FORMAT_MULAW). A clip's stand-in is PCM of its length, as an MP3's
// is: the engine's count follows the duration, not the coding.
//
// A WAV written to a pipe cannot have its sizes patched once the samples are out, so its data
// chunk keeps the writer's placeholder: FFmpeg's 0xFFFFFFFF (libavformat/riffenc.c, ff_start_tag
// writes -1, which ff_end_tag only overwrites on seekable output) or SoX's 0x7FFFF000 (src/wav.c,
// MS_UNSPEC, "Magic length written when its not possible to write valid lengths"). Both readers
// take either placeholder to mean the data runs to the file's end (FFmpeg's wavdec.c,
// wav_read_header: "Ignoring maximum wav data size"; SoX: "When magic length is detected on
// inputs, disable any length logic"), and so does this one; testdata/audio holds one of each.
// A data size of 0 is not read so: FFmpeg takes it to the end too, SoX as no samples.

const (
	wavePCM        = 1
	waveFloat      = 3
	waveALaw       = 6
	waveMuLaw      = 7
	waveExtensible = 0xFFFE
	// maxChannels bounds a header's channel count (WAVEFORMATEXTENSIBLE's channel mask names 18
	// speaker positions; anything near this limit is no real clip).
	maxChannels = 32
	// maxSampleRate bounds a header's rate (768 kHz, the highest any audio interface offers).
	maxSampleRate = 768000
	// The data sizes a streamed WAV keeps (see above): FFmpeg's and SoX's.
	wavSizeFFmpegPipe = 0xFFFFFFFF
	wavSizeSoXPipe    = 0x7FFFF000
)

func readWAV(data []byte) (Audio, error) {
	if len(data) < 12 {
		return Audio{}, errors.New("cut before the RIFF header's end")
	}
	le := binary.LittleEndian
	a := Audio{Format: WAV}
	blockAlign, haveFmt := 0, false
	for off := 12; ; {
		if len(data)-off < 8 {
			return Audio{}, errors.New("no data chunk (the file ends first)")
		}
		id, size := string(data[off:off+4]), int64(le.Uint32(data[off+4:off+8]))
		body := off + 8
		switch id {
		case "fmt ":
			if size < 16 || int64(len(data)-body) < size {
				return Audio{}, fmt.Errorf("fmt chunk of %d bytes is cut or too short", size)
			}
			f := data[body : body+int(size)]
			tag := le.Uint16(f[0:2])
			if tag == waveExtensible && size >= 40 {
				tag = le.Uint16(f[24:26])
			}
			if tag != wavePCM && tag != waveFloat && tag != waveALaw && tag != waveMuLaw {
				return Audio{}, fmt.Errorf("format tag 0x%04x: PCM (1), IEEE float (3), A-law (6) and µ-law (7) are read", tag)
			}
			a.Channels, a.SampleRate = int(le.Uint16(f[2:4])), int(le.Uint32(f[4:8]))
			blockAlign, a.Bits = int(le.Uint16(f[12:14])), int(le.Uint16(f[14:16]))
			if err := checkWAVFormat(a, blockAlign, tag); err != nil {
				return Audio{}, err
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return Audio{}, errors.New("data chunk before the fmt chunk")
			}
			rest := int64(len(data) - body)
			if rest < size && (size == wavSizeFFmpegPipe || size == wavSizeSoXPipe) {
				size = rest // a streamed WAV's placeholder: the data runs to the file's end
			}
			if rest < size {
				return Audio{}, fmt.Errorf("data chunk says %d bytes, but %d follow: the file is cut", size, rest)
			}
			a.Samples = size / int64(blockAlign)
			return a, nil
		}
		next := int64(body) + size + size&1
		if next > int64(len(data)) {
			return Audio{}, fmt.Errorf("%q chunk of %d bytes runs past the file's end", id, size)
		}
		off = int(next)
	}
}

// checkWAVFormat refuses a fmt chunk no clip has: no channels or rate, bits that are no whole
// bytes, a block align that is not one frame of them.
func checkWAVFormat(a Audio, blockAlign int, tag uint16) error {
	switch {
	case a.Channels < 1 || a.Channels > maxChannels:
		return fmt.Errorf("%d channels: 1 to %d are read", a.Channels, maxChannels)
	case a.SampleRate < 1 || a.SampleRate > maxSampleRate:
		return fmt.Errorf("sample rate %d: 1 to %d are read", a.SampleRate, maxSampleRate)
	case tag == wavePCM && a.Bits != 8 && a.Bits != 16 && a.Bits != 24 && a.Bits != 32:
		return fmt.Errorf("%d bits per PCM sample: 8, 16, 24 or 32 are read", a.Bits)
	case tag == waveFloat && a.Bits != 32 && a.Bits != 64:
		return fmt.Errorf("%d bits per float sample: 32 or 64 are read", a.Bits)
	case (tag == waveALaw || tag == waveMuLaw) && a.Bits != 8:
		return fmt.Errorf("%d bits per G.711 sample: 8 are read", a.Bits)
	case blockAlign != a.Channels*a.Bits/8:
		return fmt.Errorf("block align %d is not %d channels of %d bits", blockAlign, a.Channels, a.Bits)
	}
	return nil
}
