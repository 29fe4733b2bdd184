package ingest

import (
	"fmt"
	"strconv"
	"strings"
)

// SplitPath splits a --map column into the member names it follows: dots separate them
// (usage.prompt_tokens), and a name that holds dots itself is written in brackets, quoted
// ("gen_ai.usage.input_tokens" as one key, as Envoy AI Gateway's access logs write it:
// ["gen_ai.usage.input_tokens"], or attributes["gen_ai.request.model"]). The quoting is Go's
// and JSON's double-quoted string. Brackets, not a backslash before each dot, because the
// shell and the comma-separated --map form leave them alone inside single quotes.
func SplitPath(col string) ([]string, error) {
	var parts []string
	rest := col
	for rest != "" {
		if rest[0] == '[' {
			end := closingBracket(rest)
			if end < 0 {
				return nil, fmt.Errorf("path %q: a [\"...\"] step without its closing \"]", col)
			}
			key, err := strconv.Unquote(rest[1:end])
			if err != nil {
				return nil, fmt.Errorf("path %q: the step %s must be a double-quoted name, as [\"a.b\"]", col, rest[:end+1])
			}
			parts = append(parts, key)
			rest = rest[end+1:]
			if after, ok := strings.CutPrefix(rest, "."); ok {
				if after == "" {
					return nil, fmt.Errorf("path %q: ends with a dot", col)
				}
				rest = after
			} else if rest != "" && rest[0] != '[' {
				return nil, fmt.Errorf("path %q: want a dot or [ after %q", col, key)
			}
			continue
		}
		i := strings.IndexAny(rest, ".[")
		if i < 0 {
			i = len(rest)
		}
		if i == 0 {
			return nil, fmt.Errorf("path %q: empty step", col)
		}
		parts = append(parts, rest[:i])
		rest = rest[i:]
		if after, ok := strings.CutPrefix(rest, "."); ok {
			if after == "" {
				return nil, fmt.Errorf("path %q: ends with a dot", col)
			}
			rest = after
		}
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("empty path")
	}
	return parts, nil
}

// closingBracket is the index of the ] that closes s's leading ["...": the first ] after a
// complete quoted string, -1 when there is none.
func closingBracket(s string) int {
	if len(s) < 2 || s[1] != '"' {
		return -1
	}
	for i := 2; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			if i+1 < len(s) && s[i+1] == ']' {
				return i + 1
			}
			return -1
		}
	}
	return -1
}
