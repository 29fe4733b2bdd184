package runner

import (
	"fmt"
	"io"
	"strings"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/routing"
	"github.com/llm-replay/replay/trace"
)

// Routing is where each request goes and how it is told apart (package routing); its zero
// value sends every request to Client.Model with none of its logged headers, in no class.
type Routing struct {
	// ModelMap (--model-map) sends each request to its logged model's target, built and
	// counted by that target's tokenizer (mapped.go); nil sends all to Client.Model.
	ModelMap *routing.Map
	// HeadersLogged (--headers logged) sends each request's logged headers that the
	// allowlist names, HeaderAllow (--header-allow) adding names; credentials never.
	HeadersLogged bool
	HeaderAllow   []string
	// AffinityHeader (--affinity-header) is sent with a value per session
	// (routing.AffinityValue), for routers that hash on one header.
	AffinityHeader string
	// ClassBy (--slo-class-by) puts each request in an SLO class, judged by ClassSLOs'
	// limits for its value (--slo-class), else by the run's SLO.
	ClassBy   routing.ClassBy
	ClassSLOs map[string]analysis.SLO
	// PriorityMap (--priority-map) gives each request whose log holds no priority one, by its
	// model, API or a header, sent as the engine's priority field (vLLM's priority).
	PriorityMap *routing.PriorityMap
}

// routes applies a run's Routing to each request as it is sent and to its row.
type routes struct {
	m        *routing.Map
	allow    *routing.Allowlist
	affinity string
	classBy  routing.ClassBy
	priority *routing.PriorityMap
}

// newRoutes is r's routes; nil when r routes nothing, so a plain run pays nothing.
func newRoutes(r Routing) *routes {
	if r.ModelMap == nil && !r.HeadersLogged && r.AffinityHeader == "" && !r.ClassBy.Set() && r.PriorityMap == nil {
		return nil
	}
	rt := &routes{m: r.ModelMap, affinity: r.AffinityHeader, classBy: r.ClassBy, priority: r.PriorityMap}
	if r.HeadersLogged {
		a := routing.NewAllowlist(r.HeaderAllow)
		rt.allow = &a
	}
	return rt
}

// served is the model name rec is sent with, "" for Client.Model's.
func (rt *routes) served(rec *trace.Record) string {
	if rt.m == nil {
		return ""
	}
	t, _ := rt.m.Target(rec.Model) // every logged model is mapped: prepare checked
	return t.Served()
}

// apply sets creq's model and adapter, headers and priority for rec (api: the API it goes
// to); the client sends the adapter in the engine's dialect (client.Config.AdapterField). A
// logged header is checked again here, so no credential is sent whatever a reader kept.
func (rt *routes) apply(creq *client.Request, rec *trace.Record, api string) {
	if rt.m != nil {
		t, _ := rt.m.Target(rec.Model) // every logged model is mapped: prepare checked
		creq.Model, creq.Adapter = t.Model, t.Adapter
	}
	if p, ok := rt.priority.Priority(rec, api); ok {
		creq.Priority = &p
	}
	if rt.allow != nil {
		for _, h := range rt.allow.Logged(rec) {
			if !trace.SecretHeader(h.Name) {
				creq.Headers = append(creq.Headers, client.Header{Name: h.Name, Value: h.Value})
			}
		}
	}
	if v := routing.AffinityValue(rec.SessionID); rt.affinity != "" && v != "" {
		creq.Headers = append(creq.Headers, client.Header{Name: rt.affinity, Value: v})
	}
}

// row fills what row says of rec's routing: the model it went to and its SLO class (by
// its API, the row's).
func (rt *routes) row(row *results.Row, rec *trace.Record) {
	row.Model = rt.served(rec)
	if rt.classBy.Set() {
		row.SLOClass = rt.classBy.Class(rec, row.API)
	}
}

// sayRouting warns of routing asked for that the window cannot give: --headers logged over
// records that hold no headers (a trace format that keeps none, or a normalized trace file,
// which does not keep them yet), a header class no record carries.
func sayRouting(w io.Writer, r Routing, recs []trace.Record) {
	if !r.HeadersLogged && !strings.HasPrefix(r.ClassBy.String(), "header:") {
		return
	}
	with := 0
	for i := range recs {
		if len(recs[i].Headers) > 0 {
			with++
		}
	}
	if with == 0 {
		fmt.Fprintf(w, "replay: warning: no request of the window holds logged headers (a request log's \"headers\" object): --headers logged sends none, and --slo-class-by header puts every request in no class\n")
	}
}
