package chat

import (
	"errors"

	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// chatFilters are gonja's filters with transformers' tojson (see pyJSON) and an items that
// keeps a JSON object's key order.
var chatFilters = newChatFilters()

func newChatFilters() *exec.FilterSet {
	f := exec.NewFilterSet(map[string]exec.FilterFunction{}).Update(builtins.Filters)
	_ = f.Replace("tojson", filterToJSON)
	_ = f.Replace("items", filterItems)
	return f
}

// chatMethods are gonja's methods with a dict's items(), keys(), values() and get() in the
// key order of a JSON object (an *exec.Dict): gonja hands dict methods a Go map, whose keys it
// sorts, and returns nested objects as maps, losing their order too. Templates walk
// `parameters.properties.items()` to print a tool's arguments in the order the request gave.
var chatMethods = newChatMethods()

func newChatMethods() exec.Methods {
	m := builtins.Methods
	own := map[string]exec.Method[map[string]any]{}
	for _, name := range []string{"keys", "values", "items", "get", "pop", "setdefault", "update", "copy", "clear"} {
		if fn, ok := m.Dict.Get(name); ok {
			own[name] = fn
		}
	}
	for name, part := range map[string]func(*exec.Pair) any{
		"items":  func(p *exec.Pair) any { return []any{p.Key.Interface(), p.Value.Interface()} },
		"keys":   func(p *exec.Pair) any { return p.Key.Interface() },
		"values": func(p *exec.Pair) any { return p.Value.Interface() },
	} {
		own[name] = orderedMethod(own[name], part)
	}
	own["get"] = orderedGet(own["get"])
	m.Dict = exec.NewMethodSet(own)
	return m
}

// asDict is v's ordered object, if it holds one.
func asDict(v *exec.Value) (*exec.Dict, bool) {
	switch d := v.Interface().(type) {
	case *exec.Dict:
		return d, true
	case exec.Dict:
		return &d, true
	}
	return nil, false
}

// orderedMethod lists part of each pair of an ordered object, and falls back to gonja's
// method for any other dict.
func orderedMethod(fallback exec.Method[map[string]any], part func(*exec.Pair) any) exec.Method[map[string]any] {
	return func(self map[string]any, sv *exec.Value, args *exec.VarArgs) (any, error) {
		d, ok := asDict(sv)
		if !ok && fallback != nil {
			return fallback(self, sv, args)
		}
		if len(args.Args) > 0 || len(args.KwArgs) > 0 {
			return nil, exec.ErrInvalidCall(errors.New("takes no arguments"))
		}
		out := make([]any, 0, len(d.Pairs))
		for _, p := range d.Pairs {
			out = append(out, part(p))
		}
		return out, nil
	}
}

// orderedGet is get(key[, default]) returning an ordered object's own value (an object stays
// ordered), gonja's get for other dicts.
func orderedGet(fallback exec.Method[map[string]any]) exec.Method[map[string]any] {
	return func(self map[string]any, sv *exec.Value, args *exec.VarArgs) (any, error) {
		d, ok := asDict(sv)
		if !ok || len(args.Args) < 1 || len(args.Args) > 2 {
			if fallback == nil {
				return nil, exec.ErrInvalidCall(errors.New("get() takes 1 or 2 positional arguments"))
			}
			return fallback(self, sv, args)
		}
		key := args.Args[0].String()
		for _, p := range d.Pairs {
			if p.Key.String() == key {
				return p.Value.Interface(), nil
			}
		}
		if len(args.Args) == 2 {
			return args.Args[1].Interface(), nil
		}
		return nil, nil
	}
}

// filterItems is `x | items`: an ordered object's pairs in order, gonja's for the rest.
func filterItems(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	d, ok := asDict(in)
	if !ok {
		fn, _ := builtins.Filters.Get("items")
		return fn(e, in, params)
	}
	out := make([]any, 0, len(d.Pairs))
	for _, p := range d.Pairs {
		out = append(out, []any{p.Key.Interface(), p.Value.Interface()})
	}
	return exec.AsValue(out)
}
