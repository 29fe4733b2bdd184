package checks

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Answer is what Overload needs of one answer of a run: its HTTP status (0 when there was
// none: the connection failed) and its Retry-After in nanoseconds (0 when absent). It is two
// fields rather than a result row, so that this package depends on no row format; the runner
// maps each row (every attempt, retried or not) to one.
type Answer struct {
	Status       int
	RetryAfterNS int64
}

// Overload judges a run's answers for overload semantics: the distribution of statuses (in
// Seen), and whether every 429 and 503 carried Retry-After, the header that tells a client when
// to come back (RFC 9110 §10.2.3): without it, clients retry blindly and pile onto an
// overloaded server. Each 429 or 503 with it is a Pass, without it a Fail; a run with neither is
// Skipped, since it never overloaded the endpoint.
func Overload(answers []Answer) Result {
	res := Result{Name: OverloadCheck}
	count := map[int]int{}
	missing := map[int]int{}
	for _, a := range answers {
		count[a.Status]++
		if a.Status != http.StatusTooManyRequests && a.Status != http.StatusServiceUnavailable {
			continue
		}
		if a.RetryAfterNS > 0 {
			res.Pass++
		} else {
			res.Fail++
			missing[a.Status]++
		}
	}
	res.Seen = distribution(count, len(answers))
	if res.Pass+res.Fail == 0 {
		res.Skipped = fmt.Sprintf("no 429 or 503 among %d answers: the run did not overload the endpoint", len(answers))
		return res
	}
	for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		if n := missing[status]; n > 0 {
			res.Examples = append(res.Examples, fmt.Sprintf("%d without Retry-After (%d of %d)", status, n, count[status]))
		}
	}
	return res
}

// distribution is "statuses: 200×950, 429×40, none×2 of 992", statuses in order, 0 as none.
func distribution(count map[int]int, total int) string {
	if total == 0 {
		return "no answers"
	}
	statuses := make([]int, 0, len(count))
	for s := range count {
		statuses = append(statuses, s)
	}
	slices.Sort(statuses)
	parts := make([]string, 0, len(statuses))
	for _, s := range statuses {
		name := strconv.Itoa(s)
		if s == 0 {
			name = "none"
		}
		parts = append(parts, fmt.Sprintf("%s×%d", name, count[s]))
	}
	return fmt.Sprintf("statuses: %s of %d", strings.Join(parts, ", "), total)
}
