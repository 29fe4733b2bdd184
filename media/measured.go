package media

import (
	"fmt"
	"slices"
)

// measured.go is a rule corrected by what an endpoint was seen to count: the run's probe asks
// the endpoint for each distinct image size of the window (a request with the image and its
// twin without) and keeps the difference of the two prompt counts, which is what the engine
// charges for the image, wrapper and all. Sizes it measured are counted as measured; any other
// size by the rule it corrects.

// Size is an image's width and height.
type Size struct{ Width, Height int }

// Measured is Base with the counts an endpoint was seen to give: By names who measured them.
type Measured struct {
	Base   Rule // nil when the model's folder has no rule: only measured sizes count
	Counts map[Size]int
	By     string
}

func (m Measured) Name() string {
	if m.Base == nil {
		return fmt.Sprintf("%s's own count (%d sizes measured)", m.By, len(m.Counts))
	}
	return fmt.Sprintf("%s, with %d sizes as %s counts them", m.Base.Name(), len(m.Counts), m.By)
}

func (m Measured) Tokens(width, height int) (int, error) {
	if n, ok := m.Counts[Size{width, height}]; ok {
		return n, nil
	}
	if m.Base == nil {
		return 0, fmt.Errorf("%dx%d was not measured (%s measured %s) and the model's folder has no rule: %w", width, height, m.By, m.sizes(), ErrNoRule)
	}
	return m.Base.Tokens(width, height)
}

// sizes lists the measured sizes, at most eight.
func (m Measured) sizes() string {
	keys := make([]Size, 0, len(m.Counts))
	for k := range m.Counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b Size) int { return a.Width*a.Height - b.Width*b.Height })
	s := ""
	for i, k := range keys {
		if i == 8 {
			return s + ", …"
		}
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%dx%d", k.Width, k.Height)
	}
	return s
}
