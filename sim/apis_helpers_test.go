package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
)

// namedEvent is one SSE event of an API that names its events: its `event:` line and its data.
type namedEvent struct {
	name string
	data []byte
}

// eventStream is what a client saw of one answer of the Responses or Messages API.
type eventStream struct {
	status int
	body   []byte // the body when it is not an event stream
	events []namedEvent
	done   bool  // a data: [DONE] came (neither API sends one)
	err    error // a malformed stream or a read error
}

// postEvents sends body to url+path and reads the answer, named events and all.
func postEvents(t testing.TB, url, path string, body any) eventStream {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	res := eventStream{status: resp.StatusCode}
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		res.body, res.err = io.ReadAll(resp.Body)
		return res
	}
	res.read(resp.Body)
	return res
}

// read reads events until the body ends: an event line, then its data line, then a blank one.
func (res *eventStream) read(body io.Reader) {
	r := bufio.NewReader(body)
	name := ""
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if err != io.EOF || line != "" {
				res.err = fmt.Errorf("reading stream: %w", err)
			}
			return
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
		case strings.HasPrefix(line, "event: "):
			if name != "" {
				res.err = fmt.Errorf("event %q has no data", name)
				return
			}
			name = strings.TrimPrefix(line, "event: ")
		case line == "data: [DONE]":
			res.done = true
		case strings.HasPrefix(line, "data: "):
			if name == "" {
				res.err = fmt.Errorf("data without an event line: %q", line)
				return
			}
			res.events = append(res.events, namedEvent{name, []byte(strings.TrimPrefix(line, "data: "))})
			name = ""
		default:
			res.err = fmt.Errorf("not an SSE line: %q", line)
			return
		}
	}
}

// names lists the events' names.
func (res *eventStream) names() []string {
	out := make([]string, len(res.events))
	for i, e := range res.events {
		out[i] = e.name
	}
	return out
}

// ok fails the test unless the answer is a whole, well-formed 200 stream.
func (res *eventStream) ok(t *testing.T) {
	t.Helper()
	if res.status != 200 || res.err != nil || len(res.events) == 0 {
		t.Fatalf("status %d err %v body %s", res.status, res.err, res.body)
	}
	if res.done {
		t.Error("a [DONE] marker: this API has none")
	}
}

// object is a JSON object's members.
type object map[string]json.RawMessage

func decodeObject(t *testing.T, raw []byte) object {
	t.Helper()
	var o object
	if err := json.Unmarshal(raw, &o); err != nil || o == nil {
		t.Fatalf("not a JSON object: %s (%v)", raw, err)
	}
	return o
}

// str is member k as a string ("" when absent or not a string).
func (o object) str(k string) string {
	var s string
	json.Unmarshal(o[k], &s)
	return s
}

// num is member k as an integer (-1 when absent or not a number).
func (o object) num(k string) int {
	n := -1
	json.Unmarshal(o[k], &n)
	return n
}

// obj is member k as an object (nil when it is not one).
func (o object) obj(k string) object {
	var v object
	json.Unmarshal(o[k], &v)
	return v
}

// list is member k as a list of objects.
func (o object) list(k string) []object {
	var v []object
	json.Unmarshal(o[k], &v)
	return v
}

// shape is a published type's members: those it requires (no default in the SDK's type) and
// those it allows besides.
type shape struct {
	required, optional []string
}

// check reports members missing from o and members the type does not have.
func (s shape) check(o object) error {
	var missing, unknown []string
	for _, k := range s.required {
		if _, ok := o[k]; !ok {
			missing = append(missing, k)
		}
	}
	for k := range o {
		if !slices.Contains(s.required, k) && !slices.Contains(s.optional, k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	if len(missing)+len(unknown) > 0 {
		return fmt.Errorf("missing %v, not in the type %v", missing, unknown)
	}
	return nil
}

// mustShape fails the test unless o has shape s; what names the object.
func mustShape(t *testing.T, what string, s shape, o object) {
	t.Helper()
	if err := s.check(o); err != nil {
		t.Errorf("%s: %v in %v", what, err, keys(o))
	}
}

func keys(o object) []string {
	out := make([]string, 0, len(o))
	for k := range o {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
