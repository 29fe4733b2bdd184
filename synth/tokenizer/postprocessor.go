package tokenizer

import (
	"encoding/json"
	"fmt"
)

// postProcessor adds the special tokens of a single sequence (BOS and the like) around the
// encoded ids when add_special_tokens is on.
type postProcessor interface {
	process(ids []int) []int
}

type postSequence []postProcessor

func (q postSequence) process(ids []int) []int {
	for _, p := range q {
		ids = p.process(ids)
	}
	return ids
}

// wrapPost puts fixed ids before and after the sequence (TemplateProcessing's single template,
// BertProcessing, RobertaProcessing).
type wrapPost struct{ before, after []int }

// process wraps ids in place when their slice has the room (encodeIDs sizes it for that), so
// a prompt's ids are not copied once more for one BOS: that copy was 12% of synthesis's
// allocation on the default shapes.
func (w wrapPost) process(ids []int) []int {
	if len(w.before) == 0 && len(w.after) == 0 {
		return ids
	}
	if n, m := len(w.before), len(ids); cap(ids) >= n+m+len(w.after) {
		ids = ids[:n+m]
		copy(ids[n:], ids[:m]) // copy moves overlapping ranges correctly
		copy(ids, w.before)
		return append(ids, w.after...)
	}
	out := make([]int, 0, len(w.before)+len(ids)+len(w.after))
	out = append(out, w.before...)
	out = append(out, ids...)
	return append(out, w.after...)
}

// templatePiece is one item of a TemplateProcessing template.
type templatePiece struct {
	SpecialToken *struct {
		ID string `json:"id"`
	} `json:"SpecialToken"`
	Sequence *struct {
		ID string `json:"id"`
	} `json:"Sequence"`
}

type templateSpecial struct {
	ID  string `json:"id"`
	IDs []int  `json:"ids"`
}

func parsePostProcessor(raw json.RawMessage, where string) (postProcessor, error) {
	if isNull(raw) {
		return nil, nil
	}
	var c componentJSON
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	switch c.Type {
	case "Sequence":
		var q postSequence
		for i, r := range c.Processors {
			p, err := parsePostProcessor(r, fmt.Sprintf("%s.processors[%d]", where, i))
			if err != nil {
				return nil, err
			}
			if p != nil {
				q = append(q, p)
			}
		}
		return q, nil
	case "ByteLevel":
		return nil, nil // only trims offsets; ids are unchanged
	case "TemplateProcessing":
		var w wrapPost
		seen := false
		for i, p := range c.Single {
			switch {
			case p.SpecialToken != nil:
				sp, ok := c.SpecialTokens[p.SpecialToken.ID]
				if !ok {
					return nil, fmt.Errorf("%s.single[%d]: special token %q is not in special_tokens", where, i, p.SpecialToken.ID)
				}
				if seen {
					w.after = append(w.after, sp.IDs...)
				} else {
					w.before = append(w.before, sp.IDs...)
				}
			case p.Sequence != nil:
				if seen {
					return nil, fmt.Errorf("%s.single[%d]: a single template holds one sequence", where, i)
				}
				seen = true
			default:
				return nil, fmt.Errorf("%s.single[%d]: want SpecialToken or Sequence", where, i)
			}
		}
		if !seen {
			return nil, fmt.Errorf("%s: the single template has no Sequence", where)
		}
		return w, nil
	case "BertProcessing", "RobertaProcessing":
		cls, err := tokenIDPair(c.Cls)
		if err != nil {
			return nil, fmt.Errorf("%s.cls: %w", where, err)
		}
		sep, err := tokenIDPair(c.Sep)
		if err != nil {
			return nil, fmt.Errorf("%s.sep: %w", where, err)
		}
		return wrapPost{before: []int{cls}, after: []int{sep}}, nil
	case "":
		return nil, fmt.Errorf("%s: missing \"type\"", where)
	}
	return nil, fmt.Errorf("%s: unsupported type %q", where, c.Type)
}

// tokenIDPair reads ["[CLS]", 101] and returns the id.
func tokenIDPair(raw []json.RawMessage) (int, error) {
	if len(raw) != 2 {
		return 0, fmt.Errorf("want [token, id]")
	}
	var id int
	if err := json.Unmarshal(raw[1], &id); err != nil {
		return 0, fmt.Errorf("want [token, id]: %w", err)
	}
	return id, nil
}
