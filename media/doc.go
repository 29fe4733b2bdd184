// Package media knows the images and audio clips a request log's messages carry, without
// keeping them: a data URL's bytes (dataurl.go), the format and size read from an image's
// header (header.go), the --image-size form (size.go), how many prompt tokens a model's
// processor turns an image into, chosen from the model's folder as Hugging Face chooses it
// (rule.go: config.json's model_type and preprocessor_config.json; one file per family, each
// citing its source), the hosted models' documented counts a log's prompt holds (logged.go),
// a rule corrected by an endpoint's own counts (measured.go), and the deterministic stand-in
// image a replay sends for a logged one (standin.go, named by standinpath.go); and the same
// for audio: a WAV or MP3 clip's rate, channels and length from its headers (audio.go,
// wav.go, mp3.go: the MP3's gapless length), the audio token rules (audiorule.go: LoadAudio;
// qwen2audio.go, voxtral.go; TokensPerSecond for --audio-tokens-per-second) and the stand-in
// clip (audiostandin.go).
//
// It is a leaf: it imports nothing of the module, knows no tokenizer (a rule is given a
// counting function for the text its processor wraps an image or clip in) and never sends or
// stores logged pixels or samples. requestlog reads logged parts with it, synth builds the
// media it sends, and the simulator counts what it receives with the same rules, so the three
// agree.
package media
