package media

import (
	"errors"
	"fmt"
)

// infer.go turns the prompt tokens an image cost, as a log's usage shows them, back into a
// size: for an image logged by URL alone (or redacted), whose bytes the log does not hold,
// the tokens its line's prompt count does not explain by the text are the image's, and the
// rule that counted it as logged says what size costs that much. Many sizes cost the same;
// the squarest is taken (a photo's or a screenshot's aspect is not in the count), the
// smallest whose count is nearest. A rule that counts every size alike (LLaVA-1.5's 576)
// says nothing of the size: the caller asks for --image-size.

// ErrSizeUnknowable is wrapped by InferSize's error when the rule's counts do not depend on
// the size, or do not reach the tokens.
var ErrSizeUnknowable = errors.New("no size can be told from the tokens")

// InferSize is the image whose count by rule (at detail, as TokensOf counts it) is nearest
// tokens, ties to the smaller: a square where a square's count reaches tokens, else the
// squattest landscape of 2:1 to 8:1 that does (OpenAI's tiles: no square counts more than 765
// at high detail, being scaled to 768 a side; a wide screenshot does). Its sides are 1 to
// MaxSide.
func InferSize(rule Rule, detail string, tokens int) (width, height int, err error) {
	lo, hi := 0, 0
	for aspect := 1; aspect <= 8; aspect++ {
		count := func(side int) (int, error) { return TokensOf(rule, aspect*side, side, detail) }
		var top int
		if lo, err = count(1); err == nil {
			top, err = count(MaxSide / aspect)
		}
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", rule.Name(), err)
		}
		if lo == top && aspect == 1 {
			return 0, 0, fmt.Errorf("%s counts every size as %d tokens: %w", rule.Name(), lo, ErrSizeUnknowable)
		}
		hi = max(hi, top)
		if tokens < lo || tokens > top {
			continue
		}
		side, err := nearestSide(count, tokens, MaxSide/aspect)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", rule.Name(), err)
		}
		return aspect * side, side, nil
	}
	return 0, 0, fmt.Errorf("%d tokens: %s counts an image %d to %d: %w", tokens, rule.Name(), lo, hi, ErrSizeUnknowable)
}

// nearestSide is the side in 1..top whose count is nearest tokens, ties to the smaller; the
// counts grow with the side, so it is the least side counting at least tokens or the one
// below it.
func nearestSide(count func(int) (int, error), tokens, top int) (int, error) {
	a, b := 1, top
	for a < b {
		m := (a + b) / 2
		n, err := count(m)
		if err != nil {
			return 0, err
		}
		if n >= tokens {
			b = m
		} else {
			a = m + 1
		}
	}
	if a > 1 {
		above, err := count(a)
		if err != nil {
			return 0, err
		}
		if below, err := count(a - 1); err == nil && tokens-below <= above-tokens {
			return a - 1, nil
		}
	}
	return a, nil
}
