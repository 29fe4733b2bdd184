package main

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/runner"
)

// targetFlags are --endpoint, --model and --api-key-env. Each may be repeated as LABEL=VALUE:
// two or more endpoints make a paired run (every request to each at its scheduled time), and
// a --model or --api-key-env without a label applies to every endpoint without one of its
// own. One value without a label is a single run, as it always was.
type targetFlags struct {
	endpoints, models, keyEnvs []string
}

// Usage lines of the three flags; the back-quoted word is the value's name in --help.
const (
	endpointUsage = "OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 (default: start the built-in simulator); repeated as `[LABEL=]URL`, e.g. --endpoint old=URL --endpoint new=URL, every request goes to each endpoint at its scheduled time: a paired run, each endpoint's files in DIR/LABEL/, the first compared request by request with the others in DIR/compare.json and compare.html"
	modelUsage    = "model name sent in every request (with --endpoint: the one it serves when it lists one, else required); in a paired run a `[LABEL=]NAME` without a label applies to every endpoint, LABEL=NAME to one"
	keyEnvUsage   = "environment variable holding the API key; in a paired run a `[LABEL=]VAR` without a label applies to every endpoint, LABEL=VAR to one"
)

// flagLabel is what a LABEL= prefix may be (runner checks the same): a folder name. A URL's
// scheme ("http:") never matches, so a URL with '=' in its query is not taken for a label.
var flagLabel = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// apply fills cfg from the flags and --api-key-file's keyFile: with at most one --endpoint,
// cfg.Client.BaseURL, Model and APIKey as a single run has them; with two or more, cfg.Endpoints.
func (t *targetFlags) apply(cfg *runner.Config, keyFile string) error {
	if len(t.keyEnvs) > 0 && keyFile != "" {
		return errors.New("give --api-key-env or --api-key-file, not both")
	}
	eps, err := parseEndpoints(t.endpoints)
	if err != nil {
		return err
	}
	if len(eps) <= 1 {
		return t.applySingle(cfg, eps, keyFile)
	}
	known := make([]string, len(eps))
	for i, e := range eps {
		known[i] = e.Label
	}
	model, models, err := byLabel("--model", t.models, known)
	if err != nil {
		return err
	}
	keyEnv, keyEnvs, err := byLabel("--api-key-env", t.keyEnvs, known)
	if err != nil {
		return err
	}
	fileKey := ""
	if keyFile != "" {
		if fileKey, err = client.APIKeyFromFile(keyFile); err != nil {
			return err
		}
	}
	for i := range eps {
		e := &eps[i]
		e.Model = cmp.Or(models[e.Label], model) // none: the one model the endpoint lists (the preflight's), else an error there
		e.APIKey = fileKey
		if env := cmp.Or(keyEnvs[e.Label], keyEnv); env != "" {
			if e.APIKey, err = client.APIKeyFromEnv(env); err != nil {
				return fmt.Errorf("endpoint %s: %w", e.Label, err)
			}
		}
	}
	cfg.Endpoints = eps
	return nil
}

// applySingle is one endpoint or none: its URL, the one model and the one key, as they always
// were (an endpoint's own LABEL= prefix on them is allowed and dropped).
func (t *targetFlags) applySingle(cfg *runner.Config, eps []runner.Endpoint, keyFile string) error {
	label := ""
	if len(eps) == 1 {
		cfg.Client.BaseURL, label = eps[0].URL, eps[0].Label
	}
	model, err := single("--model", t.models, label)
	if err != nil {
		return err
	}
	keyEnv, err := single("--api-key-env", t.keyEnvs, label)
	if err != nil {
		return err
	}
	cfg.Client.Model = model
	switch {
	case keyEnv != "":
		cfg.Client.APIKey, err = client.APIKeyFromEnv(keyEnv)
	case keyFile != "":
		cfg.Client.APIKey, err = client.APIKeyFromFile(keyFile)
	}
	return err
}

// single is the one value of a flag of a run with at most one endpoint, without the
// endpoint's own label when it carries it.
func single(flag string, vals []string, label string) (string, error) {
	switch len(vals) {
	case 0:
		return "", nil
	case 1:
		if label != "" {
			return strings.TrimPrefix(vals[0], label+"="), nil
		}
		return vals[0], nil
	}
	return "", fmt.Errorf("%s given %d times: more than one only with several --endpoint (LABEL=VALUE for each)", flag, len(vals))
}

// parseEndpoints reads --endpoint's values. With two or more, one without a label is named by
// its place: a, b, c...
func parseEndpoints(vals []string) ([]runner.Endpoint, error) {
	eps := make([]runner.Endpoint, 0, len(vals))
	seen := map[string]bool{}
	for i, v := range vals {
		label, url, ok := strings.Cut(v, "=")
		if !ok || !flagLabel.MatchString(label) {
			label, url = "", v
			if len(vals) > 1 {
				label = defaultLabel(i)
			}
		}
		if url == "" {
			return nil, fmt.Errorf("--endpoint %q: want [LABEL=]URL, e.g. new=http://127.0.0.1:8000/v1", v)
		}
		if label != "" && seen[label] {
			return nil, fmt.Errorf("--endpoint: label %q given twice (an endpoint without a label is named by its place: a, b, ...)", label)
		}
		seen[label] = true
		eps = append(eps, runner.Endpoint{Label: label, URL: url})
	}
	return eps, nil
}

// defaultLabel names the i-th endpoint (from 0) when it has no label: a, b, ... z, then e27...
func defaultLabel(i int) string {
	if i < 26 {
		return string(rune('a' + i))
	}
	return fmt.Sprintf("e%d", i+1)
}

// byLabel splits a paired run's values of flag into the one without a label (for every
// endpoint) and those for one endpoint each. A value is an endpoint's when what precedes its
// first '=' is one of the known labels; a prefix that looks like a label but names no endpoint
// is refused, so a typo never sends one endpoint's key or model to another.
func byLabel(flag string, vals, known []string) (all string, per map[string]string, err error) {
	per = map[string]string{}
	for _, v := range vals {
		label, rest, ok := strings.Cut(v, "=")
		switch {
		case ok && slices.Contains(known, label):
			if _, dup := per[label]; dup {
				return "", nil, fmt.Errorf("%s: %s= given twice", flag, label)
			}
			per[label] = rest
			continue
		case ok && flagLabel.MatchString(label):
			return "", nil, fmt.Errorf("%s %q: no endpoint is labelled %q (the labels are %s)", flag, v, label, strings.Join(known, ", "))
		case all != "":
			return "", nil, fmt.Errorf("%s without a label given twice: give LABEL=VALUE for each endpoint (the labels are %s)", flag, strings.Join(known, ", "))
		}
		all = v
	}
	return all, per, nil
}
