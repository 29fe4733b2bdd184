package chat

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// pyJSON is how transformers' tojson filter prints: Python's json.dumps(x,
// ensure_ascii=False, indent=None, separators=None, sort_keys=False), which transformers puts
// in place of Jinja's own (that one escapes HTML characters). The separators default to
// ", " and ": ", or "," and ": " with an indent; an indent may be a number of spaces or a string.
// gonja's tojson is Go's json.Marshal: no spaces, sorted keys, `<` escaped, so a tool
// definition rendered by it has another token count than the server's.
type pyJSON struct {
	ensureASCII bool
	indent      *string
	item, key   string
	sortKeys    bool
}

// filterToJSON is the tojson filter, with transformers' parameters: positionally
// (ensure_ascii, indent, separators, sort_keys), or by name.
func filterToJSON(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	p, err := pyJSONParams(params)
	if err != nil {
		return exec.AsValue(fmt.Errorf("tojson: %w", err))
	}
	var b strings.Builder
	if err := p.write(&b, in.Interface(), 0); err != nil {
		return exec.AsValue(fmt.Errorf("tojson: %w", err))
	}
	return exec.AsSafeValue(b.String())
}

// pyJSONParams reads the filter's arguments.
func pyJSONParams(params *exec.VarArgs) (pyJSON, error) {
	p := pyJSON{item: ", ", key: ": "}
	names := []string{"ensure_ascii", "indent", "separators", "sort_keys"}
	args := map[string]*exec.Value{}
	for i, a := range params.Args {
		if i >= len(names) {
			return p, fmt.Errorf("%d positional arguments, want at most %d", len(params.Args), len(names))
		}
		args[names[i]] = a
	}
	for k, v := range params.KwArgs {
		if !slices.Contains(names, k) {
			return p, fmt.Errorf("unknown argument %q", k)
		}
		args[k] = v
	}
	if v := args["ensure_ascii"]; v != nil {
		p.ensureASCII = v.IsTrue()
	}
	if v := args["sort_keys"]; v != nil {
		p.sortKeys = v.IsTrue()
	}
	if v := args["indent"]; v != nil && !v.IsNil() {
		ind := v.String()
		if v.IsInteger() {
			ind = strings.Repeat(" ", max(v.Integer(), 0))
		}
		p.indent, p.item = &ind, ","
	}
	if v := args["separators"]; v != nil && !v.IsNil() {
		if !v.IsList() || v.Len() != 2 {
			return p, fmt.Errorf("separators %s: want two strings", v.String())
		}
		p.item, p.key = v.Index(0).String(), v.Index(1).String()
	}
	return p, nil
}

// write prints v at nesting depth.
func (p pyJSON) write(b *strings.Builder, v any, depth int) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case *exec.Value:
		return p.write(b, x.Interface(), depth)
	case bool:
		b.WriteString(map[bool]string{true: "true", false: "false"}[x])
	case string:
		p.writeString(b, x)
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(pyFloat(x))
	case *exec.Dict:
		return p.writeDict(b, x, depth)
	case exec.Dict:
		return p.writeDict(b, &x, depth)
	default:
		return p.writeReflect(b, reflect.ValueOf(v), depth)
	}
	return nil
}

// writeReflect prints the other values a template can hold: numbers of other Go types, lists
// and Go maps (a map has no order: its keys print sorted).
func (p pyJSON) writeReflect(b *strings.Builder, rv reflect.Value, depth int) error {
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(rv.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		b.WriteString(strconv.FormatUint(rv.Uint(), 10))
	case reflect.Float32:
		b.WriteString(pyFloat(rv.Float()))
	case reflect.Slice, reflect.Array:
		items := make([]any, rv.Len())
		for i := range items {
			items[i] = rv.Index(i).Interface()
		}
		return p.writeList(b, items, depth)
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return fmt.Errorf("a map with %s keys is not JSON serializable", rv.Type().Key())
		}
		d := &exec.Dict{}
		keys := rv.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		for _, k := range keys {
			d.Pairs = append(d.Pairs, &exec.Pair{Key: exec.AsValue(k.String()), Value: exec.AsValue(rv.MapIndex(k).Interface())})
		}
		return p.writeDict(b, d, depth)
	default:
		return fmt.Errorf("a %s is not JSON serializable", rv.Type())
	}
	return nil
}

func (p pyJSON) writeList(b *strings.Builder, items []any, depth int) error {
	if len(items) == 0 {
		b.WriteString("[]")
		return nil
	}
	b.WriteByte('[')
	for i, it := range items {
		p.separate(b, i, depth+1)
		if err := p.write(b, it, depth+1); err != nil {
			return err
		}
	}
	p.newline(b, depth)
	b.WriteByte(']')
	return nil
}

func (p pyJSON) writeDict(b *strings.Builder, d *exec.Dict, depth int) error {
	if len(d.Pairs) == 0 {
		b.WriteString("{}")
		return nil
	}
	pairs := d.Pairs
	if p.sortKeys {
		pairs = slices.Clone(pairs)
		slices.SortStableFunc(pairs, func(a, b *exec.Pair) int { return strings.Compare(a.Key.String(), b.Key.String()) })
	}
	b.WriteByte('{')
	for i, pair := range pairs {
		p.separate(b, i, depth+1)
		p.writeString(b, pair.Key.String())
		b.WriteString(p.key)
		if err := p.write(b, pair.Value.Interface(), depth+1); err != nil {
			return err
		}
	}
	p.newline(b, depth)
	b.WriteByte('}')
	return nil
}

// separate starts item i of a container whose items sit at depth.
func (p pyJSON) separate(b *strings.Builder, i, depth int) {
	if i > 0 {
		b.WriteString(p.item)
	}
	p.newline(b, depth)
}

func (p pyJSON) newline(b *strings.Builder, depth int) {
	if p.indent == nil {
		return
	}
	b.WriteByte('\n')
	for range depth {
		b.WriteString(*p.indent)
	}
}

// writeString quotes s as json.dumps does: the two-character escapes for \" \\ \n \r \t \b
// \f, \u00XX for the other control characters, and with ensure_ascii every non-ASCII
// character as \uXXXX (a surrogate pair above the BMP).
func (p pyJSON) writeString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		case p.ensureASCII && r > 0x7e:
			if r > 0xffff {
				r -= 0x10000
				fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			} else {
				fmt.Fprintf(b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// pyFloat is Python's repr of a float: the shortest digits that read back, in positional
// notation with at least one decimal when the exponent is in (-5, 16), else as d.ddde±XX.
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±XX
	sign := ""
	if e[0] == '-' {
		sign, e = "-", e[1:]
	}
	mant, exp, _ := strings.Cut(e, "e")
	x, _ := strconv.Atoi(exp)
	digits := strings.Replace(mant, ".", "", 1)
	if x <= -5 || x >= 16 {
		if len(digits) > 1 {
			mant = digits[:1] + "." + digits[1:]
		}
		es := "+"
		if x < 0 {
			es, x = "-", -x
		}
		return fmt.Sprintf("%s%se%s%02d", sign, mant, es, x)
	}
	point := x + 1 // digits before the decimal point
	switch {
	case point <= 0:
		return sign + "0." + strings.Repeat("0", -point) + digits
	case point >= len(digits):
		return sign + digits + strings.Repeat("0", point-len(digits)) + ".0"
	}
	return sign + digits[:point] + "." + digits[point:]
}
