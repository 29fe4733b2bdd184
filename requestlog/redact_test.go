package requestlog

import (
	"strings"
	"testing"
)

// TestRedact: descriptions, titles, comments and enum, const, default and example values are
// replaced by filler of their token length; tool and property names (a property named
// "description" too), types, formats, patterns, required, $ref, numbers and the key order are
// kept; an enum's values stay distinct; an unknown member's text is replaced.
func TestRedact(t *testing.T) {
	m := loadModel(t, "qwen3")
	red := newRedactor(m.tok)
	tools := `[{"type":"function","function":{"name":"lookup_customer","description":"Find Alice Smith's account by email","x-notes":"internal only","parameters":{"type":"object","properties":{"description":{"type":"string","description":"Free text about the customer","default":"VIP customer"},"tier":{"type":"string","enum":["gold","silver","bronze"],"title":"Tier of the account"},"email":{"type":"string","format":"email","pattern":"^[^@]+@acme\\.com$"},"addr":{"$ref":"#/$defs/Address"},"any":{"anyOf":[{"type":"string","const":"private note"},{"type":"integer","minimum":3}]},"list":{"type":"array","items":{"type":"string","examples":["first example"]}}},"required":["description","email"],"$defs":{"Address":{"type":"object","$comment":"from the CRM","properties":{"street":{"type":"string"}}}}}}}]`
	out, err := red.tools([]byte(tools))
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, secret := range []string{"Alice", "internal only", "Free text", "VIP", "gold", "silver", "Tier of", "private note", "first example", "from the CRM"} {
		if strings.Contains(got, secret) {
			t.Errorf("redacted tools hold %q: %s", secret, got)
		}
	}
	for _, kept := range []string{`"name":"lookup_customer"`, `"properties":{"description":{"type":"string","description":"`, `"format":"email"`,
		`"pattern":"^[^@]+@acme\\.com$"`, `"$ref":"#/$defs/Address"`, `"minimum":3`, `"required":["description","email"]`, `"street":{"type":"string"}`} {
		if !strings.Contains(got, kept) {
			t.Errorf("redacted tools lack %s: %s", kept, got)
		}
	}
	sameShape(t, 1, m.tok, out, []byte(tools))
	if !strings.Contains(got, `"enum":["the","of","and to"]`) { // bronze is two tokens
		t.Errorf("enum values not distinct filler: %s", got)
	}
	again, _ := red.tools([]byte(tools))
	if string(again) != got {
		t.Error("the same tools redacted twice differ")
	}
	format := `{"type":"json_schema","json_schema":{"name":"answer","description":"Reply to Bob","schema":{"type":"object","title":"Answer for Bob","properties":{"ok":{"type":"boolean"}}},"strict":true}}`
	fo, err := red.responseFormat([]byte(format))
	if err != nil || strings.Contains(string(fo), "Bob") || !strings.Contains(string(fo), `"name":"answer"`) || !strings.Contains(string(fo), `"strict":true`) {
		t.Errorf("response format %s, %v", fo, err)
	}
	sameShape(t, 1, m.tok, fo, []byte(format))
}
