package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/llm-replay/replay/ingest"
)

// formatHelp writes `--format help`: each input format, what it reads, and an example of its
// input under it (a CSV's header and first row; a server log's line), as each reader's package
// describes it (ingest.Abouts).
func formatHelp(w io.Writer) {
	fmt.Fprintf(w, "%-17s %s\n", "FORMAT", "READS (and an example of the input)")
	for _, a := range ingest.Abouts() {
		fmt.Fprintf(w, "%-17s %s\n", a.Format, a.Reads)
		for line := range strings.SplitSeq(a.Example, "\n") {
			if line != "" {
				fmt.Fprintf(w, "%-17s   %s\n", "", line)
			}
		}
	}
	fmt.Fprintln(w, "\n--map field=column points a field at another column or key, e.g. --map timestamp=ts,prompt_tokens=usage.prompt_tokens")
	fmt.Fprintln(w, "Any file may be gzip'd or zstd'd (told by its content); a JSON format may be JSON lines, one JSON array or")
	fmt.Fprintln(w, "pretty-printed documents; --trace takes a file, a folder, a glob or several, read as one log in time order.")
}
