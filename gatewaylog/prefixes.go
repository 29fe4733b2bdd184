package gatewaylog

import (
	"github.com/llm-replay/replay/trace"
)

// BlockSize is the tokens per block of the hashes synthesized for logged cached tokens: vLLM's
// and SGLang's default page, so a replay against them (or the simulator) hits at the same
// granularity the logged counts were made at. A logged count is shared to the block below it.
const BlockSize = 16

// donorsKept bounds the earlier requests remembered per key: the donor is the latest one
// long enough, almost always among the last few.
const donorsKept = 32

// synthesizePrefixes gives every record that logs its cached tokens block hashes that share
// that many tokens (to the block, and never the prompt's last token, which an engine always
// computes) with the latest earlier record of the same key that is long enough, and fresh
// blocks after them. Records that do not log cached tokens get no hashes and no session, so
// they replay with unique prefixes, as nothing says what they shared.
func synthesizePrefixes(recs []trace.Record) {
	var fresh uint64
	newHash := func() uint64 {
		fresh++
		return fresh*0x9e3779b97f4a7c15 | 1
	}
	donors := map[string][][]uint64{}
	for i := range recs {
		r := &recs[i]
		if r.Options == nil || r.Options.CachedTokens == nil {
			r.SessionID = ""
			continue
		}
		blocks := (r.PromptTokens + BlockSize - 1) / BlockSize
		shared := min(*r.Options.CachedTokens, max(r.PromptTokens-1, 0)) / BlockSize
		hashes := make([]uint64, 0, blocks)
		if shared > 0 {
			for _, d := range donors[r.SessionID] {
				if len(d) >= shared {
					hashes = append(hashes, d[:shared]...)
					break
				}
			}
		}
		for len(hashes) < blocks {
			hashes = append(hashes, newHash())
		}
		r.BlockHashes, r.BlockSize = hashes, BlockSize
		// Latest first; the oldest falls off.
		list := append([][]uint64{hashes}, donors[r.SessionID]...)
		donors[r.SessionID] = list[:min(len(list), donorsKept)]
	}
}
