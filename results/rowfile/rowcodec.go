package rowfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/llm-replay/replay/results"
)

// rowcodec.go is the journal's binary form of one Row: a type byte, a flags byte, the six
// strings (uvarint length, bytes), the seven int64 offsets and seven int32 counts (zigzag
// varints), the chunk offsets (uvarint count, then zigzag varint deltas), then client backlog,
// Retry-After and the attempt number (zigzag varints), then the source line (zigzag varint)
// and the population (a string), then the written offset (zigzag varint), then the API (a
// string), then the trace id and the finish reason (strings), then the model and the SLO class
// (strings), then the first reasoning and first answer offsets (zigzag varints) and the
// reasoning, answer and target reasoning counts (zigzag varints), then the images, audio
// clips and media tokens, the media bytes and the server's media tokens (zigzag varints):
// about half the bytes of the row in requests.parquet. The
// decoder checks every length against the bytes left, so a payload that is not exactly one
// row is an error, never a wrong row.

// rowRecord is the payload type of a record holding one Row in this layout. rowRecordV1 is
// the layout before client backlog, Retry-After and attempts, rowRecordV2 the one before the
// source line, the population and the cancelled/unforced flags, rowRecordV3 the one before
// the written offset, rowRecordV4 the one before the API, rowRecordV5 the one before the trace
// id and finish reason, rowRecordV6 the one before the model and SLO class, rowRecordV7 the
// one before the reasoning offsets and counts, rowRecordV8 the one before the media counts,
// rowRecordV9 the one before the server's media count; all are still read so that
// a journal left by an older build recovers. A future layout takes a new type byte; the
// journal's magic carries the version of the framing.
const (
	rowRecordV1 byte = 1
	rowRecordV2 byte = 2
	rowRecordV3 byte = 3
	rowRecordV4 byte = 4
	rowRecordV5 byte = 5
	rowRecordV6 byte = 6
	rowRecordV7 byte = 7
	rowRecordV8 byte = 8
	rowRecordV9 byte = 9
	rowRecord   byte = 10
)

// Row flags, the second byte of a row record. Each layout allows the flags it knew.
const (
	flagWarmup    byte = 1
	flagRetried   byte = 2
	flagCancelled byte = 4
	flagUnforced  byte = 8
)

// layoutFlags are the flags each layout's records may carry.
var layoutFlags = map[byte]byte{
	rowRecordV1: flagWarmup,
	rowRecordV2: flagWarmup | flagRetried,
	rowRecordV3: flagWarmup | flagRetried | flagCancelled | flagUnforced,
	rowRecordV4: flagWarmup | flagRetried | flagCancelled | flagUnforced,
	rowRecordV5: flagWarmup | flagRetried | flagCancelled | flagUnforced,
	rowRecordV6: flagWarmup | flagRetried | flagCancelled | flagUnforced,
	rowRecordV7: flagWarmup | flagRetried | flagCancelled | flagUnforced,
	rowRecordV8: flagWarmup | flagRetried | flagCancelled | flagUnforced,
	rowRecordV9: flagWarmup | flagRetried | flagCancelled | flagUnforced,
	rowRecord:   flagWarmup | flagRetried | flagCancelled | flagUnforced,
}

// errRowTrailing and errRowShort are what a payload that is not exactly one row gives.
var (
	errRowShort    = errors.New("row record ends early")
	errRowTrailing = errors.New("bytes after the row's last field")
)

// appendRow appends r's payload to b.
func appendRow(b []byte, r *results.Row) []byte {
	b = append(b, rowRecord, rowFlags(r))
	for _, s := range [...]string{r.RequestID, r.SessionID, r.ErrorClass, r.ErrorMessage, r.Endpoint, r.Prompt} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for _, v := range [...]int64{r.OriginalTimestampNS, r.ScheduledNS, r.SentNS, r.QueueWaitNS,
		r.FirstTokenNS, r.LastTokenNS, r.DoneNS} {
		b = binary.AppendVarint(b, v)
	}
	for _, v := range [...]int32{r.Turn, r.TargetPromptTokens, r.TargetOutputTokens, r.PromptTokens,
		r.CompletionTokens, r.CachedTokens, r.HTTPStatus} {
		b = binary.AppendVarint(b, int64(v))
	}
	b = binary.AppendUvarint(b, uint64(len(r.ChunkNS)))
	b = appendDeltas(b, r.ChunkNS)
	b = binary.AppendVarint(b, r.ClientBacklogNS)
	b = binary.AppendVarint(b, r.RetryAfterNS)
	b = binary.AppendVarint(b, int64(r.Attempt))
	b = binary.AppendVarint(b, r.Line)
	b = binary.AppendUvarint(b, uint64(len(r.Population)))
	b = append(b, r.Population...)
	b = binary.AppendVarint(b, r.WrittenNS)
	b = binary.AppendUvarint(b, uint64(len(r.API)))
	b = append(b, r.API...)
	b = binary.AppendUvarint(b, uint64(len(r.TraceID)))
	b = append(b, r.TraceID...)
	for _, s := range [...]string{r.FinishReason, r.Model, r.SLOClass} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendVarint(b, r.FirstReasoningNS)
	b = binary.AppendVarint(b, r.FirstAnswerNS)
	for _, v := range [...]int32{r.ReasoningTokens, r.AnswerTokens, r.TargetReasoningTokens, r.Images, r.AudioClips, r.MediaTokens} {
		b = binary.AppendVarint(b, int64(v))
	}
	b = binary.AppendVarint(b, r.MediaBytes)
	return binary.AppendVarint(b, int64(r.ServerMediaTokens))
}

// rowFlags packs r's booleans into a row record's flags byte.
func rowFlags(r *results.Row) byte {
	var flags byte
	for _, f := range [...]struct {
		set  bool
		flag byte
	}{{r.Warmup, flagWarmup}, {r.Retried, flagRetried}, {r.CancelledAsLogged, flagCancelled}, {r.Unforced, flagUnforced}} {
		if f.set {
			flags |= f.flag
		}
	}
	return flags
}

// appendDeltas appends each offset's difference from the one before as a zigzag varint
// (wrapping, and unwrapped the same way, on overflow), into room grown once: the chunk list
// is most of a row's bytes and of its encoding time.
func appendDeltas(b []byte, offsets []int64) []byte {
	b = slices.Grow(b, len(offsets)*binary.MaxVarintLen64)
	n := len(b)
	b = b[:cap(b)]
	var prev int64
	for _, c := range offsets {
		d := c - prev
		x := uint64(d<<1) ^ uint64(d>>63)
		for x >= 0x80 {
			b[n] = byte(x) | 0x80
			x >>= 7
			n++
		}
		b[n] = byte(x)
		n++
		prev = c
	}
	return b[:n]
}

// rowDecoder reads one payload; the first error sticks and later reads return zeros.
type rowDecoder struct {
	b   []byte
	err error
}

func (d *rowDecoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
	d.b = nil
}

func (d *rowDecoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail(errRowShort)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *rowDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(errRowShort)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *rowDecoder) int32() int32 {
	v := d.varint()
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.fail(fmt.Errorf("count %d out of int32 range", v))
		return 0
	}
	return int32(v)
}

func (d *rowDecoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail(errRowShort)
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// decodeRow is appendRow's inverse. The row's strings and slices are its own (not b's).
func decodeRow(b []byte) (results.Row, error) {
	if len(b) < 2 {
		return results.Row{}, errRowShort
	}
	layout := b[0]
	allowed, known := layoutFlags[layout]
	if !known || b[1]&^allowed != 0 {
		return results.Row{}, fmt.Errorf("unknown record type %d or flags %#x", b[0], b[1])
	}
	var r results.Row
	r.Warmup = b[1]&flagWarmup != 0
	r.Retried = b[1]&flagRetried != 0
	r.CancelledAsLogged = b[1]&flagCancelled != 0
	r.Unforced = b[1]&flagUnforced != 0
	d := rowDecoder{b: b[2:]}
	for _, s := range [...]*string{&r.RequestID, &r.SessionID, &r.ErrorClass, &r.ErrorMessage, &r.Endpoint, &r.Prompt} {
		*s = d.str()
	}
	for _, v := range [...]*int64{&r.OriginalTimestampNS, &r.ScheduledNS, &r.SentNS, &r.QueueWaitNS,
		&r.FirstTokenNS, &r.LastTokenNS, &r.DoneNS} {
		*v = d.varint()
	}
	for _, v := range [...]*int32{&r.Turn, &r.TargetPromptTokens, &r.TargetOutputTokens, &r.PromptTokens,
		&r.CompletionTokens, &r.CachedTokens, &r.HTTPStatus} {
		*v = d.int32()
	}
	r.ChunkNS = d.chunks()
	if layout >= rowRecordV2 {
		r.ClientBacklogNS = d.varint()
		r.RetryAfterNS = d.varint()
		r.Attempt = d.int32()
	}
	if layout >= rowRecordV3 {
		r.Line = d.varint()
		r.Population = d.str()
	}
	if layout >= rowRecordV4 {
		r.WrittenNS = d.varint()
	}
	if layout >= rowRecordV5 {
		r.API = d.str()
	}
	if layout >= rowRecordV6 {
		r.TraceID = d.str()
		r.FinishReason = d.str()
	}
	if layout >= rowRecordV7 {
		r.Model = d.str()
		r.SLOClass = d.str()
	}
	r.TargetReasoningTokens = -1
	if layout >= rowRecordV8 {
		r.FirstReasoningNS = d.varint()
		r.FirstAnswerNS = d.varint()
		r.ReasoningTokens, r.AnswerTokens, r.TargetReasoningTokens = d.int32(), d.int32(), d.int32()
	}
	if layout >= rowRecordV9 {
		r.Images, r.AudioClips, r.MediaTokens = d.int32(), d.int32(), d.int32()
		r.MediaBytes = d.varint()
	}
	if layout >= rowRecord {
		r.ServerMediaTokens = d.int32()
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = errRowTrailing
	}
	return r, d.err
}

// chunks reads the chunk offsets; each takes at least one byte, which bounds the count.
func (d *rowDecoder) chunks() []int64 {
	n := d.uvarint()
	if n == 0 || d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.fail(errRowShort)
		return nil
	}
	out := make([]int64, n)
	var prev int64
	for i := range out {
		prev += d.varint()
		out[i] = prev
	}
	return out
}
