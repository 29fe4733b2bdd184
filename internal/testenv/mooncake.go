package testenv

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// MooncakeRecord is one request of a Mooncake JSONL trace, the shape tests write their invented
// traces in: Timestamp in milliseconds from the trace's start, the prompt and output lengths in
// tokens, and the prompt's hash ids (one per 512-token block in Mooncake's own traces). A record
// with a SessionID also carries its Turn (0 is the session's first).
type MooncakeRecord struct {
	Timestamp    float64
	InputLength  int
	OutputLength int
	HashIDs      []int
	SessionID    string
	Turn         int
}

// MooncakeJSONL is recs as Mooncake JSONL, one object a line (AppendMooncake).
func MooncakeJSONL(recs []MooncakeRecord) []byte {
	var b []byte
	for _, r := range recs {
		b = AppendMooncake(b, r)
	}
	return b
}

// AppendMooncake appends r's line of Mooncake JSONL to dst, in the key order of Mooncake's own
// files, for a test that streams a trace too large to hold. Timestamps keep three decimals
// (microseconds), as the traces tests used to write by hand.
func AppendMooncake(dst []byte, r MooncakeRecord) []byte {
	dst = append(dst, `{"timestamp": `...)
	dst = strconv.AppendFloat(dst, math.Round(r.Timestamp*1000)/1000, 'f', -1, 64)
	dst = append(dst, `, "input_length": `...)
	dst = strconv.AppendInt(dst, int64(r.InputLength), 10)
	dst = append(dst, `, "output_length": `...)
	dst = strconv.AppendInt(dst, int64(r.OutputLength), 10)
	dst = append(dst, `, "hash_ids": [`...)
	for i, h := range r.HashIDs {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = strconv.AppendInt(dst, int64(h), 10)
	}
	dst = append(dst, ']')
	if r.SessionID != "" {
		dst = append(dst, `, "session_id": `...)
		dst = strconv.AppendQuote(dst, r.SessionID)
		dst = append(dst, `, "turn": `...)
		dst = strconv.AppendInt(dst, int64(r.Turn), 10)
	}
	return append(dst, "}\n"...)
}

// WriteMooncake writes recs as a Mooncake JSONL trace to the file name in a new temporary folder
// of tb and returns its path.
func WriteMooncake(tb testing.TB, name string, recs []MooncakeRecord) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(p, MooncakeJSONL(recs), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// PairedTrace writes n Mooncake requests arriving at rate per second (Poisson), the paired-run
// tests' traffic: prompts of 100 to 1,000 tokens (512-token blocks, the first shared by groups of
// eight), 8 to 24 output tokens. At 20 requests a second the default simulator is busy a fifth
// of the time prefilling. The same n and rate give the same file.
func PairedTrace(tb testing.TB, n int, rate float64) string {
	tb.Helper()
	rng := rand.New(rand.NewPCG(19, 2))
	recs := make([]MooncakeRecord, n)
	next, at := 1000, 0.0
	for i := range recs {
		in := 100 + rng.IntN(900)
		hs := []int{i / 8}
		for range (in+511)/512 - 1 {
			hs = append(hs, next)
			next++
		}
		recs[i] = MooncakeRecord{Timestamp: at, InputLength: in, OutputLength: 8 + rng.IntN(17), HashIDs: hs}
		at += rng.ExpFloat64() * 1000 / rate
	}
	return WriteMooncake(tb, "paired.jsonl", recs)
}
