package sweep

import (
	"bytes"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/report"
)

// sweepFixture is a sweep of an endpoint that saturates between 4x and 8x: TTFT p95 flat, then
// two orders of magnitude up; throughput rising with the speed, then flat. Without held, no
// speed holds.
func sweepFixture(held bool) SpeedPage {
	type pt struct {
		speed, ttft, e2e, tok, reqs, met float64
	}
	pts := []pt{
		{1, 120, 900, 1000, 5, 100},
		{2, 135, 950, 2000, 10, 99.5},
		{4, 190, 1300, 3900, 19.5, 97},
		{8, 9500, 21000, 4300, 21, 12},
	}
	sp := SpeedPage{SLO: "ttft=500ms,e2e=10s", TargetPct: 95}
	for _, p := range pts {
		if !held {
			p.met /= 2
		}
		perM := 2.0 / (p.tok * 3600) * 1e6
		s := &analysis.Summary{
			TTFTSched:  analysis.Dist{P95: p.ttft},
			E2ESched:   analysis.Dist{P95: p.e2e},
			Throughput: analysis.Throughput{OutputTokS: p.tok, ReqS: p.reqs},
			Goodput:    &analysis.Goodput{SLO: sp.SLO, LimitsMS: map[string]float64{"ttft": 500, "e2e": 10000}, AllPct: p.met},
			Cost:       &analysis.Cost{PerGPUHour: 2, GPUs: 1, PerMOutputTokensSLO: &perM},
		}
		holds := p.met >= sp.TargetPct
		sp.Runs = append(sp.Runs, SpeedRun{Speed: p.speed, Dir: "speed-" + strconv.FormatFloat(p.speed, 'g', -1, 64), Summary: s, Holds: holds})
		if holds {
			sp.Knee = p.speed
		}
	}
	return sp
}

// svgTexts parses every inline SVG of a page as XML and returns each one's text elements.
func svgTexts(t *testing.T, page string) [][]string {
	t.Helper()
	var out [][]string
	for rest := page; ; {
		i := strings.Index(rest, "<svg")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "</svg>")
		if j < 0 {
			t.Fatal("an <svg> is never closed")
		}
		doc := rest[i : i+j+len("</svg>")]
		rest = rest[i+j:]
		dec := xml.NewDecoder(strings.NewReader(doc))
		var texts []string
		inText := false
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("SVG %d does not parse: %v", len(out)+1, err)
			}
			switch el := tok.(type) {
			case xml.StartElement:
				inText = el.Name.Local == "text"
			case xml.CharData:
				if inText {
					texts = append(texts, string(el))
				}
			case xml.EndElement:
				inText = false
			}
		}
		out = append(out, texts)
	}
	return out
}

func has(texts []string, s string) bool {
	for _, x := range texts {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

func TestSweepReportGolden(t *testing.T) {
	sp := sweepFixture(true)
	var buf bytes.Buffer
	if err := WriteSpeedHTML(&buf, sp, report.Options{NoEmbedFont: true}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, bad := range []string{"http://", "https://", "src=", "<script", "<link"} {
		for _, line := range strings.Split(page, "\n") {
			if strings.Contains(line, bad) && !strings.Contains(line, "xmlns") {
				t.Errorf("sweep.html references %q: %.120s", bad, line)
				break
			}
		}
	}
	svgs := svgTexts(t, page)
	if len(svgs) != 4 {
		t.Fatalf("%d inline SVGs, want 4 (latency, output tokens, requests, goodput)", len(svgs))
	}
	lat, tok, good := svgs[0], svgs[1], svgs[3]
	for _, want := range []string{"TTFT p95", "SLO ttft 500 ms", "e2e p95", "SLO e2e 10000 ms", "knee 4x", "log scale"} {
		if !has(lat, want) {
			t.Errorf("latency plot lacks %q: %q", want, lat)
		}
	}
	if !has(tok, "output tokens / s") || !has(tok, "knee 4x") {
		t.Errorf("throughput plot: %q", tok)
	}
	if !has(good, "target 95%") || !has(good, "knee 4x") {
		t.Errorf("goodput plot: %q", good)
	}
	if !strings.Contains(page, "<b>Knee: 4x</b>") || !strings.Contains(page, `<a href="speed-8/report.html">`) {
		t.Error("verdict or run links missing")
	}
	checkGolden(t, "sweep.golden.html", buf.Bytes())
}

func TestSweepReportNoKnee(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSpeedHTML(&buf, sweepFixture(false), report.Options{NoEmbedFont: true}); err != nil {
		t.Fatal(err)
	}
	svgs := svgTexts(t, buf.String())
	if len(svgs) != 4 || has(svgs[0], "knee") || !has(svgs[0], "SLO ttft") {
		t.Fatalf("no-knee sweep: %d plots, latency texts %q", len(svgs), svgs[0])
	}
	if !strings.Contains(buf.String(), "No speed tried held") {
		t.Error("no verdict")
	}
	// No runs at all (the first speed's run failed to start): still a page, no panic.
	buf.Reset()
	if err := WriteSpeedHTML(&buf, SpeedPage{SLO: "ttft=1s", TargetPct: 95}, report.Options{NoEmbedFont: true}); err != nil {
		t.Fatal(err)
	}
	if err := WriteSpeedHTML(&buf, SpeedPage{Runs: []SpeedRun{{Speed: 1}}}, report.Options{}); err == nil {
		t.Error("a run without a summary rendered")
	}
}

// TestSweepReportWithFont writes the page as a sweep does, font embedded, for a look
// (-report-dir) and the size check.
func TestSweepReportWithFont(t *testing.T) {
	dir := t.TempDir()
	if *reportDir != "" {
		dir = *reportDir
	}
	var buf bytes.Buffer
	if err := WriteSpeedHTML(&buf, sweepFixture(true), report.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, PageFile), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "@font-face") || buf.Len() > 1500*1024 {
		t.Errorf("sweep.html: %d bytes, font embedded %v", buf.Len(), strings.Contains(buf.String(), "@font-face"))
	}
}

var (
	update    = flag.Bool("update", false, "rewrite the golden files under testdata/")
	reportDir = flag.String("report-dir", "", "also write the full sweep.html (font embedded) here, to look at")
)

// checkGolden holds got to testdata/name (-update rewrites it).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	testenv.Golden(t, filepath.Join("testdata", name), got, *update)
}
