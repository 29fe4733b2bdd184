package compare

import (
	"strings"
	"testing"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/runner"
)

// TestMediaGrid: the paired page lays each endpoint's media populations side by side, TTFT
// where one streamed and e2e where not, a dash where an endpoint had none, and nothing for a
// run without media.
func TestMediaGrid(t *testing.T) {
	ttft := analysis.Dist{P50: 120, P95: 300}
	a := &analysis.Summary{Media: &analysis.Media{Populations: map[string]analysis.Population{
		analysis.MediaNone:     {Requests: 10, TTFT: &analysis.Dist{P50: 40, P95: 90}},
		analysis.MediaOneImage: {Requests: 5, TTFT: &ttft},
	}}}
	b := &analysis.Summary{Media: &analysis.Media{Populations: map[string]analysis.Population{
		analysis.MediaNone: {Requests: 10, E2E: analysis.Dist{P50: 800, P95: 1200}},
	}}}
	rows := mediaGrid([]runner.EndpointResult{{Summary: a}, {Summary: b}, {}})
	if len(rows) != 2 || rows[0].Name != analysis.MediaNone || rows[1].Name != analysis.MediaOneImage {
		t.Fatalf("rows %+v: want text only and 1 image", rows)
	}
	if c := rows[0].Cells; len(c) != 3 || !strings.HasPrefix(c[0], "ttft ") || !strings.HasPrefix(c[1], "e2e ") || c[2] != "-" {
		t.Errorf("text only: %q", c)
	}
	if c := rows[1].Cells; c[1] != "-" || !strings.Contains(c[0], "(5)") {
		t.Errorf("1 image: %q", c)
	}
	if mediaGrid([]runner.EndpointResult{{Summary: &analysis.Summary{}}}) != nil {
		t.Error("a run without media has a media grid")
	}
}

// TestGroupGrid: the paired page lays each endpoint's classes and models side by side, a dash
// where an endpoint has none of a group.
func TestGroupGrid(t *testing.T) {
	a := &analysis.Summary{SLOClasses: map[string]analysis.Group{"chat": {Requests: 7, Goodput: &analysis.Goodput{AllPct: 99}}},
		Models: map[string]analysis.Group{"big": {Requests: 7}}}
	b := &analysis.Summary{SLOClasses: map[string]analysis.Group{"chat": {Requests: 7, Goodput: &analysis.Goodput{AllPct: 80}}}}
	rows := groupGrid([]runner.EndpointResult{{Summary: a}, {Summary: b}})
	if len(rows) != 2 || rows[0].Name != "class chat" || rows[1].Name != "model big" {
		t.Fatalf("rows %+v", rows)
	}
	if c := rows[0].Cells; !strings.Contains(c[0], "goodput 99.0%") || !strings.Contains(c[1], "goodput 80.0%") {
		t.Errorf("class chat: %q", c)
	}
	if c := rows[1].Cells; c[1] != "-" {
		t.Errorf("model big at b: %q", c[1])
	}
	if groupGrid([]runner.EndpointResult{{Summary: &analysis.Summary{}}}) != nil {
		t.Error("a run without classes has a group grid")
	}
}
