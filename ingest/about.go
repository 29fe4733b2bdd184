package ingest

import "slices"

// About says what one --format reads, for `--format help`: a phrase, and an example of its
// input (a line of it; a CSV's header and first row; "" where a file has no line to show). The
// examples are input the format reads: cmd/replay's test reads each one.
type About struct {
	Format, Reads, Example string
}

// abouts are the formats this package reads itself; Describe adds the registered ones.
var abouts = []About{
	{FormatAuto, "the default: the format told from the file's first bytes (Parquet's magic, a known log's first line, a CSV header)", ""},
	{FormatMooncake, "Mooncake's JSONL traces (timestamps in ms, 512-token prefix block hashes)",
		`{"timestamp": 27482, "input_length": 1900, "output_length": 52, "hash_ids": [46, 47, 48, 49]}`},
	{FormatAzure, "the Azure LLM inference trace CSVs (2023, 2024)",
		"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 09:02:31.1204700,812,64"},
	{FormatBurstGPT, "the BurstGPT trace CSV (seconds from its start)",
		"Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,472,18,490,Conversation log"},
	{FormatJSONL, "any JSON lines: --map names the keys (by default those below, plus session_id, turn, model, block_hashes)",
		`{"timestamp": 1714557600.5, "prompt_tokens": 812, "output_tokens": 64}`},
	{FormatCSV, "any CSV with a header: --map names the columns (by default those below)",
		"timestamp,prompt_tokens,output_tokens\n1714557600.5,812,64"},
	{FormatParquet, "replay's own trace files (replay ingest --out), or any Parquet columns named by --map (timestamp, prompt_tokens, output_tokens by default)", ""},
}

// Describe adds a registered format's About (its package calls it from init, beside Register).
func Describe(a About) {
	openersMu.Lock()
	defer openersMu.Unlock()
	if i := slices.IndexFunc(abouts, func(b About) bool { return b.Format == a.Format }); i >= 0 {
		abouts[i] = a
		return
	}
	abouts = append(abouts, a)
}

// Abouts lists every format of Formats with its About, in Formats' order; a format nobody
// described has only its name.
func Abouts() []About {
	openersMu.RLock()
	defer openersMu.RUnlock()
	out := make([]About, 0, len(Formats))
	for _, f := range Formats {
		a := About{Format: f}
		if i := slices.IndexFunc(abouts, func(b About) bool { return b.Format == f }); i >= 0 {
			a = abouts[i]
		}
		out = append(out, a)
	}
	return out
}
