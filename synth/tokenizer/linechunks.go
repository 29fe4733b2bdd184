package tokenizer

import (
	"encoding/json"
	"strings"
)

// Line chunks. Long prompts are mostly text seen before inside text that is not: a shared
// document followed by a new question, a pasted file with one line changed. The segment cache
// only knows whole segments, so those miss and are encoded again in full. For tokenizers where
// it is exact, a missed segment is cut into chunks at line starts and each chunk goes through
// the cache on its own.
//
// Where it is exact: a position p with text[p-1] == '\n' and text[p] an ASCII letter is a word
// boundary of the pre-tokenizer in every context, for the GPT-2, Llama-3/Qwen2 and o200k
// patterns: no alternative of theirs matches a newline followed by a letter (the optional lead
// character before a letter run excludes \r and \n; the punctuation and whitespace runs stop
// before a letter), and a regex scan that reaches p on a match boundary scans the rest as it
// would a text starting at p (the patterns look ahead, never behind). The normalizer must be
// none or NFC (neither composes an ASCII letter with what precedes it, nor changes '\n' or a
// letter); ByteLevel must not add a prefix space; no added token may match only after
// normalization. The model works word by word. So the ids of the text are the ids of its
// chunks, concatenated; TestLineChunksExact and FuzzLineChunks hold the code to that.

// minChunk is the least length of a chunk: a cut is made at the first line start at least
// minChunk bytes after the previous cut. Cuts depend only on the text since the last cut, so
// two texts sharing a long passage cut it at the same places from its first line start that
// follows a line of at least minChunk bytes.
const minChunk = 256

// maxHeader is the longest first line cut off on its own, whatever the segment's length: a
// chat template's role header ("assistant\n"), so that a message's text is a chunk of its own
// and hits what encoding it elsewhere (a response counted when it was generated, the same
// document in another prompt) left in the cache.
const maxHeader = 32

// lineChunkable reports whether a tokenizer with this normalizer, pre-tokenizer (after
// simplifyPre) and added tokens encodes text chunked at line starts exactly as whole.
func lineChunkable(normalizer json.RawMessage, pre preTokenizer, normMatch *addedMatcher) bool {
	if !isNull(normalizer) {
		var c componentJSON
		if json.Unmarshal(normalizer, &c) != nil || c.Type != "NFC" {
			return false
		}
	}
	if !normMatch.empty() {
		return false
	}
	switch p := pre.(type) {
	case *splitPre:
		// The matches are the words: isolated, or the text between them removed (the
		// patterns match every character, so nothing is).
		if !(p.behavior == behIsolated && !p.invert) && !(p.behavior == behRemoved && p.invert) {
			return false
		}
		switch p.m.(type) {
		case llamaMatcher, gpt4oMatcher, gpt2Matcher:
			return true
		}
	case *byteLevelPre:
		return p.useRegex && !p.addPrefixSpace
	}
	return false
}

// nextCut returns the end of the chunk of s that starts at 0: the first line start at or after
// minChunk, or len(s).
func nextCut(s string) int {
	for i := minChunk; i < len(s); {
		k := strings.IndexByte(s[i-1:], '\n')
		if k < 0 {
			break
		}
		p := i + k // the byte after the newline
		if p < len(s) && isASCIILetter(s[p]) {
			return p
		}
		i = p + 1
	}
	return len(s)
}

// headerCut returns the end of s's first line when that line is at most maxHeader bytes and
// the next starts with an ASCII letter (so a cut there is exact), else 0.
func headerCut(s string) int {
	k := strings.IndexByte(s[:min(len(s), maxHeader)], '\n')
	if k < 0 || k+1 >= len(s) || !isASCIILetter(s[k+1]) {
		return 0
	}
	return k + 1
}

// keyFirst is the first flag of a cache key: whether a segment starts the input changes its
// ids only for tokenizers that prepend something there, and line-chunked ones never do, so
// for them a text has one entry wherever it came from.
func (t *HF) keyFirst(first bool) bool { return first && !t.lineChunks }

// encodeChunks appends the ids of segment sg (which the cache missed) chunk by chunk, each
// chunk through the cache: a short header line first (see maxHeader), then chunks of at least
// minChunk bytes.
func (t *HF) encodeChunks(dst []int, sg segment, sc *scratch, cache *segmentCache) []int {
	s := sg.text
	header := headerCut(s)
	for off := 0; off < len(s); {
		n := header
		if off > 0 || n == 0 {
			n = nextCut(s[off:])
		}
		ch := segment{text: s[off : off+n], id: -1, first: sg.first && off == 0}
		// A message body after its header is worth a lookup (it may have been encoded on
		// its own), not an entry of its own: the whole segment is stored by the caller, and a
		// body encoded on its own stores itself.
		body := header > 0 && off == header && off+n == len(s)
		off += n
		if len(ch.text) < minCachedSegment {
			dst = t.encodeSegment(dst, ch, sc)
			continue
		}
		if ids, ok := cache.get(segmentKey{text: ch.text, first: t.keyFirst(ch.first)}); ok {
			for _, id := range ids {
				dst = append(dst, int(id))
			}
			continue
		}
		start := len(dst)
		dst = t.encodeSegment(dst, ch, sc)
		if !body {
			cache.put(ch.text, t.keyFirst(ch.first), dst[start:])
		}
	}
	return dst
}
