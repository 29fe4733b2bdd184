package tokenizer

import "sync"

// Character classes used by the pre-tokenizer patterns, as bits of one lookup. The tables come
// from unicode_tables.go, which was probed from the reference (its Oniguruma knows a different
// Unicode version than Go's unicode package, so Go's tables would disagree on recent letters).
const (
	clsL  uint16 = 1 << iota // \p{L}
	clsLu                    // \p{Lu}
	clsLl                    // \p{Ll}
	clsLt                    // \p{Lt}
	clsLm                    // \p{Lm}
	clsLo                    // \p{Lo}
	clsM                     // \p{M}
	clsN                     // \p{N}
	clsP                     // \p{P}
	clsS                     // \p{S}
	clsWS                    // \s (Unicode White_Space, as Oniguruma's \s)

	// clsX1 and clsX2 are the two letter-ish classes of the GPT-4o pattern:
	// [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] and [\p{Ll}\p{Lm}\p{Lo}\p{M}].
	clsX1 = clsLu | clsLt | clsLm | clsLo | clsM
	clsX2 = clsLl | clsLm | clsLo | clsM
)

// whiteSpace is Oniguruma's \s for UTF-8: the Unicode White_Space property.
var whiteSpace = [][2]rune{{0x9, 0xd}, {0x20, 0x20}, {0x85, 0x85}, {0xa0, 0xa0}, {0x1680, 0x1680},
	{0x2000, 0x200a}, {0x2028, 0x2029}, {0x202f, 0x202f}, {0x205f, 0x205f}, {0x3000, 0x3000}}

// classBlocks is a two-level table: classIndex[r>>8] picks a 256-entry block of class bits.
var (
	classOnce   sync.Once
	classIndex  [0x110000 >> 8]uint16
	classBlocks [][256]uint16
	asciiClass  [128]uint16
)

func buildClasses() {
	full := make([]uint16, 0x110000)
	set := func(tab [][2]rune, bit uint16) {
		for _, r := range tab {
			for c := r[0]; c <= r[1]; c++ {
				full[c] |= bit
			}
		}
	}
	set(onigL, clsL)
	set(onigLu, clsLu)
	set(onigLl, clsLl)
	set(onigLt, clsLt)
	set(onigLm, clsLm)
	set(onigLo, clsLo)
	set(onigM, clsM)
	set(onigN, clsN)
	set(onigP, clsP)
	set(onigS, clsS)
	set(whiteSpace, clsWS)
	seen := map[[256]uint16]uint16{}
	for hi := 0; hi < len(classIndex); hi++ {
		var blk [256]uint16
		copy(blk[:], full[hi<<8:(hi+1)<<8])
		id, ok := seen[blk]
		if !ok {
			id = uint16(len(classBlocks))
			classBlocks = append(classBlocks, blk)
			seen[blk] = id
		}
		classIndex[hi] = id
	}
	copy(asciiClass[:], full[:128])
}

// class returns the class bits of r; runes outside Unicode have none.
func class(r rune) uint16 {
	if r < 128 && r >= 0 {
		return asciiClass[r]
	}
	if r < 0 || r >= 0x110000 {
		return 0
	}
	return classBlocks[classIndex[r>>8]][r&0xff]
}

func init() { classOnce.Do(buildClasses) }
