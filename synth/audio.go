package synth

import (
	"encoding/base64"
	"fmt"
	"sync"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/trace"
)

// audio.go builds the input_audio part sent for a logged clip: a stand-in WAV of the logged
// rate, channels and length in samples (media.BuildAudio, keyed by the logged clip's hash, so
// the same logged clip is the same bytes in every request), base64 as chat's input_audio
// takes it. A clip logged as MP3 is sent as WAV of the same length (the run says so): every
// rule counts the two alike, since a count depends on the samples and the rate alone.

// domainAudio keys the stand-in clips by the logged clips' hashes.
const domainAudio uint64 = 0x617564696f000011

// audioCacheBytes bounds the stand-ins kept for reuse, as imageCacheBytes does images'.
const audioCacheBytes = 256 << 20

// audioOf is what the rules read of a logged clip.
func audioOf(m trace.MediaPart) media.Audio {
	format := media.WAV
	if m.MIME == "audio/mpeg" {
		format = media.MP3
	}
	return media.Audio{Format: format, SampleRate: m.SampleRate, Channels: m.Channels, Bits: m.Bits, Samples: m.Samples}
}

// audioStandIn is the input_audio part for a logged clip, built once while the cache holds it.
func (b *Builder) audioStandIn(m trace.MediaPart, index int) (chat.Part, error) {
	data, err := b.clips.get(m, key(b.cfg.Seed, domainAudio, m.Hash))
	if err != nil {
		return chat.Part{}, fmt.Errorf("request %d: audio of %d samples at %d Hz: %w", index, m.Samples, m.SampleRate, err)
	}
	return chat.Part{Type: chat.PartAudio, AudioData: data, AudioFormat: media.WAV}, nil
}

// audioCache keeps built stand-in clips, base64, by what they are made of; it is safe for
// concurrent use. Past its bound it starts afresh.
type audioCache struct {
	mu    sync.Mutex
	data  map[audioKey]string
	bytes int
}

type audioKey struct {
	hash                 uint64
	rate, channels, bits int
	samples              int64
}

func (c *audioCache) get(m trace.MediaPart, k uint64) (string, error) {
	ak := audioKey{m.Hash, m.SampleRate, m.Channels, m.Bits, m.Samples}
	c.mu.Lock()
	s, ok := c.data[ak]
	c.mu.Unlock()
	if ok {
		return s, nil
	}
	clip, err := media.BuildAudio(k, audioOf(m))
	if err != nil {
		return "", err
	}
	s = base64.StdEncoding.EncodeToString(clip.Data)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.data == nil || c.bytes+len(s) > audioCacheBytes {
		c.data, c.bytes = map[audioKey]string{}, 0
	}
	c.data[ak] = s
	c.bytes += len(s)
	return s, nil
}
