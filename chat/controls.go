package chat

import (
	"errors"

	"github.com/nikolalohinski/gonja/v2/builtins"
	controls "github.com/nikolalohinski/gonja/v2/builtins/control_structures"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/parser"
)

// chatControls is gonja's set of control structures with `if` and `for` executed by leaner
// code that renders the same text. gonja's own open a new scope (a renderer, a config, an
// environment and a context, five allocations) for every if branch taken, and two for every
// loop iteration plus one per item before the loop starts; a chat template runs an if or two
// per message and every lookup walks those scopes back up, each behind a mutex. Rendering was
// ~40% of reading a request log, most of it there. Both are parsed by gonja's own parsers
// (the nodes are gonja's), only Execute differs:
//   - if: the taken branch runs in the caller's scope. gonja runs it in a child scope and then
//     copies every variable the branch set into the caller's, which leaves the same state.
//   - for: one scope per iteration holding the loop variables and whatever the body sets
//     (gonja nests the body's scope inside the iteration's; nothing outlives an iteration
//     either way), and none for collecting items unless the loop filters them
//     (`for x in xs if cond`). `loop` has gonja's attributes. Recursive loops run gonja's code.
//
// TestControlsMatchGonja renders templates under both sets and compares.
var chatControls = newChatControls()

func newChatControls() *exec.ControlStructureSet {
	set := exec.NewControlStructureSet(map[string]parser.ControlStructureParser{})
	set.Update(builtins.ControlStructures)
	parseIf, okIf := set.Get("if")
	parseFor, okFor := set.Get("for")
	if !okIf || !okFor { // a gonja without them would fail every template; keep its own set
		return builtins.ControlStructures
	}
	_ = set.Replace("if", func(p, args *parser.Parser) (nodes.ControlStructure, error) {
		cs, err := parseIf(p, args)
		if n, ok := cs.(*controls.IfControlStructure); ok && err == nil {
			return scopelessIf{n}, nil
		}
		return cs, err
	})
	_ = set.Replace("for", func(p, args *parser.Parser) (nodes.ControlStructure, error) {
		cs, err := parseFor(p, args)
		if n, ok := cs.(*controls.ForControlStructure); ok && err == nil && !n.Recursive {
			return leanFor{n}, nil
		}
		return cs, err
	})
	return set
}

// scopelessIf is an if whose taken branch runs in the enclosing scope.
type scopelessIf struct {
	*controls.IfControlStructure
}

func (s scopelessIf) Execute(r *exec.Renderer, _ *nodes.ControlStructureBlock) error {
	for i, cond := range s.Conditions {
		v := r.Eval(cond)
		if v.IsError() {
			return v
		}
		if v.IsTrue() {
			return nodes.Walk(r, s.Wrappers[i])
		}
		if len(s.Conditions) == i+1 && len(s.Wrappers) > i+1 { // else
			return nodes.Walk(r, s.Wrappers[i+1])
		}
	}
	return nil
}

// leanFor is a non-recursive for loop with one scope per iteration.
type leanFor struct {
	*controls.ForControlStructure
}

// loopItem is one element a loop visits: the loop variable, and the second one for
// `for k, v in ...` (nil when there is none).
type loopItem struct {
	key, value *exec.Value
}

func (s leanFor) Execute(r *exec.Renderer, _ *nodes.ControlStructureBlock) error {
	obj := r.Eval(s.ObjectEvaluator)
	if obj.IsError() {
		return obj
	}
	var items []loopItem
	obj.Iterate(func(_, count int, key, value *exec.Value) bool {
		if items == nil {
			items = make([]loopItem, 0, count)
		}
		it := loopItem{key: key, value: value}
		if s.Value != "" && !key.IsString() && key.Len() == 2 { // for k, v in pairs
			it = loopItem{}
			key.Iterate(func(idx, _ int, k, _ *exec.Value) bool {
				switch idx {
				case 0:
					it.key = k
				case 1:
					it.value = k
				}
				return true
			}, func() {})
		}
		if s.IfCondition != nil {
			sub := scope(r)
			s.bind(sub.Environment.Context, it)
			if !sub.Eval(s.IfCondition).IsTrue() {
				return true
			}
		}
		items = append(items, it)
		return true
	}, func() {})

	if len(items) == 0 {
		if s.EmptyWrapper != nil {
			return nodes.Walk(scope(r), s.EmptyWrapper)
		}
		return nil
	}
	loop := &loopState{items: items, depth: 1}
	if parent, ok := r.Environment.Context.Get("loop"); ok {
		if g, ok := parent.(exec.AttributeGetter); ok {
			if d, ok := g.GetAttribute("depth"); ok && d.IsInteger() {
				loop.depth = d.Integer() + 1
			}
		}
	}
	for i, it := range items {
		sub := scope(r)
		ctx := sub.Environment.Context
		s.bind(ctx, it)
		ctx.Set("loop", loop)
		loop.i = i
		if err := nodes.Walk(sub, s.BodyWrapper); err != nil {
			var brk *controls.LoopBreakError
			var cont *controls.LoopContinueError
			if errors.As(err, &brk) {
				break
			}
			if errors.As(err, &cont) {
				continue
			}
			return err
		}
	}
	return nil
}

// bind sets the loop variables the way gonja does.
func (s leanFor) bind(ctx *exec.Context, it loopItem) {
	ctx.Set(s.Key, it.key)
	if it.value != nil {
		ctx.Set(s.Value, it.value)
	}
}

// scope returns a renderer for a child scope of r. Unlike Renderer.Inherit it shares r's
// config, which nothing changes without taking its own copy first (autoescape does).
func scope(r *exec.Renderer) *exec.Renderer {
	s := &scoped{r: *r, env: *r.Environment}
	s.env.Context = r.Environment.Context.Inherit()
	s.r.Environment = &s.env
	return &s.r
}

// scoped holds a child renderer and its environment in one allocation.
type scoped struct {
	r   exec.Renderer
	env exec.Environment
}

// loopState is the `loop` variable, with the attributes gonja's has.
type loopState struct {
	items []loopItem
	i     int
	depth int
	last  *exec.Value // for changed()
}

func (l *loopState) GetAttribute(name string) (*exec.Value, bool) {
	n := len(l.items)
	switch name {
	case "index":
		return exec.AsValue(l.i + 1), true
	case "index0":
		return exec.AsValue(l.i), true
	case "revindex":
		return exec.AsValue(n - l.i), true
	case "revindex0":
		return exec.AsValue(n - l.i - 1), true
	case "first":
		return exec.AsValue(l.i == 0), true
	case "last":
		return exec.AsValue(l.i == n-1), true
	case "length":
		return exec.AsValue(n), true
	case "depth":
		return exec.AsValue(l.depth), true
	case "depth0":
		return exec.AsValue(l.depth - 1), true
	case "previtem", "PrevItem":
		if l.i == 0 {
			return exec.AsValue(nil), true
		}
		return l.items[l.i-1].asValue(), true
	case "nextitem", "NextItem":
		if l.i == n-1 {
			return exec.AsValue(nil), true
		}
		return l.items[l.i+1].asValue(), true
	case "cycle", "Cycle":
		return exec.AsValue(func(va *exec.VarArgs) *exec.Value {
			if len(va.Args) == 0 {
				return exec.AsValue("")
			}
			return va.Args[l.i%len(va.Args)]
		}), true
	case "changed", "Changed":
		return exec.AsValue(func(va *exec.VarArgs) *exec.Value {
			var cur *exec.Value
			if len(va.Args) == 1 {
				cur = va.Args[0]
			} else {
				vals := make([]any, 0, len(va.Args))
				for _, a := range va.Args {
					vals = append(vals, a.Interface())
				}
				cur = exec.AsValue(vals)
			}
			same := l.last != nil && cur.EqualValueTo(l.last)
			l.last = cur
			return exec.AsValue(!same)
		}), true
	}
	return exec.AsValue(nil), false
}

// asValue is the item as loop.previtem and loop.nextitem show it.
func (it loopItem) asValue() *exec.Value {
	if it.value != nil {
		return exec.AsValue([2]*exec.Value{it.key, it.value})
	}
	return it.key
}

// String is what printing `loop` itself shows: gonja's text for its own loop variable.
func (l *loopState) String() string { return "<controlStructures.LoopInfos Value>" }
