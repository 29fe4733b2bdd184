package rowfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/runfolder"
)

// smallRow is makeRow(i) with few chunks, so byte-by-byte tests stay quick.
func smallRow(i int) results.Row {
	r := makeRow(i)
	if len(r.ChunkNS) > 3 {
		r.ChunkNS = r.ChunkNS[:3]
	}
	if len(r.ChunkNS) == 0 {
		r.ChunkNS = nil
	}
	return r
}

// journalBytes is a journal of rows 0..n-1 with a fixed id, and the offset of each record.
func journalBytes(n int) (b []byte, offsets []int, rows []results.Row) {
	id := [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	b = appendJournalHeader(nil, id, time.Unix(1700000000, 5))
	for i := 0; i < n; i++ {
		offsets = append(offsets, len(b))
		rows = append(rows, smallRow(i))
		b = appendRecord(b, seedOf(id), &rows[i])
	}
	return b, offsets, rows
}

// sameRows compares row by row (an empty and a nil list are the same).
func sameRows(a, b []results.Row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// readBytes reads a journal held in memory.
func readBytes(t *testing.T, b []byte) ([]results.Row, JournalInfo, error) {
	t.Helper()
	var rows []results.Row
	info, err := readJournal("t.journal", bytes.NewReader(b), int64(len(b)), func(r results.Row) error {
		rows = append(rows, r)
		return nil
	})
	return rows, info, err
}

// Every field of Row goes through the journal's codec: a field added to Row and forgotten in
// rowcodec.go fails here.
func TestRowCodecEveryField(t *testing.T) {
	var r results.Row
	v := reflect.ValueOf(&r).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(fmt.Sprintf("field %d «ü»", i))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int32, reflect.Int64:
			f.SetInt(int64(-1000*i - 7))
		case reflect.Slice:
			f.Set(reflect.ValueOf([]int64{5, 3, -1 << 62, 1<<63 - 1}))
		default:
			t.Fatalf("field %s of kind %s: teach rowcodec.go and this test", v.Type().Field(i).Name, f.Kind())
		}
	}
	got, err := decodeRow(appendRow(nil, &r))
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("round trip: %v\n got %+v\nwant %+v", err, got, r)
	}
	for i := 0; i < 300; i++ {
		want := makeRow(i)
		if len(want.ChunkNS) == 0 {
			want.ChunkNS = nil
		}
		if got, err := decodeRow(appendRow(nil, &want)); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("row %d: %v", i, err)
		}
	}
}

// A row record of the first layout (no backlog, Retry-After or attempt) still decodes, so a
// journal left by an older build recovers.
func TestRowCodecReadsLayout1(t *testing.T) {
	want := makeRow(22)             // warmup false, with a chunk list and an error
	want.TargetReasoningTokens = -1 // what a layout before the eighth reads
	want.ClientBacklogNS, want.RetryAfterNS, want.Attempt, want.Retried = 0, 0, 0, false
	want.Line, want.Population, want.CancelledAsLogged, want.Unforced, want.WrittenNS, want.API = 0, "", false, false, 0, ""
	b := appendRow(nil, &want)
	b[0] = rowRecordV1
	b = b[:len(b)-21] // the server's media count of layout 10, the four media varints of layout 9, the five reasoning varints of layout 8, then the three trailing zero varints of layout 2, the two of layout 3, the one of 4, the empty API of 5, the empty trace id and finish reason of 6, the model and class of 7
	got, err := decodeRow(b)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("layout 1: %v\n got %+v\nwant %+v", err, got, want)
	}
	b[1] = flagRetried
	if _, err := decodeRow(b); err == nil {
		t.Fatal("layout 1 with the retried flag decoded")
	}
}

// A row record of the second layout (no source line, population or cancelled and unforced
// flags) still decodes, and carries none of the third layout's flags.
func TestRowCodecReadsLayout2(t *testing.T) {
	want := makeRow(23)
	want.TargetReasoningTokens = -1 // what a layout before the eighth reads
	want.Attempt, want.Retried, want.RetryAfterNS = 2, true, 1500
	want.Line, want.Population, want.CancelledAsLogged, want.Unforced, want.WrittenNS, want.API = 0, "", false, false, 0, ""
	b := appendRow(nil, &want)
	b[0] = rowRecordV2
	b = b[:len(b)-18] // the server's media count of layout 10, the four media varints of layout 9, the five reasoning varints of layout 8, then the line's zero varint and the empty population of layout 3, the written offset of 4, the API of 5, the trace id and finish reason of 6, the model and class of 7
	got, err := decodeRow(b)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("layout 2: %v\n got %+v\nwant %+v", err, got, want)
	}
	for _, f := range []byte{flagCancelled, flagUnforced} {
		b[1] = f
		if _, err := decodeRow(b); err == nil {
			t.Fatalf("layout 2 with flag %#x decoded", f)
		}
	}
}

// A row record of the third layout (no written offset) still decodes with WrittenNS 0.
func TestRowCodecReadsLayout3(t *testing.T) {
	want := makeRow(24)
	want.TargetReasoningTokens = -1 // what a layout before the eighth reads
	want.WrittenNS, want.API = 0, ""
	b := appendRow(nil, &want)
	b[0] = rowRecordV3
	b = b[:len(b)-16] // the server's media count of layout 10, the four media varints of layout 9, the five reasoning varints of layout 8, then the written offset's zero varint, the empty API, trace id, finish reason, model and class
	got, err := decodeRow(b)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("layout 3: %v\n got %+v\nwant %+v", err, got, want)
	}
}

// A row record of the fourth layout (no API) still decodes with API "".
func TestRowCodecReadsLayout4(t *testing.T) {
	want := makeRow(25)
	want.FirstReasoningNS, want.FirstAnswerNS, want.ReasoningTokens, want.AnswerTokens = 0, 0, 0, 0
	want.TargetReasoningTokens = -1 // what a layout before the eighth reads
	want.API = ""
	b := appendRow(nil, &want)
	b[0] = rowRecordV4
	b = b[:len(b)-15] // the server's media count of layout 10, the four media varints of layout 9, the five reasoning varints of layout 8, then the empty API, trace id, finish reason, model and class
	got, err := decodeRow(b)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("layout 4: %v\n got %+v\nwant %+v", err, got, want)
	}
}

// A row record of the fifth layout (no trace id or finish reason) still decodes with both "".
func TestRowCodecReadsLayout5(t *testing.T) {
	want := makeRow(26)
	want.TargetReasoningTokens = -1 // what a layout before the eighth reads
	want.API = "chat"
	b := appendRow(nil, &want)
	b[0] = rowRecordV5
	b = b[:len(b)-14] // the server's media count of layout 10, the four media varints of layout 9, the five reasoning varints of layout 8, then the empty trace id, finish reason, model and class
	got, err := decodeRow(b)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("layout 5: %v\n got %+v\nwant %+v", err, got, want)
	}
}

// A row record of the sixth layout (no model or SLO class) still decodes with both "".
func TestRowCodecReadsLayout6(t *testing.T) {
	want := makeRow(27)
	want.TargetReasoningTokens = -1 // what a layout before the eighth reads
	want.TraceID, want.FinishReason = "0123456789abcdef0123456789abcdef", "stop"
	b := appendRow(nil, &want)
	b[0] = rowRecordV6
	b = b[:len(b)-12] // the server's media count of layout 10, the four media varints of layout 9, the five reasoning varints of layout 8, then the empty model and class
	got, err := decodeRow(b)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("layout 6: %v\n got %+v\nwant %+v", err, got, want)
	}
}

// A row record of the seventh layout (no reasoning offsets or counts) still decodes with
// them 0 and the logged reasoning unknown (-1); the eighth's without media, the ninth's
// without the server's media count.
func TestRowCodecReadsLayout7(t *testing.T) {
	want := makeRow(28)
	want.Model, want.SLOClass, want.TargetReasoningTokens = "m", "chat", -1
	b := appendRow(nil, &want)
	b[0] = rowRecordV7
	b = b[:len(b)-10] // the server's media count of layout 10, the four media varints of layout 9, then the two offsets and three counts
	got, err := decodeRow(b)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("layout 7: %v\n got %+v\nwant %+v", err, got, want)
	}
	want.FirstReasoningNS, want.FirstAnswerNS, want.ReasoningTokens, want.AnswerTokens, want.TargetReasoningTokens = 5e6, 9e6, 700, 40, 700
	b = appendRow(nil, &want)
	b[0] = rowRecordV8
	b = b[:len(b)-5] // the server's media count of layout 10, the media counts and bytes
	if got, err := decodeRow(b); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("layout 8: %v\n got %+v\nwant %+v", err, got, want)
	}
	want.Images, want.AudioClips, want.MediaTokens, want.MediaBytes = 3, 1, 1900, 2_400_000
	b = appendRow(nil, &want)
	b[0] = rowRecordV9
	b = b[:len(b)-1] // the server's media count
	if got, err := decodeRow(b); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("layout 9: %v\n got %+v\nwant %+v", err, got, want)
	}
	want.ServerMediaTokens = 1903
	if got, err := decodeRow(appendRow(nil, &want)); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("layout 10: %v\n got %+v\nwant %+v", err, got, want)
	}
}

// A journal cut at any length gives exactly the whole records before the cut, never a
// misread row; cut inside the header it is not a journal.
func TestJournalTornAtEveryLength(t *testing.T) {
	full, offsets, want := journalBytes(6)
	for n := 0; n < len(full); n++ {
		rows, info, err := readBytes(t, full[:n])
		if n < journalHeaderLen {
			if err == nil || !strings.Contains(err.Error(), "t.journal") {
				t.Fatalf("cut at %d inside the header: err %v", n, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("cut at %d: %v", n, err)
		}
		whole := 0
		for _, off := range offsets[1:] {
			if off <= n {
				whole++
			}
		}
		if n == len(full) {
			whole = len(want)
		}
		if len(rows) != whole || !sameRows(rows, want[:whole]) {
			t.Fatalf("cut at %d: %d rows, want the %d whole records", n, len(rows), whole)
		}
		isBoundary := n == journalHeaderLen || (whole < len(offsets) && n == offsets[whole])
		if isBoundary != (info.Dropped == "") {
			t.Fatalf("cut at %d: dropped %q", n, info.Dropped)
		}
		if !isBoundary && (!strings.Contains(info.Dropped, "torn last record") || info.Size-info.Valid != int64(n-offsets[whole])) {
			t.Fatalf("cut at %d: %+v", n, info)
		}
	}
	if rows, info, err := readBytes(t, full); err != nil || len(rows) != len(want) || info.Dropped != "" || info.Valid != int64(len(full)) {
		t.Fatalf("whole journal: %d rows, %+v, %v", len(rows), info, err)
	}
}

// A flipped byte anywhere in a record fails its checksum (or its length): reading ends at
// that record, the rows before it are kept, none after it is read.
func TestJournalFlippedByte(t *testing.T) {
	full, offsets, want := journalBytes(5)
	for pos := journalHeaderLen; pos < len(full); pos++ {
		rec := len(offsets) - 1
		for rec > 0 && offsets[rec] > pos {
			rec--
		}
		for _, bit := range []byte{0x01, 0x80} {
			b := bytes.Clone(full)
			b[pos] ^= bit
			rows, info, err := readBytes(t, b)
			if err != nil {
				t.Fatalf("flip at %d: %v", pos, err)
			}
			if len(rows) != rec || !sameRows(rows, want[:rec]) || info.Dropped == "" {
				t.Fatalf("flip %#x at %d (record %d): %d rows, dropped %q", bit, pos, rec, len(rows), info.Dropped)
			}
		}
	}
	for pos := 0; pos < journalHeaderLen; pos++ {
		b := bytes.Clone(full)
		b[pos] ^= 0x04
		if _, _, err := readBytes(t, b); err == nil {
			t.Fatalf("flip at %d in the header: no error", pos)
		}
	}
	// A zero-filled tail (a power loss after the size grew) and another journal's record
	// are damaged, not rows.
	zeros := append(bytes.Clone(full), make([]byte, 64)...)
	if rows, info, _ := readBytes(t, zeros); len(rows) != len(want) || !strings.Contains(info.Dropped, "damaged") {
		t.Fatalf("zero tail: %d rows, %q", len(rows), info.Dropped)
	}
	other := appendRecord(bytes.Clone(full), seedOf([16]byte{9}), &want[0])
	if rows, info, _ := readBytes(t, other); len(rows) != len(want) || !strings.Contains(info.Dropped, "checksum") {
		t.Fatalf("foreign record: %d rows, %q", len(rows), info.Dropped)
	}
}

func TestJournalEmpty(t *testing.T) {
	full, _, _ := journalBytes(0)
	rows, info, err := readBytes(t, full)
	if err != nil || len(rows) != 0 || info.Dropped != "" || info.Created.UnixNano() != 1700000000_000000005 {
		t.Fatalf("%d rows, %+v, %v", len(rows), info, err)
	}
	// An empty run cut before Close: Recover rebuilds an empty, valid file.
	dir := t.TempDir()
	path := filepath.Join(dir, "requests.parquet")
	if err := os.WriteFile(JournalPath(path), full, 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := Recover(path)
	if err != nil || rec == nil || rec.Rows != 0 || !rec.Rebuilt {
		t.Fatalf("recover: %+v, %v", rec, err)
	}
	if got, err := ReadAll(path); err != nil || len(got) != 0 {
		t.Fatalf("%d rows, %v", len(got), err)
	}
}

// TestJournalName: a run's journal is the run folder's requests.journal, beside its rows.
func TestJournalName(t *testing.T) {
	if got := JournalPath(runfolder.Requests); got != runfolder.Journal {
		t.Errorf("JournalPath(%s) = %s, want %s", runfolder.Requests, got, runfolder.Journal)
	}
}
