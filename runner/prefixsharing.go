package runner

import (
	"fmt"
	"io"

	"github.com/llm-replay/replay/trace"
)

// sayPrefixSharing tells the user when the trace says nothing of which prompts share a prefix:
// no record has block hashes, a session or logged cached tokens (a gateway log of token counts
// alone). Every prompt is then built with a prefix of its own, so the endpoint's prefix cache
// hits only on what the chat template or tools repeat: a figure about the engine, not the
// traffic, and the user must know it is not the production hit rate.
func sayPrefixSharing(w io.Writer, recs []trace.Record) {
	for i := range recs {
		r := &recs[i]
		if len(r.BlockHashes) > 0 || r.SessionID != "" || (r.Options != nil && r.Options.CachedTokens != nil) {
			return
		}
	}
	fmt.Fprintf(w, "replay: prefix sharing is unknown: the trace's %d records have no block hashes, sessions or logged cached tokens, so each prompt is replayed with a prefix of its own (the hit rate measured is not the production one)\n", len(recs))
}
