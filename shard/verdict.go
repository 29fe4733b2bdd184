package shard

import (
	"fmt"
	"strings"

	"github.com/llm-replay/replay/analysis"
)

// severity orders the verdicts a shard can carry that the merged rows cannot show by
// themselves: a cut shard lost its in-flight and unsent requests, an interrupted one stopped
// early, and a client-bound one measured its own machine, whatever the other shards did.
// Failed is not among them: failures are rows, and the merged verdict counts them over all.
func severity(verdict string) int {
	switch {
	case analysis.VerdictIs(verdict, analysis.VerdictCut):
		return 3
	case analysis.VerdictIs(verdict, analysis.VerdictInterrupted):
		return 2
	case analysis.VerdictIs(verdict, analysis.VerdictClientBound):
		return 1
	}
	return 0
}

// mergedVerdict is the verdict over all rows (all), led by the worst shard's own verdict when
// that is more severe: if one shard of four was client-bound, the merged run was, and the
// line starts with that shard's verdict word for word (so its first word still gives the
// kind). A missing shard is said last.
func mergedVerdict(all string, fs []*Folder, missingK []int, n int) string {
	v := all
	if worst := worstShard(fs); worst != nil && severity(worst.Verdict) > severity(all) {
		v = fmt.Sprintf("%s [%s%s]; over all shards: %s", worst.Verdict, worst.Label(), alsoShards(fs, worst), all)
	}
	if len(missingK) == 0 {
		return v
	}
	note := missingNote(missingK, n) + ", not in these figures"
	return v + "; " + note
}

// worstShard is the lowest-K shard of the most severe verdict, nil when none is severe.
func worstShard(fs []*Folder) *Folder {
	var worst *Folder
	for _, f := range fs {
		if severity(f.Verdict) > 0 && (worst == nil || severity(f.Verdict) > severity(worst.Verdict)) {
			worst = f
		}
	}
	return worst
}

// alsoShards names the other shards whose verdict is of worst's kind.
func alsoShards(fs []*Folder, worst *Folder) string {
	var ks []string
	for _, f := range fs {
		if f != worst && severity(f.Verdict) == severity(worst.Verdict) {
			ks = append(ks, fmt.Sprint(f.Shard))
		}
	}
	if len(ks) == 0 {
		return ""
	}
	return "; also shards " + strings.Join(ks, ", ")
}

// missingNote names missing shards: "shard 3 of 4 is missing", "shards 1, 3 of 4 are missing".
func missingNote(ks []int, n int) string {
	if len(ks) == 1 {
		return shardList(ks, n) + " is missing"
	}
	return shardList(ks, n) + " are missing"
}
