package media

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realClip is one clip in testdata/audio, written by a real encoder, and what tools other than
// this package measure of it: the Audio ReadAudio must return, or the error it must give.
type realClip struct {
	file string
	want Audio
	err  string
}

// realClips are the clips scripts/gen-audio-fixtures.sh made with Debian 12's packages: sox
// 14.4.2+git20190427-3.5 (`sox --version`: "SoX v14.4.2"), lame 3.100-6 (`lame --version`:
// "LAME 64bits version 3.100"), ffmpeg 7:5.1.9-0+deb12u1 ("ffmpeg version 5.1.9-0+deb12u1"),
// mpg123 1.31.2-1+deb12u1 ("mpg123 1.31.2"). Every number below is a tool's output, quoted from
// that script's run; none comes from this package.
//
// WAV rows: rate, channels and bits are `soxi -r`, `soxi -c`, `soxi -b`; samples are
// `soxi -s`, and two readers of the samples agree: ffprobe's duration_ts
// (`ffprobe -show_entries stream=sample_rate,channels,duration_ts F`) and SoX's decode
// (`sox F -t s32 - | wc -c`, over 4 bytes and the channels).
//
// MP3 rows: the rate and channels are ffprobe's. The samples are the gapless length, as three
// gapless decoders output it: `ffmpeg -i F -f s16le - | wc -c` over 2 bytes and the channels,
// `mpg123 -q -w out.wav F; soxi -s out.wav`, and `lame --decode F out.wav; soxi -s out.wav`.
// Where lame wrote its tag, the three agree with each other and with the source WAV's
// `soxi -s` (at the output rate when lame resampled): the delay and padding undo exactly what
// the encoder added. Each decoder skips the tag's encoder delay plus its own 528+1 samples of
// decoder delay at the start, and keeps the padding less those 529 off the end (lame --decode
// prints both: "skipping initial 1105 samples (encoder+decoder delay)", "skipping final N
// samples (encoder padding-decoder delay)"; FFmpeg's libavformat/mp3dec.c, mp3_parse_info_tag:
// start_skip_samples = start_pad + 528 + 1, first_discard_sample = frames·spf − end_pad + 528 + 1).
// The 529 cancels, so what they output is frames·spf − delay − padding, which mp3.go computes
// from the tag. ffprobe's duration_ts (in 1/14112000 s) is not that: it is the audio frames'
// whole length, frames·spf without the tag frame, and its start_time is the delay + 529 skip;
// each row gives both as a check on the frame count. A file without the tag has nothing to trim:
// ffmpeg and mpg123 output all frames·spf samples, which the row expects. lame --decode still
// drops 529 samples there (its decoder's own delay, assumed whether or not a tag says so), so it
// prints 529 fewer; the reader counts the samples the frames hold, as ffmpeg and mpg123 do.
// (SoX's MP3 reader, Debian's libsox-fmt-mp3 on libmad, is no gapless decoder: it gives 11025
// for lame_id3v2_v1_mono_44k.mp3 but 8026 for lame_cbr128_stereo_44k.mp3, which holds 8064
// samples and plays 6615. Its counts are not used.)
var realClips = []realClip{
	// sox -R -n -r 16000 -c 1 -b 16 sox_s16_mono_16k.wav synth 0.1503 sine 440
	// soxi -r -c -b -s: 16000 1 16 2405; ffprobe: pcm_s16le 16000 Hz 1 ch duration_ts=2405;
	// sox decode: 2405.
	{"sox_s16_mono_16k.wav", Audio{Format: WAV, SampleRate: 16000, Channels: 1, Bits: 16, Samples: 2405}, ""},
	// sox -R -n -r 44100 -c 2 -b 16 sox_s16_stereo_44k.wav synth 0.0301 sine 440 sine 660
	// soxi: 44100 2 16 1328; ffprobe: pcm_s16le 44100 2 duration_ts=1328; sox decode: 1328.
	{"sox_s16_stereo_44k.wav", Audio{Format: WAV, SampleRate: 44100, Channels: 2, Bits: 16, Samples: 1328}, ""},
	// sox -R -n -r 16000 -c 1 -b 24 sox_s24_mono_16k.wav synth 0.1 sine 440
	// (SoX writes WAVE_FORMAT_EXTENSIBLE above 16 bits: a 40-byte fmt chunk, tag 0xFFFE, and a
	// fact chunk before data.) soxi: 16000 1 24 1600; ffprobe: pcm_s24le 16000 1
	// duration_ts=1600; sox decode: 1600.
	{"sox_s24_mono_16k.wav", Audio{Format: WAV, SampleRate: 16000, Channels: 1, Bits: 24, Samples: 1600}, ""},
	// sox -R -n -r 8000 -c 1 -e floating-point -b 32 sox_f32_mono_8k.wav synth 0.1 sine 440
	// (an 18-byte fmt chunk, tag 3, and a fact chunk.) soxi: 8000 1 32 800 ("Floating Point
	// PCM"); ffprobe: pcm_f32le 8000 1 duration_ts=800; sox decode: 800.
	{"sox_f32_mono_8k.wav", Audio{Format: WAV, SampleRate: 8000, Channels: 1, Bits: 32, Samples: 800}, ""},
	// sox -R -n -r 8000 -c 1 -b 8 sox_u8_mono_8k_odd.wav synth 0.3001 sine 440
	// (2401 data bytes, then the RIFF pad byte.) soxi: 8000 1 8 2401; ffprobe: pcm_u8 8000 1
	// duration_ts=2401; sox decode: 2401. (MediaInfo 23.04 says 2402: it counts the pad byte.)
	{"sox_u8_mono_8k_odd.wav", Audio{Format: WAV, SampleRate: 8000, Channels: 1, Bits: 8, Samples: 2401}, ""},
	// sox -R -n -r 8000 -c 1 -e u-law -b 8 sox_ulaw_mono_8k.wav synth 0.1 sine 440
	// soxi: 8000 1 8 800; ffprobe: pcm_mulaw 8000 1 duration_ts=800. G.711 µ-law (tag 7): a
	// byte a sample.
	{"sox_ulaw_mono_8k.wav", Audio{Format: WAV, SampleRate: 8000, Channels: 1, Bits: 8, Samples: 800}, ""},
	// sox -R -n -r 16000 -c 1 -b 16 -t raw - synth 0.1 sine 523 |
	//   sox -R -t raw -r 16000 -e signed -b 16 -c 1 - -t wav - | cat > sox_pipe_s16_mono_16k.wav
	// (the length unknown and the output a pipe, SoX leaves its placeholder 0x7FFFF000 as the
	// data size.) soxi -s: 0 (unknown); sox decode: 1600; ffprobe: pcm_s16le 16000 1
	// duration_ts=1600.
	{"sox_pipe_s16_mono_16k.wav", Audio{Format: WAV, SampleRate: 16000, Channels: 1, Bits: 16, Samples: 1600}, ""},
	// sox -R -n -r 16000 -c 1 -b 16 src_16k_0.1.wav synth 0.1 sine 523
	// ffmpeg -v error -i src_16k_0.1.wav -c:a pcm_s16le ffmpeg_s16_mono_16k_list.wav
	// (a LIST/INFO chunk, ISFT "Lavf59.27.100", between fmt and data.) soxi: 16000 1 16 1600;
	// ffprobe: pcm_s16le 16000 1 duration_ts=1600; sox decode: 1600.
	{"ffmpeg_s16_mono_16k_list.wav", Audio{Format: WAV, SampleRate: 16000, Channels: 1, Bits: 16, Samples: 1600}, ""},
	// sox -R -n -r 8000 -c 3 -b 16 src_3ch.wav synth 0.05 sine 300 sine 400 sine 500
	// ffmpeg -v error -i src_3ch.wav -c:a pcm_s24le ffmpeg_s24_3ch_8k.wav
	// (WAVE_FORMAT_EXTENSIBLE, sub-format PCM, then LIST.) soxi: 8000 3 24 400; ffprobe:
	// pcm_s24le 8000 3 duration_ts=400; sox decode: 400.
	{"ffmpeg_s24_3ch_8k.wav", Audio{Format: WAV, SampleRate: 8000, Channels: 3, Bits: 24, Samples: 400}, ""},
	// sox -R -n -r 8000 -c 2 -b 16 src_2ch.wav synth 0.05 sine 300 sine 400
	// ffmpeg -v error -i src_2ch.wav -c:a pcm_f32le ffmpeg_f32_stereo_8k.wav
	// (WAVE_FORMAT_EXTENSIBLE, sub-format IEEE float, then fact and LIST.) soxi: 8000 2 32 400;
	// ffprobe: pcm_f32le 8000 2 duration_ts=400; sox decode: 400.
	{"ffmpeg_f32_stereo_8k.wav", Audio{Format: WAV, SampleRate: 8000, Channels: 2, Bits: 32, Samples: 400}, ""},
	// ffmpeg -v error -i src_16k_0.1.wav -f wav - | cat > ffmpeg_pipe_s16_mono_16k.wav
	// (on a pipe FFmpeg cannot go back to write the sizes: RIFF and data keep 0xFFFFFFFF.)
	// soxi -s: 2147483647 (the placeholder, not a count); sox decode: 1600; ffprobe: pcm_s16le
	// 16000 1 duration_ts=1600.
	{"ffmpeg_pipe_s16_mono_16k.wav", Audio{Format: WAV, SampleRate: 16000, Channels: 1, Bits: 16, Samples: 1600}, ""},

	// sox -R -n -r 44100 -c 2 -b 16 src_44k_stereo.wav synth 0.15 sine 440 sine 660 (soxi -s: 6615)
	// lame --quiet -b 128 src_44k_stereo.wav lame_cbr128_stereo_44k.mp3 (an Info tag, LAME3.100)
	// ffprobe: 44100 Hz 2 ch duration_ts=2580480 (8064 samples: 7 frames of 1152)
	// start_time=0.025057 (1105); ffmpeg 6615, mpg123 6615, lame --decode 6615 (skipping initial
	// 1105, final 344).
	{"lame_cbr128_stereo_44k.mp3", Audio{Format: MP3, SampleRate: 44100, Channels: 2, Samples: 6615}, ""},
	// lame --quiet -b 128 -t src_44k_stereo.wav lame_notag_stereo_44k.mp3 (-t: no Xing/Info tag)
	// ffprobe: 44100 2 duration_ts=2579850 (estimated from the bitrate, no tag giving the frame
	// count) start_time=0; ffmpeg 8064, mpg123 8064 (7 frames of 1152); lame --decode 7535
	// (skipping initial 529 only).
	{"lame_notag_stereo_44k.mp3", Audio{Format: MP3, SampleRate: 44100, Channels: 2, Samples: 8064}, ""},
	// sox -R -n -r 44100 -c 1 -b 16 src_44k_mono_0.5.wav synth 0.5 sine 300 (soxi -s: 22050)
	// lame --quiet -V 5 src_44k_mono_0.5.wav lame_vbr_mono_44k.mp3 (a Xing tag, frames of several
	// bitrates) ffprobe: 44100 1 duration_ts=7741440 (24192: 21 frames) start_time=0.025057;
	// ffmpeg 22050, mpg123 22050, lame --decode 22050 (initial 1105, final 1037).
	{"lame_vbr_mono_44k.mp3", Audio{Format: MP3, SampleRate: 44100, Channels: 1, Samples: 22050}, ""},
	// sox -R -n -r 44100 -c 1 -b 16 src_44k_mono_0.25.wav synth 0.25 sine 350 (soxi -s: 11025)
	// lame --quiet -b 64 --tt Fixture --ta replay --add-id3v2 src_44k_mono_0.25.wav \
	//   lame_id3v2_v1_mono_44k.mp3 (an ID3v2.3 tag before the audio, ID3v1 "TAG" after)
	// ffprobe: 44100 1 duration_ts=4055040 (12672: 11 frames) start_time=0.025057; ffmpeg 11025,
	// mpg123 11025, lame --decode 11025 (initial 1105, final 542).
	{"lame_id3v2_v1_mono_44k.mp3", Audio{Format: MP3, SampleRate: 44100, Channels: 1, Samples: 11025}, ""},
	// lame --quiet -b 64 -p src_44k_mono_0.25.wav lame_crc_mono_44k.mp3 (-p: CRC-protected
	// frames; the Info tag is still 4 + 17 bytes in, where it would be without the CRC, which is
	// where FFmpeg's mp3dec.c looks, xing_offtbl) ffprobe: 44100 1 duration_ts=4055040 (12672)
	// start_time=0.025057; ffmpeg 11025, mpg123 11025, lame --decode 11025 (initial 1105, final 542).
	{"lame_crc_mono_44k.mp3", Audio{Format: MP3, SampleRate: 44100, Channels: 1, Samples: 11025}, ""},
	// sox -R -n -r 22050 -c 2 -b 16 src_22k_stereo.wav synth 0.35 sine 500 sine 700 (soxi -s: 7717)
	// lame --quiet -b 64 src_22k_stereo.wav lame_mpeg2_stereo_22k.mp3 (MPEG-2 Layer III)
	// ffprobe: 22050 2 duration_ts=5898240 (9216: 16 frames of 576) start_time=0.050113 (1105);
	// ffmpeg 7717, mpg123 7717, lame --decode 7717 (initial 1105, final 394).
	{"lame_mpeg2_stereo_22k.mp3", Audio{Format: MP3, SampleRate: 22050, Channels: 2, Samples: 7717}, ""},
	// sox -R -n -r 44100 -c 1 -b 16 src_44k_mono_0.4.wav synth 0.4 sine 400 (soxi -s: 17640,
	// 6400 at 16 kHz, 3200 at 8 kHz)
	// lame --quiet -b 64 --resample 16 src_44k_mono_0.4.wav lame_mpeg2_resample16_mono.mp3
	// ffprobe: 16000 1 duration_ts=7112448 (8064: 14 frames of 576) start_time=0.069062 (1105);
	// ffmpeg 6400, mpg123 6400, lame --decode 6400 (initial 1105, final 559): the length at the
	// output rate.
	{"lame_mpeg2_resample16_mono.mp3", Audio{Format: MP3, SampleRate: 16000, Channels: 1, Samples: 6400}, ""},
	// lame --quiet -b 32 --resample 16 src_44k_mono_0.4.wav lame_mpeg2_resample16_b32_notag.mp3
	// (no tag: a 144-byte frame cannot hold it, and LAME's InitVbrTag, libmp3lame/VbrTag.c,
	// "disable tag, it wont fit") ffprobe: 16000 1 duration_ts=7112448 (8064) start_time=0;
	// ffmpeg 8064, mpg123 8064; lame --decode 7535 (initial 529 only).
	{"lame_mpeg2_resample16_b32_notag.mp3", Audio{Format: MP3, SampleRate: 16000, Channels: 1, Samples: 8064}, ""},
	// lame --quiet -b 24 --resample 8 src_44k_mono_0.4.wav lame_mpeg25_resample8_mono.mp3
	// (MPEG-2.5 Layer III) ffprobe: 8000 1 duration_ts=8128512 (4608: 8 frames of 576)
	// start_time=0.138125 (1105); ffmpeg 3200, mpg123 3200, lame --decode 3200 (initial 1105,
	// final 303).
	{"lame_mpeg25_resample8_mono.mp3", Audio{Format: MP3, SampleRate: 8000, Channels: 1, Samples: 3200}, ""},
	// sox -R -n -r 16000 -c 1 -b 16 src_16k_0.5.wav synth 0.5 sine 450 (soxi -s: 8000)
	// ffmpeg -v error -i src_16k_0.5.wav -c:a libmp3lame -b:a 32k ffmpeg_lame_mono_16k.mp3
	// (an ID3v2.4 tag, then FFmpeg's own Info tag, encoder "Lavc59.37", in a 40 kbit/s frame)
	// ffprobe: 16000 1 duration_ts=8128512 (9216: 16 frames) start_time=0.069062; ffmpeg 8000,
	// mpg123 8000, lame --decode 8000 (initial 1105, final 111).
	{"ffmpeg_lame_mono_16k.mp3", Audio{Format: MP3, SampleRate: 16000, Channels: 1, Samples: 8000}, ""},
	// ffmpeg -v error -i src_44k_mono_0.25.wav -c:a libmp3lame -q:a 5 ffmpeg_lame_vbr_mono_44k.mp3
	// (ID3v2.4, a Xing tag by Lavc) ffprobe: 44100 1 duration_ts=4055040 (12672)
	// start_time=0.025057; ffmpeg 11025, mpg123 11025, lame --decode 11025 (initial 1105, final 542).
	{"ffmpeg_lame_vbr_mono_44k.mp3", Audio{Format: MP3, SampleRate: 44100, Channels: 1, Samples: 11025}, ""},
	// ffmpeg -v error -i src_16k_0.5.wav -c:a libmp3lame -b:a 32k -f mp3 - | cat > \
	//   ffmpeg_pipe_lame_mono_16k.mp3 (ID3v2.4 but no Xing tag: FFmpeg's mp3enc.c,
	// mp3_write_xing, writes none to output it cannot seek) ffprobe: 16000 1
	// duration_ts=8128512 (9216) start_time=0; ffmpeg 9216, mpg123 9216; lame --decode 8687
	// (initial 529 only).
	{"ffmpeg_pipe_lame_mono_16k.mp3", Audio{Format: MP3, SampleRate: 16000, Channels: 1, Samples: 9216}, ""},
	// ffmpeg -v error -i src_16k_0.5.wav -c:a mp2 -b:a 64k -f mp2 ffmpeg_mp2_mono_16k.mp2
	// (MPEG-2 Layer II, 1152 samples a frame, no tag; the magic bytes make it MPEG audio, "mp3"
	// to ReadAudio.) ffprobe: mp2 16000 1 duration_ts=7112448 (8064: 7 frames) start_time=0;
	// ffmpeg 8064, mpg123 8064; lame --decode 7823 (skipping initial 241, lame's figure for a
	// Layer II decoder's delay, with no tag either).
	{"ffmpeg_mp2_mono_16k.mp2", Audio{Format: MP3, SampleRate: 16000, Channels: 1, Samples: 8064}, ""},
}

// TestAudioRealEncoders reads every clip in testdata/audio, each declared as its format (as a
// chat request's input_audio names it), and holds ReadAudio to the tools' numbers in realClips;
// a file there without a row fails, so no fixture goes unchecked.
func TestAudioRealEncoders(t *testing.T) {
	dir := filepath.Join("testdata", "audio")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]realClip{}
	for _, c := range realClips {
		rows[c.file] = c
	}
	for _, e := range entries {
		if _, ok := rows[e.Name()]; !ok {
			t.Errorf("%s has no row in realClips", e.Name())
		}
	}
	for _, c := range realClips {
		data, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			t.Error(err)
			continue
		}
		declared := MP3
		if strings.HasSuffix(c.file, ".wav") {
			declared = WAV
		}
		got, err := ReadAudio(data, declared)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %+v, %v; want an error saying %q", c.file, got, err, c.err)
			}
		case err != nil || got != c.want:
			t.Errorf("%s: %+v, %v; the tools measure %+v", c.file, got, err, c.want)
		}
	}
}
