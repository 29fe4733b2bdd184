package analysis

import (
	"fmt"

	"github.com/llm-replay/replay/results"
)

// media.go gives the figures of a run whose requests carry images or audio: an image costs
// the engine hundreds to thousands of prompt tokens and a vision-encoder pass, so a run mixing
// text and images has populations whose TTFTs differ by design, one hiding the other in the
// run's percentiles. Side by side: requests by what they carried (none, one image, two or
// more, audio), TTFT by the media tokens (images and clips) a request carried, and the media bytes the run sent.

// Media is summary.json's "media": nil when no request carried any. Populations are keyed
// by MediaPopulation's names, ByMediaTokens by MediaTokenBucket's; BytesSent are the media
// files' bytes inlined in the bodies (media sent as URLs are fetched, not carried).
// ServerMediaTokens are the media tokens as the server counted them (results.Row's), over the
// ServerCounted requests that answered with a prompt count, beside RuleMediaTokens, the
// rule's over the same requests: the two differ by what the server charged otherwise.
type Media struct {
	Requests    int64 `json:"requests"`
	Images      int64 `json:"images"`
	AudioClips  int64 `json:"audio_clips"`
	MediaTokens int64 `json:"media_tokens"`
	// ServerCounted is how many requests' media the server's usage counted.
	ServerCounted     int64                 `json:"server_counted"`
	ServerMediaTokens int64                 `json:"server_media_tokens"`
	RuleMediaTokens   int64                 `json:"rule_media_tokens"`
	BytesSent         int64                 `json:"bytes_sent"`
	BytesPerS         float64               `json:"bytes_per_s"`
	Populations       map[string]Population `json:"populations"`
	ByMediaTokens     map[string]Population `json:"by_media_tokens"`
}

// The media populations.
const (
	MediaNone      = "text only"
	MediaOneImage  = "1 image"
	MediaTwoImages = "2+ images"
	MediaAudio     = "audio"
)

// MediaPopulations are the populations in the order pages show them.
var MediaPopulations = []string{MediaNone, MediaOneImage, MediaTwoImages, MediaAudio}

// MediaPopulation is the population of a request by what it carried; audio wins over images.
func MediaPopulation(r *results.Row) string {
	switch {
	case r.AudioClips > 0:
		return MediaAudio
	case r.Images >= 2:
		return MediaTwoImages
	case r.Images == 1:
		return MediaOneImage
	}
	return MediaNone
}

// mediaTokenEdges are where MediaTokenBucket's buckets start: none, a small image, a screen,
// a page scan, more.
var mediaTokenEdges = []int32{0, 1, 256, 1024, 4096}

// MediaTokenBuckets are the bucket names in order.
var MediaTokenBuckets = func() []string {
	out := make([]string, len(mediaTokenEdges))
	for i := range mediaTokenEdges {
		out[i] = bucketName(i)
	}
	return out
}()

func bucketName(i int) string {
	switch {
	case i == 0:
		return "0"
	case i == len(mediaTokenEdges)-1:
		return fmt.Sprintf("%d+", mediaTokenEdges[i])
	}
	return fmt.Sprintf("%d-%d", mediaTokenEdges[i], mediaTokenEdges[i+1]-1)
}

// MediaTokenBucket is the bucket of the media tokens a request carried.
func MediaTokenBucket(r *results.Row) string {
	i := 0
	for i+1 < len(mediaTokenEdges) && r.MediaTokens >= mediaTokenEdges[i+1] {
		i++
	}
	return bucketName(i)
}

// mediaAgg aggregates the rows' media: every row joins a population and a bucket, and the
// section is given only once one carried media.
type mediaAgg struct {
	requests, images, audio, tokens, bytes int64
	counted, server, expected              int64 // the requests whose usage counted their media
	pops, buckets                          map[string]*popMetrics
}

func newMediaAgg() *mediaAgg {
	return &mediaAgg{pops: map[string]*popMetrics{}, buckets: map[string]*popMetrics{}}
}

// count counts one request's media, sent whatever its outcome.
func (a *mediaAgg) count(r *results.Row) {
	if r.Images == 0 && r.AudioClips == 0 {
		return
	}
	a.requests++
	a.images += int64(r.Images)
	a.audio += int64(r.AudioClips)
	a.tokens += int64(r.MediaTokens)
	a.bytes += r.MediaBytes
	if r.ServerMediaTokens >= 0 && r.PromptTokens >= 0 && r.ErrorClass == "" {
		a.counted++
		a.server += int64(r.ServerMediaTokens)
		a.expected += int64(r.MediaTokens)
	}
}

// summary is the section, nil when no request carried media.
func (a *mediaAgg) summary(durS float64) *Media {
	if a.requests == 0 {
		return nil
	}
	streamed := func(of map[string]*popMetrics) func(string) bool {
		return func(name string) bool { return of[name].streamed }
	}
	return &Media{Requests: a.requests, Images: a.images, AudioClips: a.audio, MediaTokens: a.tokens,
		ServerCounted: a.counted, ServerMediaTokens: a.server, RuleMediaTokens: a.expected,
		BytesSent: a.bytes, BytesPerS: rate(float64(a.bytes), durS),
		Populations:   figures(a.pops, durS, streamed(a.pops)),
		ByMediaTokens: figures(a.buckets, durS, streamed(a.buckets))}
}
