package ingest

import (
	"fmt"
	"slices"
	"sync"
)

// Opener reads a trace of a format registered with Register. Open hands it the path and the
// options with their defaults filled and Format resolved (never auto). It must return a Reader
// like Open's own: records in time order, bad rows under OnError, Close releasing everything
// it opened (the quarantine file of QuarantinePath included).
type Opener func(path string, opts Options) (Reader, error)

var (
	openersMu sync.RWMutex
	openers   = map[string]Opener{}
)

// Register makes Open read format with open, for a format whose reader needs what this package
// must not know: request logs (FormatOpenAILog) are tokenized with the served model's
// tokenizer and chat template, so package requestlog registers their reader from its init, as
// image/png registers its decoder with image; package gatewaylog registers a format per
// gateway, cloud and engine log, which it adds to Formats. The program imports the
// registering package (blank, if it needs nothing else of it). Register panics when format is
// auto or one this package parses itself, or is registered twice: all programmer errors.
func Register(format string, open Opener) {
	_, own := presets[format]
	if own || format == FormatAuto || format == "" || open == nil {
		panic(fmt.Sprintf("ingest: Register(%q): not a format to register", format))
	}
	openersMu.Lock()
	defer openersMu.Unlock()
	if _, dup := openers[format]; dup {
		panic(fmt.Sprintf("ingest: Register(%q) called twice", format))
	}
	openers[format] = open
	if !slices.Contains(Formats, format) {
		Formats = append(Formats, format)
	}
}

// RegisterSniffer lets Detect recognise a registered format by its file's first line (a
// JSON object or a text line), before the generic formats: sniff must be strict enough not
// to claim another format's lines.
func RegisterSniffer(format string, sniff func(first []byte) bool) {
	openersMu.Lock()
	defer openersMu.Unlock()
	sniffers = append(sniffers, sniffer{format, sniff})
}

type sniffer struct {
	format string
	sniff  func(first []byte) bool
}

var sniffers []sniffer

// sniffed is the registered format that claims a first line, "" when none does.
func sniffed(first []byte) string {
	openersMu.RLock()
	defer openersMu.RUnlock()
	for _, s := range sniffers {
		if s.sniff(first) {
			return s.format
		}
	}
	return ""
}

// registered returns the reader registered for format, or an error saying the program lacks it.
func registered(path, format string) (Opener, error) {
	openersMu.RLock()
	defer openersMu.RUnlock()
	if open, ok := openers[format]; ok {
		return open, nil
	}
	return nil, fmt.Errorf("%s: format %s needs its reader registered (import github.com/llm-replay/replay/requestlog, which registers openai-log's)", path, format)
}
