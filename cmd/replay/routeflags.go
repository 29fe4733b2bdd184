package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/routing"
	"github.com/llm-replay/replay/runner"
)

// routeFlags are where each request goes and how it is told apart: the model map, the
// logged headers replayed, the affinity header and the SLO classes (runner.Routing).
type routeFlags struct {
	modelMap    string
	headers     string
	headerAllow []string
	affinity    string
	classBy     string
	classes     []string
	priorities  string
}

// add defines the routing flags.
func (r *routeFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&r.modelMap, "model-map", "", `logged model name to served one: inline "gpt-4o=Qwen/Qwen2.5-72B-Instruct,gpt-4o-mini=small" or a YAML file of LOGGED: {model, adapter, tokenizer} ("*" for the rest; an adapter is sent as the model name, vLLM's way, to every engine but SGLang, sent the base with lora_path, and llama-server, the base with the lora id its /lora-adapters lists); each request is built and counted by its target's tokenizer (default: --tokenizer's); a given --model maps the rest; every unmapped logged model is an error before the first send`)
	fs.StringVar(&r.headers, "headers", "none", "logged: send each request's logged headers that route it (session and affinity ids, priority, the Gateway API Inference Extension's and llm-d's headers; never Authorization, cookies or keys); none: send none")
	fs.StringArrayVar(&r.headerAllow, "header-allow", nil, "with --headers logged: also send the logged header NAME (repeatable; credentials never)")
	fs.StringVar(&r.affinity, "affinity-header", "", "send header NAME with a value per session (a digest of its id), so a router hashing on it keeps a session's turns on one backend")
	fs.StringVar(&r.classBy, "slo-class-by", "", "put each request in an SLO class by its logged model (before --model-map), its API, or a logged header (header:NAME); summary.json gets slo_classes and models sections")
	fs.StringVar(&r.priorities, "priority-map", "", "a scheduling priority for each request whose log holds none, sent as the engine's priority field (vLLM's priority, lower served first; the simulator honours it): BY=VALUE:PRIORITY entries, BY model, api or header:NAME, VALUE * for any, the first match wins (e.g. 'model=gpt-4o:0,header:x-tier=batch:20,model=*:5')")
	fs.StringArrayVar(&r.classes, "slo-class", nil, "VALUE:LIMITS, the SLO of one class, LIMITS as --slo (e.g. gpt-4o:ttft=300ms,itl=50ms; repeatable); a class without one is judged by --slo")
}

// apply turns the parsed flags into cfg.Routing; a given --model maps the rest of a model map,
// and without one the model of the map's first target (the base, for an adapter) is the run's
// model (what the checks and probes use).
func (r *routeFlags) apply(cfg *runner.Config) error {
	rt := &cfg.Routing
	if r.modelMap != "" {
		m, err := routing.ParseMap(r.modelMap, cfg.Client.Model)
		if err != nil {
			return err
		}
		rt.ModelMap = m
		if ts := m.Targets(); cfg.Client.Model == "" && len(ts) > 0 {
			cfg.Client.Model = ts[0].Model // a base every engine serves by name (SGLang and llama.cpp list no adapter as a model)
		}
	}
	switch r.headers {
	case "", "none":
	case "logged":
		rt.HeadersLogged = true
	default:
		return fmt.Errorf("--headers %q: want logged or none", r.headers)
	}
	if len(r.headerAllow) > 0 && !rt.HeadersLogged {
		return fmt.Errorf("--header-allow needs --headers logged")
	}
	rt.HeaderAllow, rt.AffinityHeader = r.headerAllow, r.affinity
	var err error
	if rt.ClassBy, err = routing.ParseClassBy(r.classBy); err != nil {
		return err
	}
	if rt.PriorityMap, err = routing.ParsePriorityMap(r.priorities); err != nil {
		return err
	}
	return r.applyClasses(rt)
}

// applyClasses reads each --slo-class VALUE:LIMITS (VALUE may hold colons: the last one
// before the limits' first "=" ends it).
func (r *routeFlags) applyClasses(rt *runner.Routing) error {
	if len(r.classes) > 0 && !rt.ClassBy.Set() {
		return fmt.Errorf("--slo-class needs --slo-class-by (model, api or header:NAME)")
	}
	for _, c := range r.classes {
		eq := strings.Index(c, "=")
		colon := -1
		if eq > 0 {
			colon = strings.LastIndex(c[:eq], ":")
		}
		if colon <= 0 {
			return fmt.Errorf("--slo-class %q: want VALUE:LIMITS, e.g. gpt-4o:ttft=300ms,itl=50ms", c)
		}
		slo, err := analysis.ParseSLO(c[colon+1:])
		if err != nil {
			return fmt.Errorf("--slo-class %q: %w", c, err)
		}
		if rt.ClassSLOs == nil {
			rt.ClassSLOs = map[string]analysis.SLO{}
		}
		if _, dup := rt.ClassSLOs[c[:colon]]; dup {
			return fmt.Errorf("--slo-class: class %q given twice", c[:colon])
		}
		rt.ClassSLOs[c[:colon]] = slo
	}
	return nil
}
