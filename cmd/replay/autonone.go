package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// The words "auto" and "none" are the one convention for a flag's special values across every
// command: auto lets replay choose (from the trace, the schedule or this machine), none turns the
// limit or the feature off. A flag that has them takes the word, and still reads the number it
// stood for before the words (scripts and the documented forms pass 0 or -1), as its help says.
const (
	wordAuto = "auto"
	wordNone = "none"
)

// keyword is one word a flag takes and the value the setting stores for it.
type keyword[T comparable] struct {
	word  string
	value T
}

// wordFlag is a flag of type T that also takes its keywords, case-insensitively. The keywords
// print in place of the values they store, so --help shows (default auto) rather than -1.
type wordFlag[T comparable] struct {
	v     *T
	words []keyword[T]
	parse func(string) (T, error)
	print func(T) string
	kind  string // the value's type in --help and errors: int or duration
}

func (f *wordFlag[T]) Set(s string) error {
	t := strings.TrimSpace(s)
	for _, k := range f.words {
		if strings.EqualFold(t, k.word) {
			*f.v = k.value
			return nil
		}
	}
	v, err := f.parse(t)
	if err != nil {
		return fmt.Errorf("want %s or %s", f.wordList(), f.kind)
	}
	*f.v = v
	return nil
}

func (f *wordFlag[T]) String() string {
	if f.v == nil {
		return ""
	}
	for _, k := range f.words {
		if *f.v == k.value {
			return k.word
		}
	}
	return f.print(*f.v)
}

func (f *wordFlag[T]) Type() string { return f.wordList() + "|" + f.kind }

func (f *wordFlag[T]) wordList() string {
	w := make([]string, len(f.words))
	for i, k := range f.words {
		w[i] = k.word
	}
	return strings.Join(w, "|")
}

// intWords defines an int flag that takes words: e.g. --client-limit auto|none|N.
func intWords(fs *pflag.FlagSet, p *int, name string, def int, usage string, words ...keyword[int]) {
	*p = def
	fs.Var(&wordFlag[int]{v: p, words: words, parse: strconv.Atoi, print: strconv.Itoa, kind: "int"}, name, usage)
}

// durationWords defines a duration flag (anything time.ParseDuration reads) that takes words.
func durationWords(fs *pflag.FlagSet, p *time.Duration, name string, def time.Duration, usage string, words ...keyword[time.Duration]) {
	*p = def
	fs.Var(&wordFlag[time.Duration]{v: p, words: words, parse: time.ParseDuration,
		print: time.Duration.String, kind: "duration"}, name, usage)
}

func auto[T comparable](v T) keyword[T] { return keyword[T]{wordAuto, v} }
func none[T comparable](v T) keyword[T] { return keyword[T]{wordNone, v} }
