package ingest

import (
	"fmt"
	"io"
	"strings"
)

// Format names, as accepted by --format.
const (
	FormatAuto      = "auto"
	FormatMooncake  = "mooncake"
	FormatAzure     = "azure"
	FormatBurstGPT  = "burstgpt"
	FormatJSONL     = "jsonl"
	FormatCSV       = "csv"
	FormatParquet   = "parquet"
	FormatOpenAILog = "openai-log"
)

// Formats lists every format name Open accepts, in the order help text shows them.
var Formats = []string{FormatAuto, FormatMooncake, FormatAzure, FormatBurstGPT, FormatJSONL, FormatCSV, FormatParquet, FormatOpenAILog}

// What to do with a bad row.
const (
	OnErrorFail = "fail"
	OnErrorSkip = "skip"
)

// What to do when a row's hash count disagrees with ceil(prompt_tokens/block_size).
const (
	HashCheckError  = "error"
	HashCheckWarn   = "warn"
	HashCheckIgnore = "ignore"
)

// DefaultMaxTokens is the largest prompt or output token count accepted as plausible; larger
// values are almost always a unit or column mix-up (bytes, characters, a timestamp).
const DefaultMaxTokens = 10_000_000

// Options says how to read a trace. The zero value reads with format detection, fails on the
// first bad row and rejects out-of-order timestamps.
type Options struct {
	// Format is one of Formats; "" means auto (detected from the file's first bytes).
	Format string
	// Map maps record fields (see Fields) to input columns or dotted JSON paths, overriding the
	// format's preset, e.g. {"prompt_tokens": "usage.prompt_tokens"}. ParseMap reads the
	// command-line form.
	Map map[string]string
	// TimeUnit is the unit of numeric timestamps: "s", "ms", "us" or "ns". "" uses the
	// format's preset (ms for Mooncake, s otherwise). Text timestamps (RFC3339, or
	// "2006-01-02 15:04:05.0000000" read as UTC) need no unit.
	TimeUnit string
	// BlockSize is the number of tokens per hashed block; 0 uses the preset (512 for Mooncake,
	// none otherwise).
	BlockSize int
	// HashCheck says what a row whose hash count is not ceil(prompt_tokens/BlockSize) is:
	// "error" (default), "warn" (kept, counted in Counts.HashMismatches) or "ignore".
	HashCheck string
	// OnError is "fail" (default: Next returns the first bad row's error) or "skip" (the row's
	// raw line goes to the quarantine and is counted in Counts.Rejected).
	OnError string
	// Quarantine receives the raw lines of skipped rows, one per line (Parquet rows as JSON).
	// QuarantinePath, when set, is created by Open and closed by Close instead.
	Quarantine     io.Writer
	QuarantinePath string
	// Sort accepts out-of-order timestamps and emits the records stably sorted by time. Open
	// first checks the order in a streaming pass; only a file that is really out of order is
	// then held in memory (about 100 bytes per record plus its hashes) to sort it. Without
	// Sort an out-of-order row is a bad row.
	Sort bool
	// MaxTokens bounds plausible token counts; 0 means DefaultMaxTokens.
	MaxTokens int
	// LogYear is the year of a log's timestamps written without one (a server log's
	// month-day times); 0 takes the file's modification time's year.
	LogYear int
	// MemoryBudget bounds, in bytes, what a reader holds to sort one file read whole (see
	// HoldLimit); 0 is half of this machine's memory.
	MemoryBudget int64
	// Files, when it holds several, are the files read as one log (Resolve's, from --trace's
	// values), merged in time order; the path given to Open then only names the log.
	Files []string
	// PartOfSet says a file is read as one of a set (set by the set's reader for each file):
	// the set gives records that log cached tokens their hashes over the merged stream, so a
	// session's requests share prefixes across files as they would in one file.
	PartOfSet bool
	// Tokenizer is the served model's tokenizer.json or its folder, for a format whose token
	// counts come from tokenizing the text it holds (openai-log, read by a registered reader);
	// ingest's own formats carry their counts and ignore it.
	Tokenizer string
	// ImageSize (--image-size WxH) is the size of images a request log gives by URL only, and
	// ImageTokens (--image-tokens N) the prompt tokens of every image where the model's folder
	// has no rule for them; the request log's reader reads both ("" and 0: none).
	ImageSize   string
	ImageTokens int
	// LoggedModel (--logged-model) is the model whose rule counted the log's images where the
	// logged model name says nothing: a hosted family's name (gpt-4o, claude-…, gemini-…) or a
	// model folder (config.json, preprocessor_config.json); "": by each line's model name.
	LoggedModel string
	// AudioTokensPerSecond (--audio-tokens-per-second R) counts every audio clip at R tokens a
	// second where the model's folder has no rule for audio (0: none).
	AudioTokensPerSecond float64
}

// normalized fills defaults and checks the values.
func (o Options) normalized() (Options, error) {
	if o.Format == "" {
		o.Format = FormatAuto
	}
	o.Format = strings.ToLower(o.Format)
	ok := false
	for _, f := range Formats {
		ok = ok || f == o.Format
	}
	if !ok {
		return o, fmt.Errorf("unknown format %q (want one of %s)", o.Format, strings.Join(Formats, ", "))
	}
	if o.OnError == "" {
		o.OnError = OnErrorFail
	}
	if o.OnError != OnErrorFail && o.OnError != OnErrorSkip {
		return o, fmt.Errorf("unknown on-error mode %q (want fail or skip)", o.OnError)
	}
	if o.HashCheck == "" {
		o.HashCheck = HashCheckError
	}
	if o.HashCheck != HashCheckError && o.HashCheck != HashCheckWarn && o.HashCheck != HashCheckIgnore {
		return o, fmt.Errorf("unknown hash check mode %q (want error, warn or ignore)", o.HashCheck)
	}
	if o.TimeUnit != "" {
		if _, err := unitNanos(o.TimeUnit); err != nil {
			return o, err
		}
	}
	if o.BlockSize < 0 {
		return o, fmt.Errorf("block size %d: must be positive", o.BlockSize)
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = DefaultMaxTokens
	}
	return o, nil
}

// checkMap checks that every mapped field is one of Fields. It is not part of normalized: a
// registered format's reader has fields of its own and checks its mapping itself.
func checkMap(m map[string]string) error {
	for f, col := range m {
		if fieldIndex(f) < 0 {
			return fmt.Errorf("--map: unknown field %q (want one of %s)", f, strings.Join(Fields[:], ", "))
		}
		if _, err := SplitPath(col); err != nil {
			return fmt.Errorf("--map: field %s: %w", f, err)
		}
	}
	return nil
}

// ParseMap reads the command-line mapping "field=column,field=column": columns may be dotted
// JSON paths such as usage.prompt_tokens, with a key that holds dots in brackets
// (["gen_ai.usage.input_tokens"]), and may go on into a string that holds JSON (SplitPath).
func ParseMap(s string) (map[string]string, error) {
	m, err := ParsePairs(s, "column")
	if err != nil {
		return nil, err
	}
	if err := checkMap(m); err != nil {
		return nil, err
	}
	return m, nil
}

// ParsePairs splits a --map list "field=value,field=value" into its pairs; value names the
// right-hand side in errors ("column", "path"). The readers check the fields themselves.
func ParsePairs(s, value string) (map[string]string, error) {
	m := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return m, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("--map: %q is not field=%s", kv, value)
		}
		m[k] = v
	}
	return m, nil
}

// unitNanos is the number of nanoseconds in one numeric timestamp unit.
func unitNanos(u string) (int64, error) {
	switch u {
	case "s":
		return 1e9, nil
	case "ms":
		return 1e6, nil
	case "us", "µs":
		return 1e3, nil
	case "ns":
		return 1, nil
	}
	return 0, fmt.Errorf("unknown time unit %q (want s, ms, us or ns)", u)
}
