// Command normlist prints, for normprobe.js, every code point that Go's normalization tables
// reorder or decompose: "codepoint ccc decomposes(NFD) decomposes(NFKD)" per line.
// usage (from the repo root):
//
//	go run ./synth/tokenizer/testdata/unicodegen/normlist > /tmp/normlist.txt
//	node synth/tokenizer/testdata/unicodegen/normprobe.js /tmp/normlist.txt > /tmp/unknown.json
package main

import (
	"bufio"
	"fmt"
	"os"

	"golang.org/x/text/unicode/norm"
)

func main() {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for r := rune(0); r < 0x110000; r++ {
		if r >= 0xD800 && r < 0xE000 {
			continue
		}
		s := string(r)
		c := norm.NFC.PropertiesString(s).CCC()
		d, kd := norm.NFD.String(s) != s, norm.NFKD.String(s) != s
		if c != 0 || d || kd {
			fmt.Fprintf(w, "%d %d %v %v\n", r, c, d, kd)
		}
	}
}
