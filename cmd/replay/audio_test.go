package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/synth/tokenizer"
	"github.com/llm-replay/replay/trace"
)

// modelFolder is a model folder for the tests: Qwen3's tokenizer and chat template with a
// config.json of modelType and the preprocessor_config.json given, written here. (Qwen3's
// vocabulary holds Qwen2-VL's vision specials but not Qwen2-Audio's audio ones: the audio
// wrapper is whatever this tokenizer makes of it, counted alike on both sides.)
func modelFolder(t *testing.T, modelType, preprocessor string) string {
	t.Helper()
	src := testenv.Tokenizer(t, "qwen3")
	dir := t.TempDir()
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json"} {
		if err := os.Symlink(filepath.Join(src, f), filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{"config.json": fmt.Sprintf(`{"model_type": %q}`, modelType), "preprocessor_config.json": preprocessor}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The preprocessor configurations Qwen/Qwen2-VL-2B-Instruct and Qwen/Qwen2-Audio-7B-Instruct
// publish (the values their rules read).
const (
	qwen2VLPreprocessor    = `{"min_pixels": 3136, "max_pixels": 12845056, "patch_size": 14, "temporal_patch_size": 2, "merge_size": 2, "image_processor_type": "Qwen2VLImageProcessor"}`
	qwen2AudioPreprocessor = `{"chunk_length": 30, "feature_extractor_type": "WhisperFeatureExtractor", "feature_size": 128, "hop_length": 160, "n_fft": 400, "n_samples": 480000, "nb_max_frames": 3000, "padding_side": "right", "padding_value": 0.0, "processor_class": "Qwen2AudioProcessor", "return_attention_mask": true, "sampling_rate": 16000}`
)

// lameMP3 is an MP3 of n MPEG-1 Layer III frames (128 kbit/s, 44.1 kHz, 417 bytes, 1152
// samples each) after an Info frame whose LAME extension says delay 576 and padding 1000:
// n·1152 − 1576 samples of gapless audio.
func lameMP3(n int) []byte {
	frame := func() []byte { return append([]byte{0xff, 0xfb, 0x90, 0x44}, make([]byte, 413)...) }
	tag := frame()
	copy(tag[36:], "Info\x00\x00\x00\x0f")
	copy(tag[36+8+112:], "LAME3.100")
	d := tag[36+8+112+21:]
	d[0], d[1], d[2] = 576>>4, (576&0xf)<<4|1000>>8, 1000&0xff
	return append(tag, bytes.Repeat(frame(), n)...)
}

// writeMixedLog writes a chat log of n requests mixing text alone, images, audio clips (WAV at
// 16 and 8 kHz, an MP3 with a LAME tag) and both, clips and images shared across requests, and
// returns its path.
func writeMixedLog(t *testing.T, n int) string {
	t.Helper()
	var clips []map[string]any
	for i, a := range []media.Audio{{SampleRate: 16000, Channels: 1, Bits: 16, Samples: 64321}, {SampleRate: 8000, Channels: 2, Bits: 16, Samples: 12000}} {
		s, err := media.BuildAudio(uint64(50+i), a)
		if err != nil {
			t.Fatal(err)
		}
		clips = append(clips, map[string]any{"type": "input_audio", "input_audio": map[string]any{"data": base64.StdEncoding.EncodeToString(s.Data), "format": "wav"}})
	}
	clips = append(clips, map[string]any{"type": "input_audio", "input_audio": map[string]any{"data": base64.StdEncoding.EncodeToString(lameMP3(60)), "format": "mp3"}})
	png, _ := media.Build(1, 640, 480, media.PNG)
	jpg, _ := media.Build(2, 20, 20, media.JPEG)
	images := []map[string]any{
		{"type": "image_url", "image_url": map[string]any{"url": media.DataURL(png.MIME, png.Data)}},
		{"type": "image_url", "image_url": map[string]any{"url": media.DataURL(jpg.MIME, jpg.Data), "detail": "low"}},
	}
	var b strings.Builder
	for i := range n {
		text := map[string]any{"type": "text", "text": fmt.Sprintf("Request %d: what do you make of this?", i)}
		var content any
		switch i % 4 {
		case 0:
			content = fmt.Sprintf("Request %d: text alone, please answer briefly.", i)
		case 1:
			content = []any{text, images[i%2], map[string]any{"type": "text", "text": " and in detail"}}
		case 2:
			content = []any{clips[i%3], text}
		default:
			content = []any{text, clips[(i+1)%3], images[(i/4)%2], clips[i%3], map[string]any{"type": "text", "text": " both, please"}}
		}
		line, _ := json.Marshal(map[string]any{"timestamp": float64(i) * 0.05, "request": map[string]any{"model": "omni", "max_tokens": 4,
			"messages": []any{map[string]any{"role": "system", "content": "You listen and look."}, map[string]any{"role": "user", "content": content}}},
			"response": map[string]any{"usage": map[string]any{"completion_tokens": 4}}})
		fmt.Fprintf(&b, "%s\n", line)
	}
	path := filepath.Join(t.TempDir(), "mixed.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAudioNoRule: a log with audio against a vision-only model folder stops before anything
// is sent, naming what is missing and the way out; in ingest too.
func TestAudioNoRule(t *testing.T) {
	folder := modelFolder(t, "qwen2_vl", qwen2VLPreprocessor)
	log := writeMixedLog(t, 8)
	code, _, stderr := runCLI(t, "ingest", "--trace", log, "--format", "openai-log", "--tokenizer", folder, "--out", filepath.Join(t.TempDir(), "t.parquet"))
	if code != 1 || !strings.Contains(stderr, "--audio-tokens-per-second") || !strings.Contains(stderr, `model_type "qwen2_vl"`) || !strings.Contains(stderr, ":3") {
		t.Errorf("ingest: exit %d, stderr %q; want 1 naming line 3, the folder's model_type and --audio-tokens-per-second", code, stderr)
	}
	dir := t.TempDir()
	code, _, stderr = runCLI(t, "run", "--trace", log, "--format", "openai-log", "--tokenizer", folder, "--out", dir)
	if code == 0 || !strings.Contains(stderr, "--audio-tokens-per-second") || !strings.Contains(stderr, "no audio token rule") {
		t.Errorf("run: exit %d, stderr %q; want a failure naming the missing rule and --audio-tokens-per-second", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "requests.parquet")); err == nil {
		t.Error("the run sent requests before refusing")
	}
}

// TestMixedMediaRun replays a log mixing text, images and audio against the built-in
// simulator, counted on both sides by the model folder's rules: a Qwen2-VL folder's for images
// with --audio-tokens-per-second for audio, and a Qwen2-Audio folder's for audio with
// --image-tokens for images. Ingest's media column holds each clip's header values and
// tokens by the rule (Qwen2-Audio's 101 placeholders and its wrapper for 64321 samples at
// 16 kHz, the processor's own test's count), and every request's prompt tokens are exact by the
// simulator's count.
func TestMixedMediaRun(t *testing.T) {
	log := writeMixedLog(t, 24)
	audioFolder := modelFolder(t, "qwen2_audio", qwen2AudioPreprocessor)
	out := filepath.Join(t.TempDir(), "t.parquet")
	code, stdout, stderr := runCLI(t, "ingest", "--trace", log, "--format", "openai-log", "--tokenizer", audioFolder, "--image-tokens", "300", "--out", out)
	if code != 0 || !strings.Contains(stdout, `"records":24`) || !strings.Contains(stdout, `"images":12`) || !strings.Contains(stdout, `"audio":18`) {
		t.Fatalf("ingest: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	recs, err := trace.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.Load(audioFolder)
	if err != nil {
		t.Fatal(err)
	}
	wrap := len(tok.Encode("<|audio_bos|><|audio_eos|>", false))
	want := map[string]trace.MediaPart{ // by MIME and rate: the clips' header values and tokens
		"audio/wav/16000": {SampleRate: 16000, Channels: 1, Bits: 16, Samples: 64321, Tokens: 101 + wrap},
		// 12000 samples at 8 kHz are 24000 at 16 kHz: 150 frames, 37 placeholders.
		"audio/wav/8000": {SampleRate: 8000, Channels: 2, Bits: 16, Samples: 12000, Tokens: 37 + wrap},
		// The MP3's gapless 67544 samples at 44.1 kHz are 24506 at 16 kHz: 154 frames, 38.
		"audio/mpeg/44100": {SampleRate: 44100, Channels: 2, Samples: 60*1152 - 1576, Tokens: 38 + wrap},
	}
	clips := 0
	for _, r := range recs {
		for _, m := range r.Media {
			if m.Kind != trace.MediaKindAudio {
				continue
			}
			clips++
			w, ok := want[fmt.Sprintf("%s/%d", m.MIME, m.SampleRate)]
			if !ok || m.Channels != w.Channels || m.Bits != w.Bits || m.Samples != w.Samples || m.Tokens != w.Tokens {
				t.Errorf("line %d: clip %+v, want %+v", r.Line, m, w)
			}
		}
	}
	if clips != 18 {
		t.Errorf("%d clips in the media column, want 18", clips)
	}
	for name, args := range map[string][]string{
		"qwen2_vl + rate":      {"--tokenizer", modelFolder(t, "qwen2_vl", qwen2VLPreprocessor), "--audio-tokens-per-second", "25"},
		"qwen2_audio + images": {"--tokenizer", audioFolder, "--image-tokens", "300"},
	} {
		dir := t.TempDir()
		code, _, stderr := runCLI(t, append([]string{"run", "--trace", log, "--format", "openai-log", "--out", dir, "--max-lateness", "2s"}, args...)...)
		if code != 0 {
			t.Fatalf("%s: run: exit %d\n%s", name, code, stderr)
		}
		s := readRunSummary(t, dir)
		if s.Requests.OK != 24 || s.Fidelity.PromptTokensExactPct == nil || *s.Fidelity.PromptTokensExactPct != 100 {
			t.Errorf("%s: %d ok, prompt tokens exact %v; want 24 and 100%%\n%s", name, s.Requests.OK, s.Fidelity.PromptTokensExactPct, stderr)
		}
		if !strings.Contains(stderr, "replay: 18 audio clips in 12 requests (3 distinct)") || !strings.Contains(stderr, "6 logged as MP3, sent as WAV") {
			t.Errorf("%s: the run does not say what audio it sends:\n%s", name, stderr)
		}
	}
}
