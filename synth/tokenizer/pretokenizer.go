package tokenizer

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// word is one piece of pre-tokenized text.
type word struct {
	s string
	// first tells that the piece starts at offset 0 of the original input.
	first bool
}

// preTokenizer splits one piece into smaller ones, appending them to dst, as the crate's
// pre-tokenizers do through PreTokenizedString::split (empty pieces are dropped).
type preTokenizer interface {
	split(dst []word, w word, ms *[][2]int) []word
}

type preSequence []preTokenizer

// run applies the sequence to one piece using the two word buffers of sc, and returns a slice
// that lives in sc (valid until the next run).
func (q preSequence) run(w word, sc *scratch) []word {
	cur := append(sc.words[:0], w)
	for _, p := range q {
		next := sc.words2[:0]
		for _, c := range cur {
			next = p.split(next, c, &sc.ms)
		}
		sc.words, sc.words2 = next, cur
		cur = next
	}
	return cur
}

// simplifyPre flattens nested sequences and drops ByteLevel steps that neither add a space nor
// split (the byte mapping itself is the model's job here), so the hot path runs fewer stages.
func simplifyPre(p preTokenizer) preTokenizer {
	q, ok := p.(preSequence)
	if !ok {
		if b, isBL := p.(*byteLevelPre); isBL && !b.addPrefixSpace && !b.useRegex {
			return nil
		}
		return p
	}
	var flat preSequence
	for _, c := range q {
		if c = simplifyPre(c); c == nil {
			continue
		}
		if inner, ok := c.(preSequence); ok {
			flat = append(flat, inner...)
		} else {
			flat = append(flat, c)
		}
	}
	switch len(flat) {
	case 0:
		return nil
	case 1:
		return flat[0]
	}
	return flat
}

func (q preSequence) split(dst []word, w word, ms *[][2]int) []word {
	cur := []word{w}
	for _, p := range q {
		var next []word
		for _, c := range cur {
			next = p.split(next, c, ms)
		}
		cur = next
	}
	return append(dst, cur...)
}

// Split behaviours of the crate's SplitDelimiterBehavior.
const (
	behRemoved = iota
	behIsolated
	behMergedWithPrevious
	behMergedWithNext
	behContiguous
)

var behaviors = map[string]int{
	"Removed": behRemoved, "Isolated": behIsolated, "MergedWithPrevious": behMergedWithPrevious,
	"MergedWithNext": behMergedWithNext, "Contiguous": behContiguous,
}

// splitPre is the Split pre-tokenizer (and the base of Digits, Metaspace's split, Whitespace).
type splitPre struct {
	m        matcher
	behavior int
	invert   bool
}

type span struct {
	a, b  int
	match bool
}

func (p *splitPre) split(dst []word, w word, ms *[][2]int) []word {
	if w.s == "" {
		return dst
	}
	*ms = p.m.appendMatches((*ms)[:0], w.s)
	emit := func(a, b int) {
		if b > a {
			dst = append(dst, word{s: w.s[a:b], first: w.first && a == 0})
		}
	}
	if p.behavior == behIsolated {
		// Every piece is kept, matches and the gaps between them alike.
		prev := 0
		for _, r := range *ms {
			emit(prev, r[0])
			emit(r[0], r[1])
			prev = r[1]
		}
		emit(prev, len(w.s))
		return dst
	}
	for _, sp := range mergeSpans(matchSpans(*ms, len(w.s), p.invert), p.behavior) {
		emit(sp.a, sp.b)
	}
	return dst
}

// matchSpans is the crate's find_matches: the gaps and matches of a word n bytes long in order,
// each flagged as a match (the other way round when invert).
func matchSpans(ms [][2]int, n int, invert bool) []span {
	var spans []span
	prev := 0
	for _, r := range ms {
		if prev != r[0] {
			spans = append(spans, span{prev, r[0], invert})
		}
		spans = append(spans, span{r[0], r[1], !invert})
		prev = r[1]
	}
	if prev != n {
		spans = append(spans, span{prev, n, invert})
	}
	return spans
}

// mergeSpans applies a split behavior other than Isolated to the spans, returning the pieces
// kept, in order: Removed drops the matches, Contiguous joins runs of like spans, and the
// Merged behaviors join each match to the piece before or after it.
func mergeSpans(spans []span, behavior int) []span {
	var out []span
	prevMatch := false
	switch behavior {
	case behRemoved:
		for _, sp := range spans {
			if !sp.match {
				out = append(out, sp)
			}
		}
	case behContiguous:
		for _, sp := range spans {
			if sp.match == prevMatch && len(out) > 0 {
				out[len(out)-1].b = sp.b
			} else {
				out = append(out, sp)
			}
			prevMatch = sp.match
		}
	case behMergedWithPrevious:
		for _, sp := range spans {
			if sp.match && !prevMatch && len(out) > 0 {
				out[len(out)-1].b = sp.b
			} else {
				out = append(out, sp)
			}
			prevMatch = sp.match
		}
	case behMergedWithNext:
		for i := len(spans) - 1; i >= 0; i-- {
			sp := spans[i]
			if sp.match && !prevMatch && len(out) > 0 {
				out[len(out)-1].a = sp.a
			} else {
				out = append(out, sp)
			}
			prevMatch = sp.match
		}
		slices.Reverse(out)
	}
	return out
}

// byteLevelPre is the ByteLevel pre-tokenizer. The byte-to-rune mapping itself is left to the
// model (words stay raw bytes, see bpe.rawVocab), so this only adds the prefix space and splits.
type byteLevelPre struct {
	addPrefixSpace bool
	useRegex       bool
}

func (p *byteLevelPre) split(dst []word, w word, ms *[][2]int) []word {
	if w.s == "" {
		return dst
	}
	if p.addPrefixSpace && !strings.HasPrefix(w.s, " ") {
		w.s = " " + w.s
	}
	if !p.useRegex {
		return append(dst, w)
	}
	return (&splitPre{m: gpt2Matcher{}, behavior: behIsolated}).split(dst, w, ms)
}

// metaspacePre replaces spaces with the replacement rune (▁), prepends one as the scheme says,
// and optionally splits before each replacement rune.
type metaspacePre struct {
	replacement string
	scheme      string // always, first, never
	splitOn     bool
}

func (p *metaspacePre) splitWord(dst []word, w word, ms *[][2]int) []word {
	if w.s == "" {
		return dst
	}
	s := replaceAll(w.s, " ", p.replacement)
	switch p.scheme {
	case "always":
		if !strings.HasPrefix(s, p.replacement) {
			s = p.replacement + s
		}
	case "first":
		if !strings.HasPrefix(s, p.replacement) && w.first {
			s = p.replacement + s
		}
	}
	w.s = s
	if !p.splitOn {
		return append(dst, w)
	}
	return (&splitPre{m: literalMatcher{p.replacement}, behavior: behMergedWithNext}).split(dst, w, ms)
}

func (p *metaspacePre) split(dst []word, w word, ms *[][2]int) []word { return p.splitWord(dst, w, ms) }

// whitespaceSplitPre splits on whitespace, dropping it (WhitespaceSplit).
type whitespaceSplitPre struct{}

func (whitespaceSplitPre) split(dst []word, w word, _ *[][2]int) []word {
	i := 0
	for i < len(w.s) {
		r, n := runeAt(w.s, i)
		if class(r)&clsWS != 0 {
			i += n
			continue
		}
		j := spanNotClass(w.s, i, clsWS)
		dst = append(dst, word{s: w.s[i:j], first: w.first && i == 0})
		i = j
	}
	return dst
}

// wordRunMatcher matches \w+|[^\w\s]+ (the Whitespace pre-tokenizer).
type wordRunMatcher struct{}

func isWordRune(r rune) bool { return r == '_' || class(r)&(clsL|clsN|clsM) != 0 }

func (m wordRunMatcher) appendMatches(dst [][2]int, s string) [][2]int { return scanMatches(m, dst, s) }

func (wordRunMatcher) matchAt(s string, i int) int {
	r, _ := runeAt(s, i)
	word := isWordRune(r)
	if !word && class(r)&clsWS != 0 {
		return -1
	}
	j := i
	for j < len(s) {
		r, n := runeAt(s, j)
		if isWordRune(r) != word || (!word && class(r)&clsWS != 0) {
			break
		}
		j += n
	}
	return j
}

func parsePreTokenizer(raw json.RawMessage, where string) (preTokenizer, error) {
	if isNull(raw) {
		return nil, nil
	}
	var c componentJSON
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	switch c.Type {
	case "Sequence":
		var q preSequence
		for i, r := range c.Pretokenizers {
			p, err := parsePreTokenizer(r, fmt.Sprintf("%s.pretokenizers[%d]", where, i))
			if err != nil {
				return nil, err
			}
			if p != nil {
				q = append(q, p)
			}
		}
		return q, nil
	case "Split":
		return parseSplit(c, where)
	case "ByteLevel":
		return &byteLevelPre{
			addPrefixSpace: c.AddPrefixSpace == nil || *c.AddPrefixSpace,
			useRegex:       c.UseRegex == nil || *c.UseRegex,
		}, nil
	case "Metaspace":
		return parseMetaspace(c, where)
	case "Digits":
		b := behContiguous
		if c.IndividualDigits {
			b = behIsolated
		}
		max := 0
		if c.IndividualDigits {
			max = 1
		}
		return &splitPre{m: runMatcher{in: func(r rune) bool { return class(r)&clsN != 0 }, max: max}, behavior: b}, nil
	case "WhitespaceSplit":
		return whitespaceSplitPre{}, nil
	case "Whitespace":
		return &splitPre{m: wordRunMatcher{}, behavior: behRemoved, invert: true}, nil
	case "":
		return nil, fmt.Errorf("%s: missing \"type\"", where)
	}
	return nil, fmt.Errorf("%s: unsupported type %q", where, c.Type)
}

// parseSplit is the Split pre-tokenizer: a behavior and a literal or regex pattern, each
// checked, since a wrong one would split every prompt differently from the server.
func parseSplit(c componentJSON, where string) (preTokenizer, error) {
	b, ok := behaviors[c.Behavior]
	if !ok {
		return nil, fmt.Errorf("%s: unsupported behavior %q", where, c.Behavior)
	}
	if c.Pattern == nil {
		return nil, fmt.Errorf("%s: Split has no \"pattern\"", where)
	}
	var m matcher
	switch {
	case c.Pattern.String != nil:
		if *c.Pattern.String == "" {
			return nil, fmt.Errorf("%s: Split pattern is empty", where)
		}
		m = literalMatcher{*c.Pattern.String}
	case c.Pattern.Regex != nil:
		var err error
		if m, err = compilePattern(*c.Pattern.Regex); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
	default:
		return nil, fmt.Errorf("%s: Split pattern needs \"String\" or \"Regex\"", where)
	}
	return &splitPre{m: m, behavior: b, invert: c.Invert}, nil
}

// parseMetaspace is the Metaspace pre-tokenizer, whose prepend scheme comes from either of two
// fields (prepend_scheme, or the older add_prefix_space).
func parseMetaspace(c componentJSON, where string) (preTokenizer, error) {
	p := &metaspacePre{replacement: "▁", scheme: "always", splitOn: c.Split == nil || *c.Split}
	if c.Replacement != nil {
		if utf8.RuneCountInString(*c.Replacement) != 1 {
			return nil, fmt.Errorf("%s: Metaspace replacement %q is not one character", where, *c.Replacement)
		}
		p.replacement = *c.Replacement
	}
	switch {
	case c.PrependScheme != nil:
		p.scheme = *c.PrependScheme
		if p.scheme != "always" && p.scheme != "first" && p.scheme != "never" {
			return nil, fmt.Errorf("%s: unsupported prepend_scheme %q", where, p.scheme)
		}
	case c.AddPrefixSpace != nil && !*c.AddPrefixSpace:
		p.scheme = "never"
	}
	return p, nil
}
