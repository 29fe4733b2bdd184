package tokenizer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// EncodeLines reads JSON lines {"text": "..."} from r and writes one JSON array of token ids per
// line to w (blank lines are skipped, as the reference encoder does). name labels errors, which
// give the line number: "stdin:3: ...".
func EncodeLines(tk Tokenizer, r io.Reader, w io.Writer, addSpecial bool, name string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<30)
	bw := bufio.NewWriter(w)
	var out []byte
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var v struct {
			Text *string `json:"text"`
		}
		if err := json.Unmarshal(line, &v); err != nil {
			bw.Flush() // the lines before the bad one are still answered
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if v.Text == nil {
			bw.Flush()
			return fmt.Errorf("%s:%d: no \"text\" field", name, n)
		}
		out = append(out[:0], '[')
		for i, id := range tk.Encode(*v.Text, addSpecial) {
			if i > 0 {
				out = append(out, ',')
			}
			out = strconv.AppendInt(out, int64(id), 10)
		}
		out = append(out, ']', '\n')
		if _, err := bw.Write(out); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return bw.Flush()
}
