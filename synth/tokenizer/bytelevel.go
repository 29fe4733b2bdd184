package tokenizer

// The GPT-2 byte-level alphabet: every byte maps to one printable rune so that BPE vocabularies
// can be stored as text. Printable Latin-1 bytes map to themselves, the rest to U+0100 onwards.
var (
	byteToRune [256]rune
	// runeToByte[r] is the byte of alphabet rune r, or -1 (all alphabet runes are below 324).
	runeToByte [324]int16
)

func init() {
	n := 0
	for i := range runeToByte {
		runeToByte[i] = -1
	}
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			byteToRune[b] = rune(b)
		} else {
			byteToRune[b] = rune(256 + n)
			n++
		}
		runeToByte[byteToRune[b]] = int16(b)
	}
}

// byteLevelDecode maps a byte-level string back to raw bytes; ok is false if some rune is not
// part of the alphabet.
func byteLevelDecode(s string) (raw string, ok bool) {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r < 0 || int(r) >= len(runeToByte) || runeToByte[r] < 0 {
			return "", false
		}
		out = append(out, byte(runeToByte[r]))
	}
	return string(out), true
}
