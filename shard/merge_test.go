package shard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
)

func merge(t *testing.T, dirs []string) (string, *Result) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "merged")
	r, err := Merge(context.Background(), out, dirs)
	if err != nil {
		t.Fatal(err)
	}
	return out, r
}

func readRows(t *testing.T, dir string) []results.Row {
	t.Helper()
	rows, err := rowfile.ReadAll(filepath.Join(dir, runfolder.Requests))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// Four shards merged hold exactly the run's rows: the same request ids, none twice, none
// missing, every field as written; and shards.json's row ranges say which shard each came
// from.
func TestMergeFourShardsExactRows(t *testing.T) {
	rows := runRows(3000, 1, 200)
	dirs := writeShards(t, rows, 4)
	out, res := merge(t, dirs)
	got := readRows(t, out)
	sameRows(t, measured(got), rows)
	if !reflect.DeepEqual(ids(measured(got)), ids(rows)) {
		t.Fatal("merged request ids differ from the run's")
	}
	if res.Rows != int64(len(got)) || len(res.Missing) != 0 {
		t.Fatalf("result: %d rows, missing %v; the file has %d", res.Rows, res.Missing, len(got))
	}
	man, err := ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	split := splitShards(rows, 4)
	var ranged int64
	for k, f := range man.Folders {
		if f.Shard != k || f.Folder != dirs[k] || f.FirstRow != ranged {
			t.Fatalf("shards.json folder %d: %+v, want shard %d of %s from row %d", k, f, k, dirs[k], ranged)
		}
		// The range holds the shard's warmup row, then its rows in its file's order.
		span := got[f.FirstRow : f.FirstRow+f.Rows]
		sameRows(t, measured(span), split[k])
		if f.RequestIDs != int64(len(ids(split[k]))) || f.WarmupRows != 1 {
			t.Fatalf("shard %d: %d request ids and %d warmup rows, want %d and 1", k, f.RequestIDs, f.WarmupRows, len(ids(split[k])))
		}
		ranged += f.Rows
	}
	if ranged != int64(len(got)) {
		t.Fatalf("shards.json ranges cover %d rows of %d", ranged, len(got))
	}
	if s := man.Schedule; s.Sent != int64(len(ids(rows))) || s.NotSent != 0 || len(s.Missing) != 0 {
		t.Fatalf("schedule %+v, want %d sent", s, len(ids(rows)))
	}
}

// The merged summary is the one a single aggregation over all rows gives, percentile for
// percentile: never the shards' figures combined.
func TestMergePercentilesExact(t *testing.T) {
	rows := runRows(4000, 2, 300)
	dirs := writeShards(t, rows, 4)
	out, res := merge(t, dirs)
	single := analysis.NewMetrics(analysis.Options{Speed: 1})
	for _, r := range rows {
		single.Add(&r)
	}
	want := single.Summary(analysis.RunInfo{})
	want.Requests.Warmup = 4 // each shard's one warmup row, not in rows
	got, err := analysis.ReadSummary(filepath.Join(out, runfolder.Summary))
	if err != nil {
		t.Fatal(err)
	}
	for name, pair := range map[string][2]analysis.Dist{
		"ttft": {got.TTFT, want.TTFT}, "ttft_sched": {got.TTFTSched, want.TTFTSched}, "itl": {got.ITL, want.ITL},
		"tpot": {got.TPOT, want.TPOT}, "e2e": {got.E2E, want.E2E}, "e2e_sched": {got.E2ESched, want.E2ESched},
		"lateness": {got.Lateness, want.Lateness}, "queue_wait": {got.QueueWait, want.QueueWait},
	} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Errorf("%s: merged %+v, single aggregation %+v", name, pair[0], pair[1])
		}
	}
	for name, pair := range map[string][2]any{
		"requests": {got.Requests, want.Requests}, "throughput": {got.Throughput, want.Throughput},
		"fidelity": {got.Fidelity, want.Fidelity}, "errors": {got.Errors, want.Errors}, "sessions": {got.Sessions, want.Sessions},
	} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Errorf("%s: merged %+v, single aggregation %+v", name, pair[0], pair[1])
		}
	}
	if got.Requests.Warmup != 4 || got.Verdict != "valid: endpoint healthy" || res.Summary.Verdict != got.Verdict {
		t.Errorf("warmup %d (want each shard's 1), verdict %q", got.Requests.Warmup, got.Verdict)
	}
	// The test has teeth: the shards' own p99s differ from the merged one, so averaging them
	// would not pass.
	var mean float64
	for _, d := range dirs {
		s, err := analysis.ReadSummary(filepath.Join(d, runfolder.Summary))
		if err != nil {
			t.Fatal(err)
		}
		mean += s.TTFT.P99 / float64(len(dirs))
	}
	if mean == got.TTFT.P99 {
		t.Errorf("the shards' mean TTFT p99 equals the merged one (%v): the rows do not tell averaging from merging", mean)
	}
	page, err := os.ReadFile(filepath.Join(out, runfolder.Report))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `id="shards"`) || !strings.Contains(string(page), "combined schedule of 4 shards") {
		t.Error("report.html does not carry the combined schedule's line")
	}
}

// Shards of different traces, splits, starts or schedules are refused, naming both folders.
func TestMergeRefusesOtherSchedules(t *testing.T) {
	other := func(change func(*Info)) Info { i := shardInfo(1, 2); change(&i); return i }
	cases := map[string]struct {
		second Info
		want   string
	}{
		"trace": {other(func(i *Info) { i.Trace = IdentityOfBytes("other.jsonl", []byte("another trace\n")) }), "shards of different traces are not one run"},
		// Same name, other content: the hash tells them apart.
		"trace content": {other(func(i *Info) { i.Trace = IdentityOfBytes("test.jsonl", []byte("the test trace, edited\n")) }), "different traces"},
		"split":         {other(func(i *Info) { i.Shards, i.Shard = 3, 1 }), "shards of different splits"},
		"start":         {other(func(i *Info) { i.StartAt = testStart.Add(time.Second) }), "share one --start-at"},
		"schedule":      {other(func(i *Info) { i.Schedule = "speed=2" }), "share their schedule flags"},
		"same shard":    {other(func(i *Info) { i.Shard = 0 }), "are both shard 0 of 2"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			rows := runRows(40, 3, 100)
			root := t.TempDir()
			a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
			writeShard(t, a, shardRun{info: shardInfo(0, 2), rows: rows[:20]})
			writeShard(t, b, shardRun{info: c.second, rows: rows[20:]})
			out := filepath.Join(root, "merged")
			_, err := Merge(context.Background(), out, []string{a, b})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), b) {
				t.Fatalf("err %v: want one naming %s and %s, saying %q", err, a, b, c.want)
			}
			if _, serr := os.Stat(out); serr == nil {
				t.Error("a refused merge made its output folder")
			}
		})
	}
}

// A request id in two shards is refused, naming the id and both folders, and leaves no
// merged requests.parquet behind.
func TestMergeRefusesDuplicateRequestID(t *testing.T) {
	rows := runRows(60, 4, 100)
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	writeShard(t, a, shardRun{info: shardInfo(0, 2), rows: rows[:30], warmup: 1})
	writeShard(t, b, shardRun{info: shardInfo(1, 2), rows: append([]results.Row{rows[7]}, rows[30:]...), warmup: 1})
	out := filepath.Join(root, "merged")
	_, err := Merge(context.Background(), out, []string{a, b})
	if err == nil || !strings.Contains(err.Error(), `request id "`+rows[7].RequestID+`"`) ||
		!strings.Contains(err.Error(), "shard 0 of 2 ("+a+")") || !strings.Contains(err.Error(), "shard 1 of 2 ("+b+")") {
		t.Fatalf("err %v: want the duplicate id and both shards named", err)
	}
	left, _ := filepath.Glob(filepath.Join(out, "*requests.parquet*"))
	if len(left) != 0 {
		t.Fatalf("a refused merge left %v", left)
	}
}

// A missing shard is named: in the result, shards.json, the schedule's line and the verdict.
func TestMergeNamesMissingShard(t *testing.T) {
	rows := runRows(800, 5, 100)
	dirs := writeShards(t, rows, 4)
	out, res := merge(t, []string{dirs[0], dirs[2], dirs[1]}) // any order; shard 3 absent
	if !reflect.DeepEqual(res.Missing, []int{3}) {
		t.Fatalf("missing %v, want [3]", res.Missing)
	}
	man, err := ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(man.Schedule.Missing, []int{3}) || !strings.Contains(man.Schedule.Line, "shard 3 of 4 is missing: how many requests it held is unknown") {
		t.Fatalf("schedule %+v: want shard 3 of 4 named missing", man.Schedule)
	}
	if v := res.Summary.Verdict; !strings.HasPrefix(v, "valid: endpoint healthy; shard 3 of 4 is missing") || !analysis.VerdictIs(v, analysis.VerdictOK) {
		t.Fatalf("verdict %q: want ok, naming the missing shard", v)
	}
	split := splitShards(rows, 4)
	sameRows(t, measured(readRows(t, out)), append(append(append([]results.Row(nil), split[0]...), split[1]...), split[2]...))
}

// Requests never sent are each shard's count, summed; a cut shard's are unknown and said so.
func TestMergeAccountsNeverSent(t *testing.T) {
	rows := runRows(400, 6, 100)
	root := t.TempDir()
	split := splitShards(rows, 2)
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	writeShard(t, a, shardRun{info: shardInfo(0, 2), rows: split[0], notSent: 5})
	writeShard(t, b, shardRun{info: shardInfo(1, 2), rows: split[1], notSent: 7})
	out, res := merge(t, []string{a, b})
	if res.Schedule.NotSent != 12 || !strings.Contains(res.Schedule.Line, "requests sent, 12 never sent") {
		t.Fatalf("schedule %+v: want 12 never sent", res.Schedule)
	}
	s, err := analysis.ReadSummary(filepath.Join(out, runfolder.Summary))
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests.NotSent != 12 {
		t.Fatalf("summary requests.not_sent %d, want 12", s.Requests.NotSent)
	}
}

// A shard cut before it closed (killed) is made whole from its journal first, its rows
// merged once, its never-sent count unknown, and the merged verdict says it was cut.
func TestMergeRecoversCutShard(t *testing.T) {
	rows := runRows(600, 7, 100)
	split := splitShards(rows, 2)
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	writeShard(t, a, shardRun{info: shardInfo(0, 2), rows: split[0]})
	cutShard(t, b, shardInfo(1, 2), split[1])
	out, res := merge(t, []string{a, b})
	sameRows(t, readRows(t, out), rows)
	f := res.Folders[1]
	if f.Recovery == "" || f.NotSent != nil || !analysis.VerdictIs(f.Verdict, analysis.VerdictCut) {
		t.Fatalf("cut shard: %+v: want its recovery, not_sent unknown, verdict cut", f)
	}
	if !reflect.DeepEqual(res.Schedule.NotSentUnknown, []int{1}) || !strings.Contains(res.Schedule.Line, "an unknown number on shard 1 of 2") {
		t.Fatalf("schedule %+v: want shard 1's never-sent unknown", res.Schedule)
	}
	if v := res.Summary.Verdict; !analysis.VerdictIs(v, analysis.VerdictCut) || !strings.Contains(v, "shard 1 of 2 ("+b+")") {
		t.Fatalf("verdict %q: want cut, naming shard 1", v)
	}
}

// cutShard leaves dir as a shard killed mid-run leaves it: shard.json, requests.parquet
// without a footer and requests.journal, no summary.
func cutShard(t *testing.T, dir string, info Info, rows []results.Row) {
	t.Helper()
	if err := WriteInfo(dir, info); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(t.TempDir(), runfolder.Requests)
	w, err := rowfile.NewWriterWith(live, rowfile.WriterOptions{FlushRows: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	// Copy the files as they are now (the kill), then let the live writer finish elsewhere.
	for _, p := range []string{live, rowfile.JournalPath(live)} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// A shard whose own verdict was client-bound makes the merged verdict client-bound, even when
// its late sends are too few among all rows to move the merged lateness p99: the line starts
// with that shard's verdict word for word and names it. A shard started 2 s late throughout
// is client-bound over all rows too.
func TestMergeClientBoundShard(t *testing.T) {
	for name, lateEvery := range map[string]int{"a few late sends": 40, "started 2 s late": 1} {
		t.Run(name, func(t *testing.T) {
			rows := runRows(4000, 8, 400)
			split := splitShards(rows, 4)
			for i := range split[2] {
				if i%lateEvery == 0 {
					r := &split[2][i]
					const late = int64(2 * time.Second)
					r.SentNS += late
					r.FirstTokenNS += late
					r.LastTokenNS += late
					r.DoneNS += late
					for c := range r.ChunkNS {
						r.ChunkNS[c] += late
					}
				}
			}
			root := t.TempDir()
			var dirs []string
			for k, rs := range split {
				d := filepath.Join(root, "shard-"+string(rune('0'+k)))
				writeShard(t, d, shardRun{info: shardInfo(k, 4), rows: rs})
				dirs = append(dirs, d)
			}
			_, res := merge(t, dirs)
			v := res.Summary.Verdict
			if !analysis.VerdictIs(v, analysis.VerdictClientBound) || !strings.Contains(v, "these figures measure the load generator") {
				t.Fatalf("merged verdict %q: want client-bound", v)
			}
			if lateEvery > 1 && (!strings.Contains(v, "[shard 2 of 4 ("+dirs[2]+")]; over all shards: valid: endpoint healthy") || res.Summary.Lateness.P99 > 10) {
				t.Fatalf("merged verdict %q (lateness p99 %v ms): want shard 2's verdict leading the rows' ok", v, res.Summary.Lateness.P99)
			}
			if lateEvery == 1 && res.Summary.Lateness.P99 < 1900 {
				t.Fatalf("lateness p99 %v ms: want the late shard's 2 s", res.Summary.Lateness.P99)
			}
		})
	}
}

// The output folder may not be a shard's, nor hold a run's journal.
func TestMergeRefusesOutputFolder(t *testing.T) {
	dirs := writeShards(t, runRows(40, 9, 100), 2)
	if _, err := Merge(context.Background(), dirs[1], dirs); err == nil || !strings.Contains(err.Error(), "is one of the shard folders") {
		t.Fatalf("merging into a shard's folder: %v", err)
	}
	out := t.TempDir()
	if err := os.WriteFile(rowfile.JournalPath(filepath.Join(out, runfolder.Requests)), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(context.Background(), out, dirs); err == nil || !strings.Contains(err.Error(), "holds a run's requests.journal") {
		t.Fatalf("merging into a run's folder: %v", err)
	}
	if _, err := Merge(context.Background(), filepath.Join(out, "x"), nil); err == nil {
		t.Fatal("merging no folders: no error")
	}
	notShard := t.TempDir()
	if _, err := Merge(context.Background(), filepath.Join(out, "x"), []string{notShard}); err == nil || !strings.Contains(err.Error(), notShard+": no shard.json") {
		t.Fatalf("merging a folder without shard.json: %v", err)
	}
}

// Shards run with a calibration merge into one split of TTFT over all rows, as a single
// aggregation with it gives, kept beside the merged rows with the calibration itself.
func TestMergeKeepsCalibration(t *testing.T) {
	cal := &analysis.Calibration{Version: analysis.CalibrationVersion, Points: []analysis.CalPoint{
		{Kind: analysis.PointUncached, PromptTokens: 100, UncachedTokens: 100, TTFTMS: 5},
		{Kind: analysis.PointUncached, PromptTokens: 2000, UncachedTokens: 2000, TTFTMS: 40},
	}}
	if err := analysis.FitCalibration(cal); err != nil {
		t.Fatal(err)
	}
	rows := runRows(2000, 4, 200)
	root := t.TempDir()
	var dirs []string
	for k, rs := range splitShards(rows, 4) {
		d := filepath.Join(root, fmt.Sprint("shard-", k))
		writeShard(t, d, shardRun{info: shardInfo(k, 4), rows: rs, cal: cal})
		dirs = append(dirs, d)
	}
	out, _ := merge(t, dirs)
	single := analysis.NewMetrics(analysis.Options{Speed: 1, Calibration: cal})
	for _, r := range rows {
		single.Add(&r)
	}
	want := single.Summary(analysis.RunInfo{}).Queueing
	got, err := analysis.ReadSummary(filepath.Join(out, runfolder.Summary))
	if err != nil {
		t.Fatal(err)
	}
	if want == nil || want.Requests < 1000 || !reflect.DeepEqual(got.Queueing, want) || got.Run.Calibration != runfolder.Calibration {
		t.Fatalf("merged queueing %+v (run.calibration %q), single aggregation %+v", got.Queueing, got.Run.Calibration, want)
	}
	csv, err := os.ReadFile(filepath.Join(out, runfolder.Queueing))
	if err != nil || strings.Count(string(csv), "\n") != int(want.Requests)+1 {
		t.Fatalf("merged queueing.csv: %v, %d lines, want a header and %d rows", err, strings.Count(string(csv), "\n"), want.Requests)
	}
	back, err := analysis.ReadCalibration(out)
	if err != nil || !reflect.DeepEqual(back, cal) {
		t.Fatalf("merged calibration.json: %v, %+v", err, back)
	}
}
