package requestlog

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// CarriedFieldsText lists the carried request fields for people, most frequent first:
// "metadata 12, logit_bias 3"; "" when there were none.
func (c Counts) CarriedFieldsText() string { return fieldsText(c.CarriedFields) }

// DroppedFieldsText lists the dropped request fields for people, as CarriedFieldsText.
func (c Counts) DroppedFieldsText() string { return fieldsText(c.DroppedFields) }

func fieldsText(counts map[string]int64) string {
	names := make([]string, 0, len(counts))
	for k := range counts {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), strings.Compare(a, b))
	})
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %d", k, counts[k])
	}
	return strings.Join(parts, ", ")
}
