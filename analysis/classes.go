package analysis

import (
	"fmt"

	"github.com/llm-replay/replay/results"
)

// classes.go gives the run's figures per SLO class (--slo-class-by: results.Row's SLOClass,
// each judged by its own --slo-class limits, else the run's --slo) and per served model
// (results.Row's Model, judged by the run's --slo): a mixed endpoint's small model must not
// hide its big one, nor a batch class its interactive one. Each group is a Metrics of its
// own over its rows, so its figures are computed exactly as the run's are.

// Group is one class's or one served model's figures in summary.json: its requests (as the
// run's requests.total counts them), its goodput in the top-level goodput's shape (omitted
// without limits), and its latency distributions.
type Group struct {
	Requests int64    `json:"requests"`
	OK       int64    `json:"ok"`
	Failed   int64    `json:"failed"`
	Goodput  *Goodput `json:"goodput,omitempty"`
	TTFT     Dist     `json:"ttft_ms"`
	ITL      Dist     `json:"itl_ms"`
	E2E      Dist     `json:"e2e_ms"`
}

// groupSet aggregates rows by one key, each group with its own limits.
type groupSet struct {
	speed  float64
	slo    func(key string) SLO
	byName map[string]*Metrics
}

// add counts r in its key's group; a row without a key is in none.
func (g *groupSet) add(key string, r *results.Row) {
	if key == "" {
		return
	}
	m := g.byName[key]
	if m == nil {
		m = NewMetrics(Options{Speed: g.speed, SLO: g.slo(key)})
		m.inGroup = true // its rows name their class too: it must not group them again
		g.byName[key] = m
	}
	m.Add(r)
}

// figures are the groups' figures, goodput's rate over the run's measured span dur; nil for
// no group.
func (g *groupSet) figures(dur float64) map[string]Group {
	if len(g.byName) == 0 {
		return nil
	}
	out := make(map[string]Group, len(g.byName))
	for name, m := range g.byName {
		out[name] = Group{Requests: m.total, OK: m.ok, Failed: m.failed, Goodput: m.goodput(dur),
			TTFT: m.ttft.dist(), ITL: m.itl.dist(), E2E: m.e2e.dist()}
	}
	return out
}

// newGroups makes the class and model aggregations for o.
func newGroups(o Options) (classes, models *groupSet) {
	classes = &groupSet{speed: o.Speed, byName: map[string]*Metrics{}, slo: func(key string) SLO {
		if s, ok := o.ClassSLOs[key]; ok {
			return s
		}
		return o.SLO
	}}
	models = &groupSet{speed: o.Speed, byName: map[string]*Metrics{}, slo: func(string) SLO { return o.SLO }}
	return classes, models
}

// addGroups counts r in its class and its served model.
func (m *Metrics) addGroups(r *results.Row) {
	if m.inGroup || (r.SLOClass == "" && r.Model == "") {
		return
	}
	if m.classes == nil {
		m.classes, m.models = newGroups(m.opts)
	}
	m.classes.add(r.SLOClass, r)
	m.models.add(r.Model, r)
}

// groupFigures fills s's per-class and per-model sections.
func (m *Metrics) groupFigures(s *Summary, dur float64) {
	if m.classes == nil {
		return
	}
	s.SLOClasses = m.classes.figures(dur)
	s.Models = m.models.figures(dur)
}

// classLimits takes the classes' limits from the run's summary (info) when o gives none,
// and writes o's into info, so a rebuilt summary judges each class as the run did.
func classLimits(o *Options, info *RunInfo) error {
	if o.ClassSLOs == nil && len(info.SLOClasses) > 0 {
		o.ClassSLOs = make(map[string]SLO, len(info.SLOClasses))
		for class, text := range info.SLOClasses {
			slo, err := ParseSLO(text)
			if err != nil {
				return fmt.Errorf("class %q: %w", class, err)
			}
			o.ClassSLOs[class] = slo
		}
	}
	info.SLOClasses = ClassLimitsText(o.ClassSLOs)
	return nil
}

// ClassLimitsText is each class's limits as --slo writes them; nil for none.
func ClassLimitsText(slos map[string]SLO) map[string]string {
	if len(slos) == 0 {
		return nil
	}
	out := make(map[string]string, len(slos))
	for class, s := range slos {
		out[class] = s.String()
	}
	return out
}
