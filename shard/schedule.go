package shard

import (
	"fmt"
	"strings"
)

// Schedule accounts for every request of the combined schedule: sent (a row in some shard),
// never sent (each shard's own count), or on a shard no folder was given for, whose count no
// other shard can know (shards split by session hash, so shares differ in size).
type Schedule struct {
	Shards int `json:"shards"`
	// Sent counts distinct measured request ids over all shards.
	Sent int64 `json:"sent"`
	// NotSent sums the shards' requests.not_sent where known; NotSentUnknown lists the
	// shards (K) cut before they could count theirs.
	NotSent        int64 `json:"not_sent"`
	NotSentUnknown []int `json:"not_sent_unknown,omitempty"`
	// Missing lists the shards (K) no folder was given for.
	Missing []int `json:"missing,omitempty"`
	// Line says all of it in one sentence, as `replay merge` prints it.
	Line string `json:"line"`
}

// schedule sums the folders' accounts.
func schedule(fs []*Folder, missingK []int) Schedule {
	s := Schedule{Shards: fs[0].info.Shards, Missing: missingK}
	for _, f := range fs {
		s.Sent += f.RequestIDs
		if f.NotSent == nil {
			s.NotSentUnknown = append(s.NotSentUnknown, f.Shard)
		} else {
			s.NotSent += *f.NotSent
		}
	}
	s.Line = s.line()
	return s
}

// line is e.g. "combined schedule of 4 shards: 1200 requests sent, 3 never sent; shard 3 of
// 4 is missing: how many requests it held is unknown".
func (s Schedule) line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "combined schedule of %d shards: %d requests sent, %d never sent", s.Shards, s.Sent, s.NotSent)
	if len(s.NotSentUnknown) > 0 {
		fmt.Fprintf(&b, " (and an unknown number on %s, cut before it counted them)", shardList(s.NotSentUnknown, s.Shards))
	}
	if len(s.Missing) > 0 {
		pron := "it"
		if len(s.Missing) > 1 {
			pron = "they"
		}
		fmt.Fprintf(&b, "; %s: how many requests %s held is unknown", missingNote(s.Missing, s.Shards), pron)
	}
	return b.String()
}

// shardList names shards: "shard 2 of 4", "shards 0, 2 of 4".
func shardList(ks []int, n int) string {
	if len(ks) == 1 {
		return fmt.Sprintf("shard %d of %d", ks[0], n)
	}
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = fmt.Sprint(k)
	}
	return fmt.Sprintf("shards %s of %d", strings.Join(s, ", "), n)
}
