package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/runfolder"
)

// A calibrated run's split of TTFT outlives the run: `replay report` of its folder splits it
// again with the calibration the run kept beside its rows, the same figures; a run killed
// mid-way is recovered with its split; a calibration.json older than a killed uncalibrated
// run's journal (a calibrate folder reused) is not taken for its own; and `replay report
// --calibration` splits a run that had none.
func TestReportKeepsCalibration(t *testing.T) {
	bin := replayBin(t)
	tmp := t.TempDir()
	trace := filepath.Join(tmp, "trace.jsonl")
	if b, err := exec.Command(bin, "gen", "--duration", "6s", "--rate", "4", "--seed", "5", "--out", trace).CombinedOutput(); err != nil {
		t.Fatalf("replay gen: %v\n%s", err, b)
	}
	calDir := filepath.Join(tmp, "cal")
	if err := os.MkdirAll(calDir, 0o755); err != nil {
		t.Fatal(err)
	}
	cal := &analysis.Calibration{Version: analysis.CalibrationVersion, Points: []analysis.CalPoint{
		{Kind: analysis.PointUncached, PromptTokens: 100, UncachedTokens: 100, TTFTMS: 20},
		{Kind: analysis.PointUncached, PromptTokens: 1000, UncachedTokens: 1000, TTFTMS: 60},
	}}
	if err := analysis.FitCalibration(cal); err != nil {
		t.Fatal(err)
	}
	if err := analysis.WriteCalibration(calDir, cal); err != nil {
		t.Fatal(err)
	}
	run := func(dir string, extra ...string) *exec.Cmd {
		args := append([]string{"run", "--trace", trace, "--speed", "2", "--max-lateness", "0", "--out", dir}, extra...)
		cmd := exec.Command(bin, args...)
		cmd.Stderr = &bytes.Buffer{}
		return cmd
	}
	report := func(dir string, extra ...string) *analysis.Summary {
		t.Helper()
		b, err := exec.Command(bin, append([]string{"report", dir, "--quiet"}, extra...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("replay report %s: %v\n%s", dir, err, b)
		}
		s, err := analysis.ReadSummary(filepath.Join(dir, runfolder.Summary))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	// A whole run, then its report again.
	whole := filepath.Join(tmp, "whole")
	if cmd := run(whole, "--calibration", calDir); cmd.Run() != nil {
		t.Fatalf("calibrated run: %s", cmd.Stderr)
	}
	first, err := analysis.ReadSummary(filepath.Join(whole, runfolder.Summary))
	if err != nil || first.Queueing == nil || first.Run.Calibration != runfolder.Calibration {
		t.Fatalf("calibrated run: %v, queueing %+v, run.calibration %q", err, first.Queueing, first.Run.Calibration)
	}
	csv1, err := os.ReadFile(filepath.Join(whole, runfolder.Queueing))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(whole, runfolder.Queueing)); err != nil {
		t.Fatal(err)
	}
	again := report(whole)
	csv2, err := os.ReadFile(filepath.Join(whole, runfolder.Queueing))
	if err != nil || !reflect.DeepEqual(again.Queueing, first.Queueing) || !bytes.Equal(csv1, csv2) {
		t.Fatalf("report of the calibrated run: queueing %+v, want %+v; queueing.csv %v, same %v", again.Queueing, first.Queueing, err, bytes.Equal(csv1, csv2))
	}

	// Killed mid-way: recovered with its split.
	killed := filepath.Join(tmp, "killed")
	kill := func(cmd *exec.Cmd, dir string) {
		t.Helper()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if st, err := os.Stat(filepath.Join(dir, "requests.journal")); err == nil && st.Size() > 0 && strings.Contains(cmd.Stderr.(*bytes.Buffer).String(), "open-loop") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("run into %s wrote no rows within 60 s", dir)
			}
		}
		time.Sleep(1500 * time.Millisecond)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	kill(run(killed, "--calibration", filepath.Join(calDir, runfolder.Calibration), "--snapshot-every", "0"), killed)
	cut := report(killed)
	if !cut.Run.Recovered || cut.Queueing == nil || cut.Queueing.Requests == 0 || cut.Queueing.Curve != first.Queueing.Curve {
		t.Fatalf("killed calibrated run, reported: recovered %v, queueing %+v", cut.Run.Recovered, cut.Queueing)
	}

	// An uncalibrated run killed in a folder holding an older calibration.json.
	reused := filepath.Join(tmp, "reused")
	if err := os.MkdirAll(reused, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := analysis.WriteCalibration(reused, cal); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(reused, runfolder.Calibration), old, old); err != nil {
		t.Fatal(err)
	}
	kill(run(reused, "--snapshot-every", "0"), reused)
	if s := report(reused); s.Queueing != nil || s.Run.Calibration != "" {
		t.Fatalf("killed uncalibrated run beside an older calibration.json: queueing %+v, run.calibration %q, want none", s.Queueing, s.Run.Calibration)
	}

	// Split after the fact.
	if s := report(reused, "--calibration", calDir); s.Queueing == nil || s.Run.Calibration != runfolder.Calibration {
		t.Fatalf("report --calibration: queueing %+v, run.calibration %q", s.Queueing, s.Run.Calibration)
	}
	if s := report(reused); s.Queueing == nil {
		t.Fatalf("report after report --calibration: the split is gone")
	}
	t.Logf("whole run: %d requests split, mean queueing %.2f ms; killed run: %d split", first.Queueing.Requests, first.Queueing.MeanQueueingMS, cut.Queueing.Requests)
}
