package requestlog

import (
	"encoding/json"
	"strconv"
	"time"
)

// statusClientClosed is nginx's 499, which gateways log for a request the client gave up on.
const statusClientClosed = 499

// outcome reads how the request ended into e.opts: the HTTP status (the line's, else the
// response's status_code or status when a number), the first choice's finish_reason (read
// with the response), and whether and when the client gave up (a 499 or "cancelled": true;
// duration_ms, else end_timestamp less the request's timestamp). Call it after response and
// timestamp.
func (l line) outcome(e *entry, unit time.Duration) error {
	status, err := l.status()
	if err != nil {
		return err
	}
	e.opts.Status = status
	cancelled, err := l.cancelled()
	if err != nil {
		return err
	}
	e.opts.Cancelled = cancelled || status == statusClientClosed
	if !e.opts.Cancelled {
		return nil
	}
	e.opts.CancelAfterMS, err = l.cancelAfter(e.time, unit)
	return err
}

// status is the logged HTTP status: the line's, else the response's status_code or status;
// 0 when none. A status that is a word ("success", as some gateways log) is no HTTP status and
// is passed over; a number that is not one is an error.
func (l line) status() (int, error) {
	v, ok, err := l.get("status")
	if err != nil {
		return 0, err
	}
	type candidate struct {
		v    any
		name string
	}
	var cands []candidate
	if ok {
		cands = append(cands, candidate{v, l.m.name("status")})
	}
	if resp, isObj := l.responseObject(); isObj {
		for _, k := range []string{"status_code", "status"} {
			cands = append(cands, candidate{resp[k], l.m.name("response") + "." + k})
		}
	}
	for _, c := range cands {
		if _, isNum := floatValue(c.v); !isNum {
			continue
		}
		code, ok := intValue(c.v)
		if !ok || code < 100 || code > 999 {
			return 0, bad(c.name, "not an HTTP status")
		}
		return code, nil
	}
	return 0, nil
}

// responseObject is the line's response, when it is an object (or a string holding one).
func (l line) responseObject() (map[string]any, bool) {
	v, ok, err := l.get("response")
	if err != nil || !ok {
		return nil, false
	}
	return object(v)
}

func (l line) cancelled() (bool, error) {
	v, ok, err := l.get("cancelled")
	if err != nil || !ok {
		return false, err
	}
	b, isBool := v.(bool)
	if !isBool {
		return false, bad(l.m.name("cancelled"), "not a boolean")
	}
	return b, nil
}

// cancelAfter is how long after its send the request was given up, in milliseconds: the
// line's duration_ms, else its end_timestamp less its timestamp; 0 when the log says neither.
func (l line) cancelAfter(start time.Time, unit time.Duration) (float64, error) {
	if v, ok, err := l.get("duration_ms"); err != nil {
		return 0, err
	} else if ok {
		ms, isNum := floatValue(v)
		if !isNum || ms < 0 {
			return 0, bad(l.m.name("duration_ms"), "not a non-negative number of milliseconds")
		}
		return ms, nil
	}
	v, ok, err := l.get("end_timestamp")
	if err != nil || !ok {
		return 0, err
	}
	end, err := parseTime(v, unit)
	if err != nil {
		return 0, &fieldError{field: l.m.name("end_timestamp"), err: err}
	}
	if end.Before(start) {
		return 0, bad(l.m.name("end_timestamp"), "before the request's timestamp")
	}
	return float64(end.Sub(start)) / float64(time.Millisecond), nil
}

// intValue reads a JSON integer, or a string holding one.
func intValue(v any) (int, bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = x
	default:
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// floatValue reads a JSON number, or a string holding one.
func floatValue(v any) (float64, bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = x
	default:
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}
