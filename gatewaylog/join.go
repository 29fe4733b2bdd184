package gatewaylog

import (
	"bytes"
	"cmp"
	"slices"
)

// Some sources log one request as several records, and only the file as a whole says which
// belong together: Azure API Management writes a request's gateway record (its time, URL and
// status) in one log and its token counts in another, tied by CorrelationId, and splits a long
// prompt or completion over several LLM records numbered by SequenceNumber. Read sees one
// record at a time, so such a Schema sets Join: the reader hands it every record of the file
// (decoded, with its line) once all are in, and reads what it returns, a merged record
// carrying the others in Parts. Records that are not valid JSON never reach Join; they are
// rejected at their own lines as always. The reader already holds the whole log to sort it by
// arrival, so holding the records a little longer costs no more than the log's size.

// joinedRaw is a merged record's raw bytes: each part's line, in file order, one a line, so that
// a rejected request goes to the quarantine file whole.
func joinedRaw(recs []Record) []byte {
	sorted := slices.Clone(recs)
	slices.SortStableFunc(sorted, func(a, b Record) int { return cmp.Compare(a.Line, b.Line) })
	raws := make([][]byte, len(sorted))
	for i, r := range sorted {
		raws[i] = bytes.TrimRight(r.Raw, "\r\n")
	}
	return bytes.Join(raws, []byte("\n"))
}
