package gatewaylog

import (
	"errors"
	"fmt"
	"strings"

	"github.com/llm-replay/replay/ingest"
)

// timeMap is where --map timestamp=KEY says a log keeps each request's time: the path of KEY,
// nil without the flag. A gateway format reads its source's own fields, so the time is the only
// field --map may move (exporters and pipelines rename it: @timestamp, time, ts); any other
// field, or a text log's time (in its lines' prefix), is refused rather than ignored.
func timeMap(s Schema, m map[string]string) ([]string, error) {
	for field, key := range m {
		switch {
		case field != "timestamp":
			return nil, fmt.Errorf("--map %s=%s: --format %s reads its source's own fields; only --map timestamp=KEY applies to it", field, key, s.Format)
		case s.Time == "":
			return nil, fmt.Errorf("--map timestamp=%s: --format %s reads each request's time from its lines' prefix, not a key", key, s.Format)
		}
		return ingest.SplitPath(key)
	}
	return nil, nil
}

// moveTime puts the value at path (--map timestamp=KEY) where s reads the time from; a record
// without it is left as it is, and its schema says the time is missing.
func moveTime(s Schema, rec Record, path []string) {
	root, ok := rec.root.(map[string]any)
	if len(path) == 0 || !ok {
		return
	}
	if v := rec.Get(path...); v.Exists() {
		root[s.Time] = v.v
	}
}

// timeHint adds to a record's missing time the --map that points the schema at the key the log
// holds it under.
func timeHint(s Schema, rec Record, err error) error {
	var fe *FieldError
	if s.Time == "" || !errors.As(err, &fe) || (fe.Field != s.Time && !strings.HasSuffix(fe.Field, "."+s.Time)) {
		return err
	}
	if rec.Get(s.Time).Exists() {
		return err // there, but not a time: the value is wrong, not where it is
	}
	return &FieldError{Field: fe.Field, Err: fmt.Errorf("%w: this log's records hold no %q; pass --map timestamp=KEY naming the key that holds the request's time", fe.Err, s.Time)}
}
