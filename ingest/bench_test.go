package ingest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/snappy"

	"github.com/llm-replay/replay/internal/pqcheck"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/trace"
)

// benchRead ingests path b.N times and reports records/s, input MB/s, bytes allocated per
// record and the heap still in use at the end of a read per record (what "resident" costs).
func benchRead(b *testing.B, path string, opts Options) {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	var ms0, ms1 runtime.MemStats
	var resident uint64
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	cpu0 := testenv.CPUTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := Open(path, opts)
		if err != nil {
			b.Fatal(err)
		}
		var k int64
		for {
			_, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			k++
		}
		if i == 0 {
			b.StopTimer()
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > ms0.HeapInuse {
				resident = m.HeapInuse - ms0.HeapInuse
			}
			b.StartTimer()
		}
		r.Close()
		n += k
	}
	b.StopTimer()
	cpu := (testenv.CPUTime() - cpu0).Seconds()
	runtime.ReadMemStats(&ms1)
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(n)/secs, "rec/s")
	// The machine is shared: records per second of this process's CPU time (user+sys, GC
	// included) is the figure that does not depend on what else runs.
	b.ReportMetric(float64(n)/cpu, "rec/cpu-s")
	b.ReportMetric(float64(st.Size())*float64(b.N)/secs/1e6, "MB/s")
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(n), "allocB/rec")
	b.ReportMetric(float64(resident)/float64(n/int64(b.N)), "residentB/rec")
	b.ReportMetric(float64(st.Size())*float64(b.N)/float64(n), "fileB/rec")
}

func BenchmarkIngestMooncake(b *testing.B) {
	benchRead(b, sharedTrace(b, "mooncake_synthetic.jsonl"), Options{})
}

func BenchmarkIngestAzure(b *testing.B) {
	benchRead(b, sharedTrace(b, "azure2023_conv.csv"), Options{})
}

// bench1M holds the generated 1M-record files, made once per test binary run.
var bench1M struct {
	once                sync.Once
	dir                 string
	jsonl, csv, parquet string
	// parquetCSV is the normalized Parquet of the CSV: the same rows without block hashes.
	parquetCSV string
	// parquetExport is the same rows as a warehouse export would hold them (epoch
	// milliseconds, two counts and a model name, Snappy), read through --map.
	parquetExport string
	err           error
}

// exportRow is a row of a warehouse-style Parquet export of requests.
type exportRow struct {
	TsMs         int64  `parquet:"ts_ms"`
	Model        string `parquet:"model,dict"`
	PromptTokens int64  `parquet:"prompt_tokens"`
	OutputTokens int64  `parquet:"completion_tokens"`
}

// exportMap is how BenchmarkIngest1M reads parquetExport.
var exportMap = Options{Format: FormatParquet, TimeUnit: "ms", Map: map[string]string{
	"timestamp": "ts_ms", "prompt_tokens": "prompt_tokens", "output_tokens": "completion_tokens", "model": "model"}}

// make1M writes a 1M-record Mooncake-shaped JSONL (the real trace's rows repeated with shifted
// times and renumbered hashes), an Azure-shaped CSV, and the normalized Parquet of each.
func make1M(b *testing.B) {
	// Found outside the Once: a skip inside it (the traces absent) would mark it done with
	// nothing made, and every later benchmark would run on empty paths instead of skipping.
	mooncake := sharedTrace(b, "mooncake_synthetic.jsonl")
	bench1M.once.Do(func() {
		dir, err := os.MkdirTemp("", "ingest-bench-")
		if err != nil {
			bench1M.err = err
			return
		}
		bench1M.dir = dir
		src, _, err := ReadAll(mooncake, Options{})
		if err != nil {
			bench1M.err = err
			return
		}
		const n = 1_000_000
		bench1M.jsonl = filepath.Join(dir, "1m.jsonl")
		bench1M.csv = filepath.Join(dir, "1m.csv")
		bench1M.parquet = filepath.Join(dir, "1m.parquet")
		jf, _ := os.Create(bench1M.jsonl)
		cf, _ := os.Create(bench1M.csv)
		jw, cw := bufio.NewWriter(jf), bufio.NewWriter(cf)
		pw, err := trace.CreateFile(bench1M.parquet)
		if err != nil {
			bench1M.err = err
			return
		}
		fmt.Fprintln(cw, "TIMESTAMP,ContextTokens,GeneratedTokens")
		span := src[len(src)-1].Timestamp.Milliseconds() + 1
		var hashes []uint64
		var ids []int
		var line []byte
		for i := 0; i < n; i++ {
			r := src[i%len(src)]
			lap := int64(i / len(src))
			ms := lap*span + r.Timestamp.Milliseconds()
			hashes, ids = hashes[:0], ids[:0]
			for _, h := range r.BlockHashes {
				h += uint64(lap) * 1_000_000
				hashes = append(hashes, h)
				ids = append(ids, int(h))
			}
			line = testenv.AppendMooncake(line[:0], testenv.MooncakeRecord{Timestamp: float64(ms),
				InputLength: r.PromptTokens, OutputLength: r.OutputTokens, HashIDs: ids})
			jw.Write(line)
			sec := ms / 1000
			fmt.Fprintf(cw, "2023-11-%02d %02d:%02d:%02d.%03d0000,%d,%d\n", 1+sec/86400, sec/3600%24, sec/60%60, sec%60, ms%1000, r.PromptTokens, r.OutputTokens)
			rec := r
			rec.BlockHashes = hashes
			rec.Timestamp = msDuration(ms)
			if err := pw.Write(rec); err != nil {
				bench1M.err = err
				return
			}
		}
		jw.Flush()
		cw.Flush()
		jf.Close()
		cf.Close()
		if bench1M.err = pw.Close(); bench1M.err != nil {
			return
		}
		bench1M.parquetCSV = filepath.Join(dir, "1m-csv.parquet")
		if bench1M.err = convert(bench1M.csv, bench1M.parquetCSV, Options{Format: FormatAzure}); bench1M.err != nil {
			return
		}
		bench1M.parquetExport = filepath.Join(dir, "1m-export.parquet")
		bench1M.err = writeExport(bench1M.parquetExport, src, n, span)
	})
	if bench1M.err != nil {
		b.Fatal(bench1M.err)
	}
}

// BenchmarkIngest1M reads each 1M-record file under Go's default collector setting and under
// StreamGCPercent, the one replay ingest converts traces with.
func BenchmarkIngest1M(b *testing.B) {
	make1M(b)
	for _, gc := range []string{"gogc=100", "stream-gc"} {
		run := func(name, path string, o Options) {
			b.Run(name+"/"+gc, func(b *testing.B) {
				if gc == "stream-gc" {
					defer debug.SetGCPercent(debug.SetGCPercent(StreamGCPercent))
				} else {
					defer debug.SetGCPercent(debug.SetGCPercent(100))
				}
				benchRead(b, path, o)
			})
		}
		run("jsonl", bench1M.jsonl, Options{Format: FormatMooncake})
		run("csv", bench1M.csv, Options{Format: FormatAzure})
		run("parquet", bench1M.parquet, Options{Format: FormatParquet})
		run("parquet-nohash", bench1M.parquetCSV, Options{Format: FormatParquet})
		run("parquet-export", bench1M.parquetExport, exportMap)
		// The Mooncake-shaped normalized file through --map: a list column by the generic reader.
		run("parquet-mapped", bench1M.parquet, Options{Format: FormatParquet, TimeUnit: "ns", BlockSize: 512, Map: map[string]string{
			"timestamp": "timestamp_ns", "prompt_tokens": "prompt_tokens", "output_tokens": "output_tokens", "block_hashes": "block_hashes"}})
	}
}

// writeExport writes n rows of src (repeated with shifted times) as a warehouse export.
func writeExport(path string, src []trace.Record, n int, spanMs int64) error {
	rows := make([]exportRow, n)
	for i := range rows {
		r := src[i%len(src)]
		rows[i] = exportRow{
			TsMs:  int64(i/len(src))*spanMs + r.Timestamp.Milliseconds(),
			Model: []string{"llama-3.1-8b", "qwen3-32b"}[i%2], PromptTokens: int64(r.PromptTokens), OutputTokens: int64(r.OutputTokens),
		}
	}
	return writeRows(path, rows, parquet.Compression(&snappy.Codec{}))
}

// convert writes the normalized Parquet of the trace at src to dst.
func convert(src, dst string, opts Options) error {
	r, err := Open(src, opts)
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := trace.CreateFile(dst)
	if err != nil {
		return err
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return w.Close()
		}
		if err != nil {
			w.Close()
			return err
		}
		if err := w.Write(rec); err != nil {
			w.Close()
			return err
		}
	}
}

// TestMain removes the generated benchmark files.
func TestMain(m *testing.M) {
	code := m.Run()
	if bench1M.dir != "" {
		os.RemoveAll(bench1M.dir)
	}
	os.Exit(code)
}

func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

// BenchmarkIngestParquetMooncake reads the normalized Parquet of the Mooncake trace.
func BenchmarkIngestParquetMooncake(b *testing.B) {
	recs, _, err := ReadAll(sharedTrace(b, "mooncake_synthetic.jsonl"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "m.parquet")
	w, err := trace.CreateFile(p)
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range recs {
		w.Write(r)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	benchRead(b, p, Options{})
}

// BenchmarkParquetOpen is what opening the 1M normalized file costs before a row is read:
// parquet-go's footer decoding and pqcheck's walk over the footer and every page header.
func BenchmarkParquetOpen(b *testing.B) {
	make1M(b)
	f, err := os.Open(bench1M.parquet)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := pqcheck.Open(f, st.Size()); err != nil {
			b.Fatal(err)
		}
	}
}
