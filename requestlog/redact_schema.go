package requestlog

// JSON Schema keywords by what their value is, for the redactor's schema walk.
var (
	// schemaMaps hold a schema per name (the names are kept: property names are the
	// structure).
	schemaMaps = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true}
	// schemaOne hold one schema (or a boolean; items also a list of them).
	schemaOne = map[string]bool{"items": true, "additionalProperties": true, "not": true, "if": true, "then": true, "else": true,
		"contains": true, "propertyNames": true, "unevaluatedProperties": true, "unevaluatedItems": true, "additionalItems": true}
	// schemaLists hold a list of schemas.
	schemaLists = map[string]bool{"anyOf": true, "oneOf": true, "allOf": true, "prefixItems": true}
	// schemaKept hold names and configuration, kept as they are.
	schemaKept = map[string]bool{"type": true, "format": true, "pattern": true, "required": true, "dependentRequired": true,
		"$ref": true, "$schema": true, "$id": true, "$anchor": true, "$dynamicRef": true, "$dynamicAnchor": true,
		"contentMediaType": true, "contentEncoding": true}
)

// schema walks a JSON schema: sub-schemas walked, names and configuration kept, enum values
// replaced by distinct filler, and every other keyword's strings (description, title,
// $comment, const, default, examples, unknown ones) replaced.
func (r *redactor) schema(n *jnode) {
	switch n.kind {
	case 'a': // a list of schemas (items as a tuple)
		for _, v := range n.vals {
			r.schema(v)
		}
		return
	case 'o':
	default:
		return // true or false
	}
	for i, k := range n.keys {
		v := n.vals[i]
		switch {
		case schemaMaps[k] && v.kind == 'o':
			for _, s := range v.vals {
				r.schema(s)
			}
		case schemaOne[k] || (schemaLists[k] && v.kind == 'a'):
			r.schema(v)
		case schemaKept[k]:
		case k == "enum" && v.kind == 'a':
			r.enum(v)
		default:
			r.strings(v)
		}
	}
}

// enum replaces an enum's strings with filler of their token length, distinct from each
// other as the values were (as far as 60 one-token values go).
func (r *redactor) enum(n *jnode) {
	seen := map[string]bool{}
	for i, v := range n.vals {
		if v.kind != 's' {
			r.strings(v)
			continue
		}
		count := r.tok.Count(v.text)
		text := synthText(r.tok, count, i)
		for salt := i + 1; seen[text] && salt < i+len(fillerWords); salt++ {
			text = synthText(r.tok, count, salt)
		}
		seen[text] = true
		v.text = text
	}
}
