#!/usr/bin/env bash
# Remake the audio fixtures in media/testdata/audio (read by media/audio_real_test.go) with real
# encoders, and print what independent tools measure of each: the numbers that test expects.
# Needs Debian's sox, lame, ffmpeg, mpg123 and mediainfo (apt-get install sox lame ffmpeg mpg123
# mediainfo); the committed files came from SoX 14.4.2, LAME 3.100, FFmpeg 5.1.9 (Debian 12).
# The sources are sox's synth tones; -R seeds its dither, so a run with the same tool versions
# gives the same bytes.
# The test does not run this: it needs only the committed files.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/media/testdata/audio
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

# WAV, from sox and ffmpeg as they write by default.
sox -R -n -r 16000 -c 1 -b 16 sox_s16_mono_16k.wav synth 0.1503 sine 440
sox -R -n -r 44100 -c 2 -b 16 sox_s16_stereo_44k.wav synth 0.0301 sine 440 sine 660
sox -R -n -r 16000 -c 1 -b 24 sox_s24_mono_16k.wav synth 0.1 sine 440
sox -R -n -r 8000 -c 1 -e floating-point -b 32 sox_f32_mono_8k.wav synth 0.1 sine 440
sox -R -n -r 8000 -c 1 -b 8 sox_u8_mono_8k_odd.wav synth 0.3001 sine 440
sox -R -n -r 8000 -c 1 -e u-law -b 8 sox_ulaw_mono_8k.wav synth 0.1 sine 440
# sox writing a WAV to a pipe from input of unknown length.
sox -R -n -r 16000 -c 1 -b 16 -t raw - synth 0.1 sine 523 |
  sox -R -t raw -r 16000 -e signed -b 16 -c 1 - -t wav - 2>/dev/null | cat > sox_pipe_s16_mono_16k.wav
sox -R -n -r 16000 -c 1 -b 16 src_16k_0.1.wav synth 0.1 sine 523
sox -R -n -r 8000 -c 3 -b 16 src_3ch.wav synth 0.05 sine 300 sine 400 sine 500
sox -R -n -r 8000 -c 2 -b 16 src_2ch.wav synth 0.05 sine 300 sine 400
ffmpeg -v error -i src_16k_0.1.wav -c:a pcm_s16le ffmpeg_s16_mono_16k_list.wav
ffmpeg -v error -i src_3ch.wav -c:a pcm_s24le ffmpeg_s24_3ch_8k.wav
ffmpeg -v error -i src_2ch.wav -c:a pcm_f32le ffmpeg_f32_stereo_8k.wav
ffmpeg -v error -i src_16k_0.1.wav -f wav - | cat > ffmpeg_pipe_s16_mono_16k.wav

# MPEG audio, from lame and ffmpeg (libmp3lame, mp2).
sox -R -n -r 44100 -c 2 -b 16 src_44k_stereo.wav synth 0.15 sine 440 sine 660
sox -R -n -r 44100 -c 1 -b 16 src_44k_mono_0.5.wav synth 0.5 sine 300
sox -R -n -r 44100 -c 1 -b 16 src_44k_mono_0.25.wav synth 0.25 sine 350
sox -R -n -r 44100 -c 1 -b 16 src_44k_mono_0.4.wav synth 0.4 sine 400
sox -R -n -r 22050 -c 2 -b 16 src_22k_stereo.wav synth 0.35 sine 500 sine 700
sox -R -n -r 16000 -c 1 -b 16 src_16k_0.5.wav synth 0.5 sine 450
lame --quiet -b 128 src_44k_stereo.wav lame_cbr128_stereo_44k.mp3
lame --quiet -b 128 -t src_44k_stereo.wav lame_notag_stereo_44k.mp3
lame --quiet -V 5 src_44k_mono_0.5.wav lame_vbr_mono_44k.mp3
lame --quiet -b 64 --tt Fixture --ta replay --add-id3v2 src_44k_mono_0.25.wav lame_id3v2_v1_mono_44k.mp3
lame --quiet -b 64 -p src_44k_mono_0.25.wav lame_crc_mono_44k.mp3
lame --quiet -b 64 src_22k_stereo.wav lame_mpeg2_stereo_22k.mp3
lame --quiet -b 64 --resample 16 src_44k_mono_0.4.wav lame_mpeg2_resample16_mono.mp3
lame --quiet -b 32 --resample 16 src_44k_mono_0.4.wav lame_mpeg2_resample16_b32_notag.mp3
lame --quiet -b 24 --resample 8 src_44k_mono_0.4.wav lame_mpeg25_resample8_mono.mp3
ffmpeg -v error -i src_16k_0.5.wav -c:a libmp3lame -b:a 32k ffmpeg_lame_mono_16k.mp3
ffmpeg -v error -i src_44k_mono_0.25.wav -c:a libmp3lame -q:a 5 ffmpeg_lame_vbr_mono_44k.mp3
ffmpeg -v error -i src_16k_0.5.wav -c:a libmp3lame -b:a 32k -f mp3 - | cat > ffmpeg_pipe_lame_mono_16k.mp3
ffmpeg -v error -i src_16k_0.5.wav -c:a mp2 -b:a 64k -f mp2 ffmpeg_mp2_mono_16k.mp2

mkdir -p "$out"
cp sox_*.wav ffmpeg_*.wav lame_*.mp3 ffmpeg_*.mp3 ffmpeg_*.mp2 "$out"/

# What independent tools measure.
lame --version | head -1; sox --version; ffmpeg -version | head -1; mpg123 --version; mediainfo --version | tail -1
for f in src_*.wav; do echo "$f: soxi -s $(soxi -s "$f")"; done
cd "$out"
probe() { ffprobe -v error -select_streams a:0 -show_entries stream="$1" -of default=nw=1 "$2" | tr '\n' ' '; }
for f in *.wav; do
  ch=$(soxi -c "$f" 2>/dev/null)
  echo "$f: soxi -r -c -b -s: $(soxi -r "$f" 2>/dev/null) $ch $(soxi -b "$f" 2>/dev/null) $(soxi -s "$f" 2>/dev/null);" \
    "sox decode: $(( $(sox "$f" -t s32 - 2>/dev/null | wc -c) / 4 / ch ));" \
    "ffprobe: $(probe codec_name,sample_rate,channels,duration_ts "$f")"
done
for f in *.mp3 *.mp2; do
  ch=$(ffprobe -v error -select_streams a:0 -show_entries stream=channels -of default=nw=1:nk=1 "$f" | head -1)
  mpg123 -q -w "$tmp/m.wav" "$f"
  skips=$(lame --decode "$f" "$tmp/l.wav" 2>&1 | grep -o 'skipping [a-z]* [0-9]* samples' | tr '\n' ' ')
  echo "$f: ffprobe: $(probe sample_rate,channels,duration_ts,start_time "$f");" \
    "ffmpeg decode: $(( $(ffmpeg -v error -i "$f" -f s16le - | wc -c) / 2 / ch ));" \
    "mpg123 -w: $(soxi -s "$tmp/m.wav"); lame --decode: $(soxi -s "$tmp/l.wav") ($skips)"
done
