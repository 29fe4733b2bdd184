package ingest

import (
	"bytes"
	"fmt"
	"io"
)

// Skip is what a reader does with a bad line under --on-error skip: count it, keep its error
// among the first few the summary shows, and write the line as read (one line, its own
// ending dropped) to the quarantine, when there is one. The readers that register with ingest
// and count in its Counts (gateway logs, OTLP) share it, so a skipped line reads the same in
// their counts and quarantine files.
func (c *Counts) Skip(quarantine io.Writer, line []byte, err error) error {
	c.Rejected++
	if len(c.Errors) < maxKeptErrors {
		c.Errors = append(c.Errors, err.Error())
	}
	if quarantine == nil {
		return nil
	}
	if _, werr := quarantine.Write(append(bytes.TrimRight(line, "\r\n"), '\n')); werr != nil {
		return fmt.Errorf("quarantine: %w", werr)
	}
	return nil
}
