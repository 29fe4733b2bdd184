package media

import "fmt"

// measuredaudio.go is an audio rule corrected by what an endpoint was seen to count, as
// measured.go is for images: the run's probe asks the endpoint for each distinct clip of the
// window (its rate, channels and length) and keeps what the engine charged for it. Clips it
// measured are counted as measured; any other by the rule it corrects.

// Clip is what a clip's count depends on: its rate, channels and length in samples (the
// stand-in sent for it is a WAV of those).
type Clip struct {
	SampleRate, Channels int
	Samples              int64
}

// ClipOf is a's Clip.
func ClipOf(a Audio) Clip { return Clip{a.SampleRate, a.Channels, a.Samples} }

// MeasuredAudio is Base with the counts an endpoint was seen to give: By names who measured
// them.
type MeasuredAudio struct {
	Base   AudioRule // nil when the model's folder has no audio rule: only measured clips count
	Counts map[Clip]int
	By     string
}

func (m MeasuredAudio) Name() string {
	if m.Base == nil {
		return fmt.Sprintf("%s's own count (%d clips measured)", m.By, len(m.Counts))
	}
	return fmt.Sprintf("%s, with %d clips as %s counts them", m.Base.Name(), len(m.Counts), m.By)
}

func (m MeasuredAudio) Tokens(a Audio) (int, error) {
	if n, ok := m.Counts[ClipOf(a)]; ok {
		return n, nil
	}
	if m.Base == nil {
		return 0, fmt.Errorf("a clip of %d samples at %d Hz was not measured (%s measured %d) and the model's folder has no audio rule: %w", a.Samples, a.SampleRate, m.By, len(m.Counts), ErrNoAudioRule)
	}
	return m.Base.Tokens(a)
}
