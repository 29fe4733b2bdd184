//go:build ignore

// Command gencorpus writes the golden-test corpus for synth/tokenizer: one {"text": ...} JSON
// object per line. Hand-written prose and code come from prose.txt and code.txt beside this file;
// everything else (whitespace runs, special-token literals, emoji, random Unicode, ...) is
// generated from a fixed seed, so the same binary input always gives the same corpus.
//
//	go run synth/tokenizer/testdata/gencorpus/main.go [-in DIR] [-out FILE]
//
// Per-category counts go to stderr. Texts are valid UTF-8 without surrogates (the reference reads
// them through JavaScript), and exact duplicates are dropped, keeping the first.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

type corpus struct {
	texts []string
	cats  []string
	seen  map[string]bool
	count map[string]int
	rng   *rand.Rand
}

func (c *corpus) add(cat, s string) {
	if !utf8.ValidString(s) {
		panic(fmt.Sprintf("invalid UTF-8 in %s: %q", cat, s))
	}
	for _, r := range s {
		if r >= 0xD800 && r <= 0xDFFF {
			panic(fmt.Sprintf("surrogate in %s", cat))
		}
	}
	if c.seen[s] {
		return
	}
	c.seen[s] = true
	c.texts = append(c.texts, s)
	c.cats = append(c.cats, cat)
	c.count[cat]++
}

func (c *corpus) pick(xs []string) string { return xs[c.rng.IntN(len(xs))] }

type block struct {
	cat  string
	tabs bool
	text string
}

// readBlocks parses a samples file: "=== category [tabs]" starts a category, "---" separates
// samples inside it. With "tabs", each leading group of four spaces becomes a tab.
func readBlocks(path string) []block {
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var out []block
	var cur []string
	cat, tabs := "", false
	flush := func() {
		if cat != "" && len(cur) > 0 {
			t := strings.Trim(strings.Join(cur, "\n"), "\n")
			if tabs {
				t = spacesToTabs(t)
			}
			if t != "" {
				out = append(out, block{cat, tabs, t})
			}
		}
		cur = nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "=== "):
			flush()
			f := strings.Fields(line[4:])
			cat, tabs = f[0], len(f) > 1 && f[1] == "tabs"
		case line == "---":
			flush()
		default:
			cur = append(cur, line)
		}
	}
	flush()
	return out
}

func spacesToTabs(t string) string {
	lines := strings.Split(t, "\n")
	for i, l := range lines {
		n := 0
		for strings.HasPrefix(l[n*4:], "    ") {
			n++
		}
		lines[i] = strings.Repeat("\t", n) + l[n*4:]
	}
	return strings.Join(lines, "\n")
}

func tabsToSpaces(t string, width int) string {
	lines := strings.Split(t, "\n")
	for i, l := range lines {
		n := len(l) - len(strings.TrimLeft(l, "\t"))
		lines[i] = strings.Repeat(" ", n*width) + l[n:]
	}
	return strings.Join(lines, "\n")
}

func reindent(t string, from, to int) string {
	lines := strings.Split(t, "\n")
	for i, l := range lines {
		n := len(l) - len(strings.TrimLeft(l, " "))
		lines[i] = strings.Repeat(" ", n/from*to+n%from) + l[n:]
	}
	return strings.Join(lines, "\n")
}

// sentences splits prose after sentence-ending punctuation of several scripts.
func sentences(t string) []string {
	var out []string
	start := 0
	rs := []rune(t)
	for i, r := range rs {
		if strings.ContainsRune(".!?。！？।።။។۔׃", r) && (i+1 == len(rs) || rs[i+1] == ' ' || r > 0x7f) {
			s := strings.TrimSpace(string(rs[start : i+1]))
			if s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(string(rs[start:])); s != "" {
		out = append(out, s)
	}
	return out
}

func wrap(t string, width int, nl string) string {
	var b strings.Builder
	col := 0
	for i, w := range strings.Fields(t) {
		if i > 0 {
			if col+1+utf8.RuneCountInString(w) > width {
				b.WriteString(nl)
				col = 0
			} else {
				b.WriteByte(' ')
				col++
			}
		}
		b.WriteString(w)
		col += utf8.RuneCountInString(w)
	}
	return b.String()
}

func main() {
	in := flag.String("in", "", "folder holding prose.txt and code.txt (default: beside the output's gencorpus/)")
	out := flag.String("out", "synth/tokenizer/testdata/corpus.jsonl", "corpus file to write")
	flag.Parse()
	if *in == "" {
		*in = filepath.Join(filepath.Dir(*out), "gencorpus")
	}
	c := &corpus{seen: map[string]bool{}, count: map[string]int{}, rng: rand.New(rand.NewPCG(20260501, 2))}

	prose := readBlocks(filepath.Join(*in, "prose.txt"))
	code := readBlocks(filepath.Join(*in, "code.txt"))
	genProse(c, prose)
	genCode(c, code)
	genJSON(c)
	genMath(c)
	genEmoji(c)
	genWhitespace(c)
	genCRLF(c)
	genSpecial(c)
	genContractions(c)
	genDigits(c)
	genURLs(c)
	genNormalization(c, prose)
	genOddSpaces(c)
	genNewUnicode(c)
	genRandomUnicode(c)
	genEdge(c)
	genFuzz(c)
	genSweep(c)
	genBlobs(c)
	genNFC16(c)
	genNormTables(c)
	genLong(c, prose, code)

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, t := range c.texts {
		if err := enc.Encode(struct {
			Text string `json:"text"`
		}{t}); err != nil {
			panic(err)
		}
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var cats []string
	for k := range c.count {
		cats = append(cats, k)
	}
	sort.Strings(cats)
	w := bufio.NewWriter(os.Stderr)
	for _, k := range cats {
		fmt.Fprintf(w, "%-22s %5d\n", k, c.count[k])
	}
	fmt.Fprintf(w, "%-22s %5d lines, %d bytes -> %s\n", "total", len(c.texts), buf.Len(), *out)
	w.Flush()
}

func genProse(c *corpus, blocks []block) {
	byLang := map[string][]string{}
	var langs []string
	for _, b := range blocks {
		if !strings.HasPrefix(b.cat, "prose") {
			continue
		}
		if _, ok := byLang[b.cat]; !ok {
			langs = append(langs, b.cat)
		}
		byLang[b.cat] = append(byLang[b.cat], b.text)
		c.add(b.cat, b.text)
		ss := sentences(b.text)
		for i, s := range ss {
			if len(ss) > 1 {
				c.add(b.cat, s)
			}
			switch i % 4 {
			case 0:
				c.add(b.cat, " "+s)
			case 1:
				c.add(b.cat, s+"\n")
			case 2:
				c.add(b.cat, strings.ToUpper(s))
			case 3:
				c.add(b.cat, strings.ToLower(s))
			}
		}
		c.add(b.cat, wrap(b.text, 40, "\n"))
		c.add(b.cat, "  "+wrap(b.text, 60, "\n  "))
		c.add(b.cat, strings.ToUpper(b.text))
	}
	for _, l := range langs {
		c.add(l, strings.Join(byLang[l], "\n\n"))
		c.add(l, strings.Join(byLang[l], " "))
	}
	// Random sentence mixes across languages.
	var all []string
	for _, l := range langs {
		for _, p := range byLang[l] {
			all = append(all, sentences(p)...)
		}
	}
	for range 40 {
		n := 2 + c.rng.IntN(4)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = c.pick(all)
		}
		sep := c.pick([]string{" ", "\n", "\n\n", "  ", "\t", " — "})
		c.add("prose:mixed", strings.Join(parts, sep))
	}
}

func genCode(c *corpus, blocks []block) {
	for _, b := range blocks {
		if !strings.HasPrefix(b.cat, "code") {
			continue
		}
		c.add(b.cat, b.text)
		c.add(b.cat, b.text+"\n")
		if b.tabs {
			c.add(b.cat, tabsToSpaces(b.text, 4))
			c.add(b.cat, tabsToSpaces(b.text, 8))
		} else {
			c.add(b.cat, spacesToTabs(reindent(b.text, 2, 4)))
			c.add(b.cat, reindent(b.text, 2, 3))
		}
		c.add(b.cat, strings.ReplaceAll(b.text, "\n", "\r\n"))
		lang := strings.TrimPrefix(b.cat, "code:")
		c.add(b.cat, "```"+lang+"\n"+b.text+"\n```")
		c.add(b.cat, "Here is the code:\n\n```"+lang+"\n"+b.text+"\n```\n\nIt should work.")
		lines := strings.Split(b.text, "\n")
		for i, l := range lines {
			if strings.TrimSpace(l) == "" {
				continue
			}
			c.add(b.cat, l)
			if i%3 == 0 {
				c.add(b.cat, l+"   ")
			}
			if i+1 < len(lines) && i%2 == 0 {
				c.add(b.cat, l+"\n"+lines[i+1])
			}
		}
	}
	for _, b := range blocks {
		if b.cat == "json" || b.cat == "math" {
			c.add(b.cat, b.text)
			c.add(b.cat, " "+b.text)
			for _, l := range strings.Split(b.text, "\n") {
				if strings.TrimSpace(l) != "" {
					c.add(b.cat, l)
				}
			}
		}
	}
}

var words = []string{"id", "name", "value", "items", "user", "prompt", "tokens", "model", "temperature",
	"top_p", "stream", "messages", "role", "content", "données", "名前", "ключ", "αξία", "emoji😀", "key with spaces",
	"quote\"inside", "back\\slash", "tab\there", "new\nline", "", "x", "created_at", "isActive", "_private", "$ref"}

var strs = []string{"hello", "Hello, World!", "", " ", "naïve café", "日本語のテキスト", "Привет", "مرحبا بالعالم",
	"line1\nline2", "tab\tsep", "\"quoted\"", "C:\\Users\\me", "https://example.com/a?b=c&d=e", "😀👍🏽",
	"<|endoftext|>", "it's", "1e-7", "true", "null", "   padded   ", "\u00a0nbsp", "x\u200by"}

func genValue(c *corpus, depth int) any {
	k := c.rng.IntN(10)
	if depth > 3 {
		k = c.rng.IntN(6)
	}
	switch k {
	case 0:
		return c.pick(strs)
	case 1:
		return c.rng.IntN(1000000) - 500000
	case 2:
		return json.Number(strconv.FormatFloat((c.rng.Float64()-0.5)*math10(c.rng.IntN(12)-4), 'g', -1, 64))
	case 3:
		return c.rng.IntN(2) == 0
	case 4:
		return nil
	case 5:
		return c.pick(strs) + " " + c.pick(strs)
	case 6, 7:
		n := c.rng.IntN(5)
		arr := make([]any, n)
		for i := range arr {
			arr[i] = genValue(c, depth+1)
		}
		return arr
	default:
		n := 1 + c.rng.IntN(5)
		var obj [][2]any
		for range n {
			obj = append(obj, [2]any{c.pick(words), genValue(c, depth+1)})
		}
		return obj
	}
}

func math10(e int) float64 {
	f := 1.0
	for ; e > 0; e-- {
		f *= 10
	}
	for ; e < 0; e++ {
		f /= 10
	}
	return f
}

// writeJSON serializes v with the given indent ("" = compact; "sp" = compact with spaces after
// separators) and, when ascii is set, escapes everything outside ASCII as \uXXXX (as Python does).
func writeJSON(b *strings.Builder, v any, indent string, level int, ascii bool) {
	nl := func(l int) {
		if indent != "" && indent != "sp" {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(indent, l))
		}
	}
	comma, colon := ",", ":"
	if indent != "" {
		colon = ": "
		if indent == "sp" {
			comma = ", "
		}
	}
	switch x := v.(type) {
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(comma)
			}
			nl(level + 1)
			writeJSON(b, e, indent, level+1, ascii)
		}
		if len(x) > 0 {
			nl(level)
		}
		b.WriteByte(']')
	case [][2]any:
		b.WriteByte('{')
		for i, kv := range x {
			if i > 0 {
				b.WriteString(comma)
			}
			nl(level + 1)
			writeJSON(b, kv[0], indent, level+1, ascii)
			b.WriteString(colon)
			writeJSON(b, kv[1], indent, level+1, ascii)
		}
		if len(x) > 0 {
			nl(level)
		}
		b.WriteByte('}')
	case string:
		j, _ := json.Marshal(x)
		s := string(j)
		if ascii {
			var e strings.Builder
			for _, r := range s {
				switch {
				case r < 0x80:
					e.WriteRune(r)
				case r > 0xFFFF:
					r -= 0x10000
					fmt.Fprintf(&e, "\\u%04x\\u%04x", 0xD800+(r>>10), 0xDC00+(r&0x3FF))
				default:
					fmt.Fprintf(&e, "\\u%04x", r)
				}
			}
			s = e.String()
		}
		b.WriteString(s)
	default:
		j, _ := json.Marshal(x)
		b.Write(j)
	}
}

func genJSON(c *corpus) {
	for i := range 140 {
		v := genValue(c, 0)
		if i%2 == 0 {
			v = [][2]any{{"id", i}, {"data", v}}
		}
		var b strings.Builder
		writeJSON(&b, v, []string{"", "sp", "  ", "    ", "\t"}[i%5], 0, i%7 == 3)
		c.add("json", b.String())
	}
}

func genMath(c *corpus) {
	cmds := []string{`\alpha`, `\beta`, `\gamma`, `\Delta`, `\sum_{i=1}^{n}`, `\int_0^1`, `\frac{a}{b}`,
		`\sqrt{x}`, `\cdot`, `\times`, `\leq`, `\geq`, `\infty`, `\partial`, `\nabla`, `\mathbb{R}`,
		`\mathcal{O}(n \log n)`, `x^{2}`, `y_{i,j}`, `\left(`, `\right)`, `\{`, `\}`, `\|v\|_2`, `\hat{\theta}`,
		`\operatorname{argmax}`, `\binom{n}{k}`, `e^{i\pi}`, `+`, `-`, `=`, `1`, `2`, `42`, `3.14159`}
	uni := []rune("∀∃∄∅∆∇∈∉∋∏∑−∓∔∕∗∘∙√∛∜∝∞∟∠∡∢∣∤∥∦∧∨∩∪∫∬∭∮∯∰∴∵∶∷∸∹∺∻∼∽≀≁≂≃≄≅≈≉≠≡≢≤≥≦≧≪≫⊂⊃⊄⊅⊆⊇⊕⊖⊗⊘⊙⊢⊣⊤⊥⋀⋁⋂⋃⌈⌉⌊⌋⟨⟩⟦⟧⟹⟺ℕℤℚℝℂℵℏℓ℘ℑℜ⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎½⅓⅔¼¾⅕⅛πστφψωΩαβγδεζηθλμξ")
	for i := range 60 {
		n := 3 + c.rng.IntN(12)
		var b strings.Builder
		if i%2 == 0 {
			b.WriteString("$")
			for j := range n {
				if j > 0 && c.rng.IntN(2) == 0 {
					b.WriteByte(' ')
				}
				b.WriteString(c.pick(cmds))
			}
			b.WriteString("$")
		} else {
			for range n {
				b.WriteRune(uni[c.rng.IntN(len(uni))])
				if c.rng.IntN(3) == 0 {
					b.WriteString(c.pick([]string{" ", "x", "1", "(", ")", " = ", "n"}))
				}
			}
		}
		c.add("math", b.String())
	}
	// Mathematical alphanumeric symbols, plane 1.
	for range 20 {
		var b strings.Builder
		for range 1 + c.rng.IntN(20) {
			b.WriteRune(rune(0x1D400 + c.rng.IntN(0x1D7FF-0x1D400+1)))
		}
		c.add("math", b.String())
	}
}

func genEmoji(c *corpus) {
	base := []string{"😀", "😂", "🥲", "😍", "🤔", "🙃", "👍", "👋", "🙏", "💪", "🎉", "🔥", "✨", "❤", "❤️", "☺", "☺️",
		"⭐", "🌍", "🚀", "🐍", "🦀", "🐹", "☕", "🍕", "🧠", "🤖", "👀", "💯", "✅", "❌", "⚠️", "©️", "®", "™️"}
	zwj := []string{"👨‍👩‍👧‍👦", "👩‍💻", "👩🏽‍💻", "🧑🏿‍🤝‍🧑🏻", "🏳️‍🌈", "🏳️‍⚧️", "🏴‍☠️", "❤️‍🔥", "❤️‍🩹", "🐻‍❄️", "🐈‍⬛",
		"👁️‍🗨️", "🧔🏻‍♀️", "🏃🏾‍♂️", "👩‍❤️‍💋‍👨", "👨‍👨‍👧", "🧑‍🚀", "😶‍🌫️", "🫱🏼‍🫲🏿", "🙂‍↔️", "🐦‍🔥", "🍋‍🟩"}
	flags := []string{"🇺🇸", "🇯🇵", "🇩🇪", "🇫🇷", "🇧🇷", "🇮🇳", "🇨🇳", "🇰🇷", "🇪🇺", "🇺🇳", "🇬🇪", "🇹🇭", "🏴󠁧󠁢󠁥󠁮󠁧󠁿", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "🏁", "🚩"}
	keycaps := []string{"#️⃣", "*️⃣", "0️⃣", "1️⃣", "2️⃣", "3️⃣", "9️⃣", "🔟", "1⃣", "#⃣"}
	tones := []rune{0x1F3FB, 0x1F3FC, 0x1F3FD, 0x1F3FE, 0x1F3FF}
	toneable := []string{"👋", "👍", "🤙", "🧑", "👩", "👶", "🙌", "✋", "✌", "👮"}
	for _, set := range [][]string{base, zwj, flags, keycaps} {
		for _, e := range set {
			c.add("emoji", e)
		}
		c.add("emoji", strings.Join(set, ""))
		c.add("emoji", strings.Join(set, " "))
	}
	for _, t := range toneable {
		for _, tn := range tones {
			c.add("emoji", t+string(tn))
		}
	}
	all := append(append(append(append([]string{}, base...), zwj...), flags...), keycaps...)
	texts := []string{"Great job", "see you tomorrow", "it's done", "ok", "LGTM", "félicitations", "おめでとう", "поздравляю", "123"}
	for range 60 {
		var b strings.Builder
		for range 1 + c.rng.IntN(6) {
			switch c.rng.IntN(4) {
			case 0:
				b.WriteString(c.pick(texts))
			case 1:
				b.WriteString(" ")
			case 2:
				b.WriteString(c.pick(all))
			default:
				b.WriteString(c.pick(toneable) + string(tones[c.rng.IntN(5)]))
			}
		}
		c.add("emoji", b.String())
	}
	// Random regional-indicator runs (valid and invalid flag pairs, odd counts).
	for n := 1; n <= 7; n++ {
		var b strings.Builder
		for range n {
			b.WriteRune(rune(0x1F1E6 + c.rng.IntN(26)))
		}
		c.add("emoji", b.String())
	}
	c.add("emoji", "text\uFE0E vs emoji\uFE0F: ☺\uFE0E ☺\uFE0F ✈\uFE0E ✈\uFE0F ↔\uFE0F")
	c.add("emoji", strings.Repeat("😀", 50))
	c.add("emoji", strings.Repeat("👨‍👩‍👧‍👦", 10))
}

func genWhitespace(c *corpus) {
	sp := strings.Repeat
	for n := 1; n <= 40; n++ {
		c.add("whitespace", sp(" ", n))
		c.add("whitespace", "a"+sp(" ", n)+"b")
		c.add("whitespace", sp(" ", n)+"word")
		c.add("whitespace", "word"+sp(" ", n))
		c.add("whitespace", "x ="+sp(" ", n)+"1;"+sp(" ", n))
		if n <= 24 {
			c.add("whitespace", sp("\t", n))
			c.add("whitespace", "a"+sp("\t", n)+"b")
			c.add("whitespace", sp("\t", n)+"if x {")
			c.add("whitespace", "end"+sp("\t", n))
		}
		if n <= 32 {
			c.add("newlines", sp("\n", n))
			c.add("newlines", "a"+sp("\n", n)+"b")
			c.add("newlines", sp("\n", n)+"start")
			c.add("newlines", "end."+sp("\n", n))
			c.add("newlines", "para one."+sp("\n", n)+sp(" ", n%9)+"para two.")
		}
	}
	for _, n := range []int{64, 100, 128, 200, 256, 1000} {
		c.add("whitespace", sp(" ", n))
		c.add("whitespace", "a"+sp(" ", n)+"b")
		c.add("newlines", sp("\n", n))
	}
	c.add("whitespace", sp("\t", 100))
	pieces := []string{" ", " ", " ", "\t", "\n", "  ", "\n\n", " \n", "\t\n", "\n\t", "\n "}
	for range 80 {
		var b strings.Builder
		for range 1 + c.rng.IntN(6) {
			b.WriteString(c.pick([]string{"word", "x", "42", "Ünïcödé", "字", "def f():", "}", "-", "'s"}))
			for range 1 + c.rng.IntN(8) {
				b.WriteString(c.pick(pieces))
			}
		}
		c.add("whitespace", b.String())
	}
	for _, s := range []string{" \n", "\n ", " \n ", "\t \t", " \t \t ", "\n\t\n", "a \nb", "a\n b", "a \n b", "a  \n\n  b",
		"  leading", "trailing  ", " a ", "a\u0020\u0020", "\v", "\f", "a\vb", "a\fb", "\v\f\t \n"} {
		c.add("whitespace", s)
	}
}

func genCRLF(c *corpus) {
	for n := 1; n <= 12; n++ {
		c.add("crlf", strings.Repeat("\r\n", n))
		c.add("crlf", "a"+strings.Repeat("\r\n", n)+"b")
		c.add("crlf", strings.Repeat("\r", n))
		c.add("crlf", "a"+strings.Repeat("\r", n)+"b")
	}
	for _, s := range []string{"\r", "\r\n", "\n\r", "\r\r\n", "\r\n\r", "\n\r\n", "line1\r\nline2\r\nline3\r\n",
		"line1\rline2\rline3", "mixed\r\nendings\nhere\rand\r\n\r\nthere", "tab\t\r\n", " \r\n", "\r\n ", "  \r\n  x",
		"12\r34", "ab\rcd", "'s\r\n", "\r'll", "word\r", "\rword", "x = 1;\r\n\ty = 2;\r\n", "<|eot_id|>\r\n", "\r\n\r\n\r\nend",
		"Hello,\r\nWorld!\r\n", "你好\r\n世界", "😀\r😀", "\r\n\t\r\n\t\t", "a \r b", "a\r \nb"} {
		c.add("crlf", s)
	}
}

// specials holds the special-token literals of the eight golden tokenizers, plus lookalikes.
var specials = []string{
	"<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "<|eom_id|>",
	"<|python_tag|>", "<|finetune_right_pad_id|>", "<|reserved_special_token_0|>", "<|reserved_special_token_247|>",
	"<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|object_ref_start|>", "<|vision_start|>", "<|image_pad|>",
	"<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|repo_name|>", "<|file_sep|>",
	"<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>",
	"<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", "<｜User｜>", "<｜Assistant｜>", "<｜▁pad▁｜>", "<|EOT|>",
	"<｜fim▁hole｜>", "<｜fim▁begin｜>", "<｜fim▁end｜>", "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>",
	"<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>", "<｜tool▁outputs▁begin｜>", "<｜place▁holder▁no▁0｜>",
	"<|start|>", "<|end|>", "<|message|>", "<|channel|>", "<|return|>", "<|call|>", "<|constrain|>", "<|startoftext|>",
	"<|endofprompt|>",
	"<s>", "</s>", "<unk>", "[INST]", "[/INST]",
	"<bos>", "<eos>", "<pad>", "<mask>", "<start_of_turn>", "<end_of_turn>", "[multimodal]", "<start_of_image>",
	"<end_of_image>", "<unused0>", "<unused99>", "<h1>", "</h1>", "<table>", "</td>", "<sup>", "</sup>", "<br>",
}

func genSpecial(c *corpus) {
	for _, s := range specials {
		c.add("special", s)
		c.add("special", " "+s)
		c.add("special", s+" ")
		c.add("special", " "+s+" ")
		c.add("special", "word"+s+"word")
		c.add("special", "Hello "+s+" world")
		c.add("special", s+s)
		c.add("special", "\n"+s+"\n")
	}
	for i := range 80 {
		var b strings.Builder
		for range 2 + c.rng.IntN(6) {
			switch c.rng.IntN(3) {
			case 0:
				b.WriteString(c.pick(specials))
			case 1:
				b.WriteString(c.pick([]string{" ", "\n", "  ", "\t", ""}))
			default:
				b.WriteString(c.pick([]string{"user", "Hi!", "What's up?", "assistant", "答案是42。", "système", "<", ">", "|", "<|", "|>", "▁", "▁▁"}))
			}
		}
		_ = i
		c.add("special", b.String())
	}
	// Broken or near-miss literals.
	for _, s := range []string{"<|eot_id|", "<|eot_id", "|eot_id|>", "<| eot_id |>", "<|EOT_ID|>", "<<|eot_id|>>", "<|im_start|assistant",
		"<|im_start|>>", "<s", "s>", "< s>", "<S>", "<s><s></s></s>", "[INST ]", "[ INST]", "[INST][/INST]", "<bos", "<BOS>",
		"<｜begin of sentence｜>", "<|begin▁of▁sentence|>", "<think></think>", "<think>\n\n</think>\n\n", "▁<s>▁", "▁▁▁▁",
		"<unk><unk>", "<|endoftext|><|endoftext|><|endoftext|>", "<|endoftext|>x<|endoftext|>"} {
		c.add("special", s)
	}
	// Chat transcripts in each model's template.
	msgs := [][2]string{{"system", "You are a helpful assistant."}, {"user", "What's the capital of France?"},
		{"assistant", "The capital of France is Paris."}, {"user", "And of Japan? 日本の首都は？"}}
	var b strings.Builder
	b.WriteString("<|begin_of_text|>")
	for _, m := range msgs {
		fmt.Fprintf(&b, "<|start_header_id|>%s<|end_header_id|>\n\n%s<|eot_id|>", m[0], m[1])
	}
	b.WriteString("<|start_header_id|>assistant<|end_header_id|>\n\n")
	c.add("special", b.String())
	b.Reset()
	for _, m := range msgs {
		fmt.Fprintf(&b, "<|im_start|>%s\n%s<|im_end|>\n", m[0], m[1])
	}
	b.WriteString("<|im_start|>assistant\n<think>\n\n</think>\n\n")
	c.add("special", b.String())
	b.Reset()
	b.WriteString("<｜begin▁of▁sentence｜>" + msgs[0][1])
	for _, m := range msgs[1:] {
		if m[0] == "user" {
			b.WriteString("<｜User｜>" + m[1])
		} else {
			b.WriteString("<｜Assistant｜>" + m[1] + "<｜end▁of▁sentence｜>")
		}
	}
	b.WriteString("<｜Assistant｜><think>\n")
	c.add("special", b.String())
	b.Reset()
	for _, m := range msgs {
		fmt.Fprintf(&b, "<|start|>%s<|message|>%s<|end|>", m[0], m[1])
	}
	b.WriteString("<|start|>assistant<|channel|>analysis<|message|>Thinking...<|end|><|start|>assistant<|channel|>final<|message|>Tokyo.<|return|>")
	c.add("special", b.String())
	c.add("special", "<s>[INST] What's the capital of France? [/INST] Paris.</s>[INST] And Japan? [/INST]")
	b.Reset()
	b.WriteString("<bos>")
	for _, m := range msgs[1:] {
		role := m[0]
		if role == "assistant" {
			role = "model"
		}
		fmt.Fprintf(&b, "<start_of_turn>%s\n%s<end_of_turn>\n", role, m[1])
	}
	b.WriteString("<start_of_turn>model\n")
	c.add("special", b.String())
	c.add("special", "<|im_start|>user\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call><|im_end|>")
}

func genContractions(c *corpus) {
	suffixes := []string{"s", "t", "re", "ve", "m", "ll", "d"}
	bases := []string{"it", "don", "you", "I", "we", "they", "she", "Bob", "CAN", "x", "1990", "", " ", "‘", "’"}
	apos := []string{"'", "’", "ʼ", "＇"}
	// Every case pattern of every suffix.
	for _, suf := range suffixes {
		n := len(suf)
		for mask := 0; mask < 1<<n; mask++ {
			s := []byte(suf)
			for i := range s {
				if mask&(1<<i) != 0 {
					s[i] -= 'a' - 'A'
				}
			}
			c.add("contractions", "'"+string(s))
			c.add("contractions", c.pick(bases)+"'"+string(s)+" "+c.pick(bases))
			c.add("contractions", strings.ToUpper(c.pick(bases))+"'"+string(s))
		}
	}
	for _, a := range apos {
		for _, suf := range suffixes {
			c.add("contractions", "it"+a+suf+" and IT"+a+strings.ToUpper(suf))
		}
	}
	// Case-folding traps: long s (U+017F folds to s), Kelvin sign (U+212A folds to k),
	// ligatures, dotted/dotless i, fullwidth, Greek final sigma.
	for _, s := range []string{"'ſ", "it'ſ", "IT'ſ ok", "'ſt", "'ﬅ", "'ﬆ", "'Ŀl", "'ʟʟ", "'K", "'\u212A", "\u212Aelvin", "273 \u212A",
		"it'\u212Aeeps", "'ı", "'İ", "'ǅ", "'Ｓ", "'ｓ", "'ς", "'σ", "'ß", "'ẞ", "'ŝ", "'s\u0301", "'s\u0307", "'\u0073\u0323",
		"don'T", "DON'T", "we'RE", "We'rE", "they'VE", "I'M", "i'm", "you'LL", "You'Ll", "she'D", "'LL", "'Ll", "'lL",
		"''s", "'s's", "'s'", "rock'n'roll", "o'clock", "l'homme", "dell'arte", "'tis", "'twas", "'em", "y'all'd've",
		"'re'", "'''", "'", "’’", "'S\u0300", "'\u00DF", "'\u1E9E", "x'\U0001D42C", "it's\u200B", "'\u0074\u0308",
		"CAN'T WON'T SHAN'T", "Ain'T", "'VE'VE'VE", "'d'd'd"} {
		c.add("contractions", s)
		c.add("contractions", "word"+s+" next")
	}
}

func genDigits(c *corpus) {
	for n := 1; n <= 40; n++ {
		var b strings.Builder
		for range n {
			b.WriteByte(byte('0' + c.rng.IntN(10)))
		}
		c.add("digits", b.String())
		c.add("digits", "x"+b.String()+"y")
		c.add("digits", " "+b.String())
		if n <= 20 {
			c.add("digits", strings.Repeat("1", n))
			c.add("digits", strings.Repeat("0", n)+"7")
		}
	}
	c.add("digits", strings.Repeat("1234567890", 50))
	for _, s := range []string{"1,234", "1,234,567.89", "1.234.567,89", "1 234 567", "1\u00a0234\u00a0567", "1\u202f234", "1_000_000",
		"1'000'000", "0x1F3A", "0b1010_1010", "0o755", "3.14159e-10", "-2.5E+3", "6.022×10²³", "+1 (555) 123-4567",
		"2024-06-30T12:34:56.789Z", "30/06/2024", "12:30:45", "v1.2.3-rc.4+build.5", "192.168.0.1", "::1", "fe80::1ff:fe23:4567:890a",
		"$1,000.00", "€ 9,99", "100%", "50 km/h", "3rd", "21st", "1st 2nd 3rd 4th", "1/2", "3⁄4", "½ ¼ ¾ ⅞", "² ³ ¹ ⁰",
		"①②③④⑤", "Ⅰ Ⅱ Ⅲ Ⅳ Ⅻ ⅽ ⅿ", "٠١٢٣٤٥٦٧٨٩", "۰۱۲۳۴۵۶۷۸۹", "०१२३४५६७८९", "০১২৩৪৫৬৭৮৯", "௦௧௨௩௪", "๐๑๒๓๔๕๖๗๘๙",
		"０１２３４５６７８９", "𝟎𝟏𝟐𝟑", "𝟘𝟙𝟚", "〇一二三四五六七八九十百千万亿", "፩፪፫", "𐒠𐒡𐒢", "🄀🄁🄂", "9️⃣", "12345678901234567890123",
		"3.14159265358979323846264338327950288419716939937510", "007", "1e100", "NaN", "-0", "+0.0", "123abc456", "abc123", "A1B2C3",
		"x1", "x12", "x123", "x1234", "x12345", "x123456", "１２３abc", "٣٤abc", "12.34.56", "1..2", "1...2"} {
		c.add("digits", s)
	}
}

func genURLs(c *corpus) {
	for _, s := range []string{"https://www.example.com/", "http://127.0.0.1:8080/v1/chat/completions?stream=true",
		"https://example.org/path/to/page.html#section-2", "ftp://files.example.net/pub/file.tar.gz",
		"https://example.com/search?q=tokenizer+golden&lang=en&page=2", "https://user:pass@host.example:8443/a/b;c?d=e#f",
		"https://ja.wikipedia.org/wiki/東京", "https://ru.example.com/статья/123", "https://example.com/%E6%9D%B1%E4%BA%AC",
		"https://xn--bcher-kva.example/", "mailto:someone@example.com", "file:///home/user/My%20Documents/a.txt",
		"git@github.com:owner/repo.git", "ssh://git@example.com:22/repo", "s3://bucket/key/with/slashes/",
		"someone@example.com", "first.last+tag@sub.example.co.uk", "用户@例子.广告", "üñî@exämple.de", "a@b.c",
		"\"quoted local\"@example.com", "Contact us at support@example.com or call +1-800-555-0199.",
		"See https://example.com/docs (section 3.2), or <https://example.com/faq>.", "C:\\Program Files\\App\\app.exe",
		"/usr/local/bin/go", "./scripts/gen-goldens.sh", "~/.config/replay/config.yaml", "../../etc/passwd",
		"@username #hashtag $TICKER %TEMP% ^caret &amp; *bold* _under_ ~strike~ `code`"} {
		c.add("urls", s)
		c.add("urls", "Visit "+s+" today.")
	}
	hosts := []string{"example.com", "api.example.org", "localhost:3000", "127.0.0.1", "sub.domain.co.jp"}
	segs := []string{"v1", "users", "42", "items", "search", "a-b_c", "日本", "%20", "index.html", "~user"}
	for range 30 {
		var b strings.Builder
		b.WriteString(c.pick([]string{"http://", "https://", "https://www."}))
		b.WriteString(c.pick(hosts))
		for range c.rng.IntN(5) {
			b.WriteString("/" + c.pick(segs))
		}
		if c.rng.IntN(2) == 0 {
			b.WriteString("?" + c.pick(segs) + "=" + c.pick(segs) + "&x=" + strconv.Itoa(c.rng.IntN(1000)))
		}
		c.add("urls", b.String())
	}
}

func genNormalization(c *corpus, blocks []block) {
	for _, b := range blocks {
		if !strings.HasPrefix(b.cat, "prose") {
			continue
		}
		if d := norm.NFD.String(b.text); d != b.text {
			c.add("norm", d)
		}
		if k := norm.NFKC.String(b.text); k != b.text {
			c.add("norm", k)
		}
	}
	for _, s := range []string{"café", "cafe\u0301", "Å", "A\u030A", "\u212B", "\u2126", "Ω", "\u212A", "K", "ﬁ", "ﬀ", "①", "㎏", "™", "ℌ",
		"한국어", "\u1112\u1161\u11AB\u1100\u116E\u11A8\u110B\u1165", "ㅎㅏㄴ", "a\u0323\u0302", "a\u0302\u0323", "ệ", "e\u0323\u0302",
		"\u0958", "\u0915\u093C", "\uFB2A", "\u05E9\u05C1", "\uF900", "\u8C48", "\u2F800", "\u0344", "\u0308\u0301", "\u1E9B\u0323",
		"Z̸̧̛̪̦̜͓̈́̍̅͛ą̶̢̛͎̗͍͂́l̵̨̰̙̯̏̐g̸̢̨̩̫̈́̿̾ó̶̧̱̭̄̾", "o\u0308\u0304", "\u00F6\u0304", "\u022B", "ǖǘǚǜ", "u\u0308\u0304u\u0308\u0301",
		"\u0041\u030A\u0301", "\u01FA", "Ǆǅǆ", "\u1F80\u0345", "ᾀ", "ß", "ẞ", "ﬃ", "ｈｅｌｌｏ", "ﾊﾟﾝ", "ﾊ\uFF9Fﾝ", "パン", "ハ\u309Aン",
		"\u0BCA", "\u0BC6\u0BBE", "\u0DDA", "\u0DD9\u0DCA", "\u1025\u102E", "\u0F73", "\u0F71\u0F72", "\u03D3", "\u03D2\u0301"} {
		c.add("norm", s)
		c.add("norm", "["+s+"] "+norm.NFD.String(s)+" "+norm.NFC.String(s))
	}
	// Random base letters with random stacks of combining marks.
	for range 40 {
		var b strings.Builder
		for range 1 + c.rng.IntN(6) {
			b.WriteRune(rune(c.pick([]string{"a", "e", "o", "u", "n", "c", "A", "Σ", "и", "ש", "क", "ก", "가", "字", " "})[0]))
			for range c.rng.IntN(5) {
				b.WriteRune(rune(0x0300 + c.rng.IntN(0x70)))
			}
		}
		s := b.String()
		if !utf8.ValidString(s) {
			continue
		}
		c.add("norm", s)
		c.add("norm", norm.NFC.String(s))
	}
}

func genOddSpaces(c *corpus) {
	odd := []rune{0x0085, 0x00A0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009,
		0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0x180E, 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x00AD, 0x034F,
		0x061C, 0x200E, 0x200F, 0x202A, 0x202E, 0x2066, 0x2069, 0x001C, 0x001D, 0x001E, 0x001F, 0x000B, 0x000C, 0x0000,
		0x0001, 0x007F, 0x0080, 0x009F, 0xFFFC, 0xFFFD, 0xFE0F, 0xE0001, 0xE0041}
	for _, r := range odd {
		s := string(r)
		c.add("oddspace", s)
		c.add("oddspace", "a"+s+"b")
		c.add("oddspace", "word"+s+s+"word")
		c.add("oddspace", s+"lead")
		c.add("oddspace", "trail"+s)
		c.add("oddspace", "x "+s+" y")
		c.add("oddspace", "1"+s+"2")
		c.add("oddspace", "\n"+s+"\n")
	}
	for range 40 {
		var b strings.Builder
		for range 2 + c.rng.IntN(8) {
			if c.rng.IntN(2) == 0 {
				b.WriteRune(odd[c.rng.IntN(len(odd))])
			} else {
				b.WriteString(c.pick([]string{"a", "word", " ", "\n", "12", "字", "'s", "\t"}))
			}
		}
		c.add("oddspace", b.String())
	}
}

type urange struct {
	name     string
	lo, hi   rune
	isDigits bool
}

// newRanges are scripts added in Unicode 14-17, newer than some regex engines' tables.
var newRanges = []urange{
	{"cjk-ext-i (15.1)", 0x2EBF0, 0x2EE5D, false},
	{"cjk-ext-h (15.0)", 0x31350, 0x323AF, false},
	{"cjk-ext-j (17.0)", 0x323B0, 0x3347F, false},
	{"garay (16.0)", 0x10D4A, 0x10D85, false},
	{"garay digits", 0x10D40, 0x10D49, true},
	{"kirat rai (16.0)", 0x16D40, 0x16D6C, false},
	{"kirat rai digits", 0x16D70, 0x16D79, true},
	{"sunuwar (16.0)", 0x11BC0, 0x11BE0, false},
	{"sunuwar digits", 0x11BF0, 0x11BF9, true},
	{"tulu-tigalari (16.0)", 0x11380, 0x113B7, false},
	{"ol onal (16.0)", 0x1E5D0, 0x1E5ED, false},
	{"ol onal digits", 0x1E5F1, 0x1E5FA, true},
	{"todhri (16.0)", 0x105C0, 0x105F3, false},
	{"gurung khema (16.0)", 0x16100, 0x1611D, false},
	{"gurung khema digits", 0x16130, 0x16139, true},
	{"outlined digits (16.0)", 0x1CCF0, 0x1CCF9, true},
	{"myanmar ext-c digits (16.0)", 0x116D0, 0x116E3, true},
	{"latin ext-d new (16.0)", 0xA7CB, 0xA7DC, false},
	{"kawi (15.0)", 0x11F04, 0x11F33, false},
	{"kawi digits", 0x11F50, 0x11F59, true},
	{"nag mundari (15.0)", 0x1E4D0, 0x1E4EB, false},
	{"nag mundari digits", 0x1E4F0, 0x1E4F9, true},
	{"cyrillic ext-d (15.0)", 0x1E030, 0x1E06D, false},
	{"vithkuqi (14.0)", 0x10570, 0x105BC, false},
	{"toto (14.0)", 0x1E290, 0x1E2AD, false},
	{"tangsa (14.0)", 0x16A70, 0x16ABE, false},
	{"tangsa digits", 0x16AC0, 0x16AC9, true},
	{"sidetic (17.0)", 0x10940, 0x10959, false},
	{"tolong siki (17.0)", 0x11DB0, 0x11DDB, false},
	{"beria erfe (17.0)", 0x16EA0, 0x16ED3, false},
	{"tai yo (17.0)", 0x1E6C0, 0x1E6DE, false},
}

func genNewUnicode(c *corpus) {
	for _, r := range newRanges {
		var b strings.Builder
		for x := r.lo; x <= r.hi && x < r.lo+40; x++ {
			b.WriteRune(x)
		}
		c.add("newunicode", b.String())
		for range 4 {
			var w strings.Builder
			for range 1 + c.rng.IntN(8) {
				w.WriteRune(r.lo + rune(c.rng.IntN(int(r.hi-r.lo+1))))
			}
			word := w.String()
			c.add("newunicode", word)
			c.add("newunicode", " "+word)
			c.add("newunicode", "x"+word+"'s 123 "+word+"abc")
			c.add("newunicode", word+" "+word+"\n"+word)
		}
	}
	for range 30 {
		var b strings.Builder
		for range 2 + c.rng.IntN(10) {
			r := newRanges[c.rng.IntN(len(newRanges))]
			b.WriteRune(r.lo + rune(c.rng.IntN(int(r.hi-r.lo+1))))
			if c.rng.IntN(3) == 0 {
				b.WriteString(c.pick([]string{" ", "a", "1", "'s", "\n", "字"}))
			}
		}
		c.add("newunicode", b.String())
	}
}

func genRandomUnicode(c *corpus) {
	type span struct{ lo, hi rune }
	spans := []span{{0x20, 0x7E}, {0xA0, 0x24F}, {0x250, 0x2FF}, {0x300, 0x36F}, {0x370, 0x52F}, {0x530, 0x10FF},
		{0x1100, 0x1FFF}, {0x2000, 0x2BFF}, {0x2C00, 0x2FFF}, {0x3000, 0x4DBF}, {0x4E00, 0x9FFF}, {0xA000, 0xD7FF},
		{0xE000, 0xF8FF}, {0xF900, 0xFFFF}, {0x10000, 0x1FFFF}, {0x1D400, 0x1D7FF}, {0x1F300, 0x1FAFF},
		{0x20000, 0x2A6DF}, {0x2A700, 0x2FFFF}, {0x30000, 0x3134F}, {0xE0000, 0xE01EF}, {0xF0000, 0xF00FF}, {0x10FF00, 0x10FFFF}}
	for i := range 220 {
		var b strings.Builder
		n := 1 + c.rng.IntN(24)
		if i%10 == 0 {
			n = 60 + c.rng.IntN(200)
		}
		for range n {
			s := spans[c.rng.IntN(len(spans))]
			r := s.lo + rune(c.rng.IntN(int(s.hi-s.lo+1)))
			if r >= 0xD800 && r <= 0xDFFF {
				continue
			}
			b.WriteRune(r)
		}
		c.add("random", b.String())
	}
	// Planes 1 and 2 in context.
	c.add("random", "𠀀𠀁𠀂 𪚥 𠮷野家 𩸽 — CJK Ext B in text, plus 𐌰𐌱𐌲 (Gothic), 𐐀𐐨 (Deseret), 𓀀𓁐 (hieroglyphs), 𒀀 (cuneiform).")
	c.add("random", "𞤀𞤢𞤣 𞥑𞥒 Adlam, 𐓀𐓘 Osage, 𖹀𖹠 Medefaidrin, 𑀓𑀸 Brahmi, 𑂍 Kaithi, 𝄞𝄢 music, 🀄🃏 games.")
}

func genEdge(c *corpus) {
	c.add("edge", "")
	c.add("edge", " ")
	c.add("edge", "a")
	c.add("edge", "A")
	c.add("edge", "'")
	c.add("edge", "▁")
	c.add("edge", "▁▁ ▁")
	c.add("edge", "Ġ")
	c.add("edge", "Ċ")
	c.add("edge", "ĠĠĠ")
	// Pieces that are vocabulary spellings of other bytes: SentencePiece's U+2581 and the
	// ByteLevel alphabet's space/newline, in runs (Gemma has added tokens for U+2581 runs).
	for n := 1; n <= 32; n++ {
		c.add("edge", strings.Repeat("▁", n))
		if n%4 == 1 {
			c.add("edge", "a"+strings.Repeat("▁", n)+"b "+strings.Repeat("Ġ", n)+strings.Repeat("Ċ", n))
		}
	}
	c.add("edge", "<0x0A>")
	c.add("edge", "<0xFF>")
	var ascii strings.Builder
	for r := rune(0); r < 0x80; r++ {
		ascii.WriteRune(r)
	}
	c.add("edge", ascii.String())
	var latin strings.Builder
	for r := rune(0x80); r < 0x200; r++ {
		latin.WriteRune(r)
	}
	c.add("edge", latin.String())
	for r := rune(0x21); r < 0x7F; r++ {
		c.add("edge", strings.Repeat(string(r), 1+int(r)%7))
	}
	for _, n := range []int{2, 3, 10, 100, 1000, 3000} {
		c.add("edge", strings.Repeat("a", n))
		c.add("edge", strings.Repeat("ab", n/2))
	}
	c.add("edge", strings.Repeat("字", 500))
	c.add("edge", strings.Repeat("é", 500))
	c.add("edge", strings.Repeat("!", 200))
	c.add("edge", strings.Repeat("-", 120))
	c.add("edge", strings.Repeat("=", 80)+"\n"+strings.Repeat("#", 80))
	c.add("edge", strings.Repeat("the ", 300))
	c.add("edge", "Supercalifragilisticexpialidocious pneumonoultramicroscopicsilicovolcanoconiosis")
	c.add("edge", "camelCaseIdentifiersLikeThis and snake_case_ones and SCREAMING_SNAKE and kebab-case-too")
	c.add("edge", "HTTPServerError XMLHttpRequest getHTTPResponseCode iPhone eBay McDonald's O'Neil")
	c.add("edge", "a\u0000b")
	c.add("edge", "\u0000")
	c.add("edge", "\uFFFD\uFFFD")
	c.add("edge", "\uFFFE\uFFFF\U0010FFFF\U000FFFFD")
	c.add("edge", "\uE000\uF8FF\U000F0000")
}

func genLong(c *corpus, prose, code []block) {
	var all []string
	for _, b := range prose {
		all = append(all, b.text)
	}
	c.add("long", strings.Join(all, "\n\n"))
	c.add("long", strings.Join(all, " "))
	var src []string
	for _, b := range code {
		if strings.HasPrefix(b.cat, "code") {
			src = append(src, b.text)
		}
	}
	c.add("long", strings.Join(src, "\n\n"))
	for i := range 6 {
		var b strings.Builder
		for b.Len() < 8000+i*3000 {
			b.WriteString(c.texts[c.rng.IntN(len(c.texts))])
			b.WriteString(c.pick([]string{"\n", " ", "\n\n", ""}))
		}
		c.add("long", b.String())
	}
}

// fuzzPieces are fragments chosen to hit the boundaries of the pre-tokenizer regexes:
// contraction suffixes in odd cases, each letter category (Lu Ll Lt Lm Lo M), digits of several
// kinds, whitespace of several kinds, CR/LF, punctuation runs and special-token fragments.
var fuzzPieces = []string{"'", "s", "S", "t", "re", "RE", "ve", "m", "LL", "d", "ſ", "\u212A", " ", " ", "  ", "\t", "\n",
	"\r", "\r\n", "\u00a0", "\u3000", "\u0085", "\u2028", "\v", "\f", "a", "A", "z", "Q", "é", "É", "ǅ", "ʰ", "ª", "ー",
	"\u0301", "\u0903", "\u20DD", "1", "12", "123", "4567", "١", "९", "½", "Ⅻ", "²", "𝟙", ".", ",", "!", "?", "...", "-", "_",
	"$", "\\", "/", "(", ")", "\"", "<", "|", ">", "<|", "|>", "<s>", "</s>", "▁", "😀", "👍🏽", "\u200d", "\u200b", "字",
	"日本", "ا", "ש", "ก", "가", "Ω", "ω", "Я", "я", "'s", "'S", "n't", "\u2019", "\u2019s", "ß", "İ", "ı", "Ǆ", "ǆ", "\U00010D50", "\U00016D40"}

func genFuzz(c *corpus) {
	for i := range 500 {
		var b strings.Builder
		n := 2 + c.rng.IntN(10)
		if i%25 == 0 {
			n = 40 + c.rng.IntN(40)
		}
		for range n {
			b.WriteString(c.pick(fuzzPieces))
		}
		c.add("fuzz", b.String())
	}
}

// genSweep walks the code space with a jittered stride so every Unicode block (and the class
// boundaries inside it) shows up: 48 code points a line, surrogates skipped.
func genSweep(c *corpus) {
	spans := []struct {
		lo, hi rune
		step   int
	}{{0x0, 0xFFFF, 5}, {0x10000, 0x1FFFF, 11}, {0x20000, 0x2FFFF, 257}, {0x30000, 0x3FFFF, 257}, {0xE0000, 0xE01EF, 3}}
	for _, sp := range spans {
		var run []rune
		flush := func() {
			if len(run) > 0 {
				c.add("sweep", string(run))
			}
			run = run[:0]
		}
		for base := sp.lo; base <= sp.hi; base += rune(sp.step) {
			r := base + rune(c.rng.IntN(sp.step))
			if r > sp.hi || (r >= 0xD800 && r <= 0xDFFF) {
				continue
			}
			run = append(run, r)
			if len(run) == 48 {
				flush()
			}
		}
		flush()
	}
}

func genBlobs(c *corpus) {
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	const hex = "0123456789abcdef"
	rnd := func(alpha string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alpha[c.rng.IntN(len(alpha))]
		}
		return string(b)
	}
	for _, n := range []int{4, 12, 24, 44, 64, 100, 200, 500, 1000, 4000} {
		c.add("blobs", rnd(b64, n)+"==")
		c.add("blobs", rnd(hex, n))
		c.add("blobs", rnd("abcdefghijklmnopqrstuvwxyz", n))
		c.add("blobs", rnd("ABCDEFGHIJKLMNOPQRSTUVWXYZ", n/2)+rnd("0123456789", n/2))
	}
	for range 12 {
		c.add("blobs", fmt.Sprintf("%s-%s-%s-%s-%s", rnd(hex, 8), rnd(hex, 4), rnd(hex, 4), rnd(hex, 4), rnd(hex, 12)))
		c.add("blobs", "sha256:"+rnd(hex, 64))
		c.add("blobs", "eyJ"+rnd(b64[:62], 30)+"."+rnd(b64[:62], 60)+"."+rnd(b64[:62]+"-_", 43))
		c.add("blobs", "data:image/png;base64,"+rnd(b64, 120))
	}
	c.add("blobs", "function(a,b){return a&&b?a.map(function(c){return c*2}):[]};var x=1,y=2;if(x<y){x++}else{y--};console.log(x,y);")
	c.add("blobs", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbcccccccccccccccccccccccc")
	c.add("blobs", strings.Repeat("ab", 1000)+strings.Repeat("ba", 1000))
	c.add("blobs", strings.Repeat("1", 1000)+"."+strings.Repeat("0", 100))
}

// genNFC16 writes scripts whose canonical compositions were added in Unicode 16.0 (Tulu-Tigalari,
// Gurung Khema, Kirat Rai, Todhri), decomposed and composed, for Qwen3's NFC normalizer.
func genNFC16(c *corpus) {
	for _, s := range []string{
		"\U000113C2\U000113C2", "\U000113C5", "\U000113C2\U000113B8", "\U000113C7", "\U000113C2\U000113C9", "\U000113C8",
		"\U0001611E\U0001611E", "\U00016121", "\U0001611E\U00016129", "\U00016122", "\U0001611E\U0001611F", "\U00016123",
		"\U00016129\U0001611F", "\U00016124", "\U0001611E\U00016120", "\U00016125", "\U00016121\U0001611F", "\U00016126",
		"\U00016122\U0001611F", "\U00016127", "\U00016121\U00016120", "\U00016128",
		"\U00016D67\U00016D67", "\U00016D68", "\U00016D63\U00016D67", "\U00016D69", "\U00016D69\U00016D67", "\U00016D6A",
		"\U000105D2\u0307", "\U000105C9", "\U000105DA\u0307", "\U000105E4",
	} {
		c.add("nfc16", s)
		c.add("nfc16", "\U00011390"+s+"\U00016100"+s+" x")
	}
}

// genNormTables sweeps the normalization data (as golang.org/x/text knows it, Unicode 15):
// every combining mark with a nonzero combining class between "a" and U+0334 (class 1), so
// canonical reordering shows which marks the reference's tables know; and every character with a
// canonical decomposition (Hangul syllables excepted), decomposed and composed, so composition
// and composition exclusions show. The reference's NFC (Qwen3) uses older Unicode data than its
// regexes, which this pins down.
func genNormTables(c *corpus) {
	var marks, decomp []rune
	for r := rune(0); r <= 0x10FFFF; r++ {
		if (r >= 0xD800 && r <= 0xDFFF) || (r >= 0xAC00 && r <= 0xD7A3) {
			continue
		}
		p := norm.NFD.PropertiesString(string(r))
		if p.CCC() != 0 {
			marks = append(marks, r)
		}
		if p.Decomposition() != nil {
			decomp = append(decomp, r)
		}
	}
	for i := 0; i < len(marks); i += 24 {
		var b strings.Builder
		for _, m := range marks[i:min(i+24, len(marks))] {
			b.WriteString("a" + string(m) + "\u0334 ")
		}
		c.add("normtables", b.String())
	}
	for i := 0; i < len(decomp); i += 32 {
		var dec, comp strings.Builder
		for _, r := range decomp[i:min(i+32, len(decomp))] {
			dec.WriteString(norm.NFD.String(string(r)) + " ")
			comp.WriteString(string(r) + " ")
		}
		c.add("normtables", dec.String())
		c.add("normtables", comp.String())
	}
}
