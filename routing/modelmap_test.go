package routing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/trace"
)

func TestParseMapInline(t *testing.T) {
	m, err := ParseMap("gpt-4o=Qwen/Qwen2.5-72B-Instruct, gpt-4o-mini=small", "")
	if err != nil {
		t.Fatal(err)
	}
	if tg, ok := m.Target("gpt-4o"); !ok || tg.Served() != "Qwen/Qwen2.5-72B-Instruct" {
		t.Errorf("gpt-4o: %+v %v", tg, ok)
	}
	if _, ok := m.Target("other"); ok {
		t.Error("an unmapped name found a target")
	}
	m, _ = ParseMap("a=b", "fallback")
	if tg, ok := m.Target("other"); !ok || tg.Model != "fallback" {
		t.Errorf("--model as *: %+v %v", tg, ok)
	}
	for _, bad := range []string{"a=", "=b", "a=b,a=c", "a=b,nope"} {
		if _, err := ParseMap(bad, ""); err == nil || !strings.Contains(err.Error(), "--model-map") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestParseMapFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "map.yaml")
	os.WriteFile(p, []byte("gpt-4o:\n  model: big\n  tokenizer: /tok/big\ngpt-4o-mini: small\nsql:\n  model: big\n  adapter: sql-lora\n\"*\": {model: rest}\n"), 0o644)
	m, err := ParseMap(p, "ignored")
	if err != nil {
		t.Fatal(err)
	}
	for logged, want := range map[string]Target{
		"gpt-4o": {Model: "big", Tokenizer: "/tok/big"}, "gpt-4o-mini": {Model: "small"},
		"sql": {Model: "big", Adapter: "sql-lora"}, "x": {Model: "rest"},
	} {
		if got, _ := m.Target(logged); got != want {
			t.Errorf("%s: %+v, want %+v", logged, got, want)
		}
	}
	if got, _ := m.Target("sql"); got.Served() != "sql-lora" {
		t.Errorf("adapter served as %q", got.Served())
	}
	if n := len(m.Targets()); n != 4 {
		t.Errorf("%d targets", n)
	}
	os.WriteFile(p, []byte("a:\n  model: x\n  lora: y\n"), 0o644)
	if _, err := ParseMap(p, ""); err == nil || !strings.Contains(err.Error(), p+":1") || !strings.Contains(err.Error(), `"lora"`) {
		t.Errorf("unknown field: %v", err)
	}
	os.WriteFile(p, []byte("a:\n  adapter: y\n"), 0o644)
	if _, err := ParseMap(p, ""); err == nil || !strings.Contains(err.Error(), `"model": missing`) {
		t.Errorf("no model: %v", err)
	}
}

func TestUnmappedListsEveryName(t *testing.T) {
	m, _ := ParseMap("a=x", "")
	recs := []trace.Record{{Model: "a"}, {Model: "b"}, {Model: "b"}, {Model: "c"}}
	err := m.Unmapped(recs)
	if err == nil || !strings.Contains(err.Error(), `"b" (2 requests)`) || !strings.Contains(err.Error(), `"c" (1 requests)`) {
		t.Fatalf("unmapped: %v", err)
	}
	m, _ = ParseMap("a=x,*=y", "")
	if err := m.Unmapped(recs); err != nil {
		t.Error(err)
	}
}

func TestAllowlistNeverCredentials(t *testing.T) {
	a := NewAllowlist([]string{"X-Tenant", "Authorization", "Content-Length"})
	rec := trace.Record{Headers: []trace.Header{{Name: "authorization", Value: "k"}, {Name: "x-session-affinity", Value: "s"},
		{Name: "x-llm-d-foo", Value: "1"}, {Name: "x-tenant", Value: "t"}, {Name: "user-agent", Value: "u"}, {Name: "content-length", Value: "9"}, {Name: "priority", Value: "2"}}}
	var names []string
	for _, h := range a.Logged(&rec) {
		names = append(names, h.Name)
	}
	if got := strings.Join(names, ","); got != "x-session-affinity,x-llm-d-foo,x-tenant,priority" {
		t.Errorf("replayed %s", got)
	}
}

func TestClassBy(t *testing.T) {
	rec := trace.Record{Model: "gpt-4o", Options: &trace.Options{API: "chat"}, Headers: []trace.Header{{Name: "x-tier", Value: "batch"}}}
	for by, want := range map[string]string{"model": "gpt-4o", "api": "chat", "header:X-Tier": "batch", "header:x-none": ""} {
		c, err := ParseClassBy(by)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Class(&rec, "completions"); got != want {
			t.Errorf("%s: %q, want %q", by, got, want)
		}
	}
	if _, err := ParseClassBy("user"); err == nil {
		t.Error("bad --slo-class-by accepted")
	}
	a1, a2 := AffinityValue("s1"), AffinityValue("s2")
	if a1 == a2 || len(a1) != 16 || a1 == "s1" || AffinityValue("") != "" {
		t.Error("affinity values")
	}
}
