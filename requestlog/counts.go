package requestlog

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// UnknownFieldsText lists the unknown request fields for people, most frequent first:
// "metadata 12, logit_bias 3"; "" when there were none.
func (c Counts) UnknownFieldsText() string {
	names := make([]string, 0, len(c.UnknownFields))
	for k := range c.UnknownFields {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(c.UnknownFields[b], c.UnknownFields[a]), strings.Compare(a, b))
	})
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %d", k, c.UnknownFields[k])
	}
	return strings.Join(parts, ", ")
}
