package accesslog

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/llm-replay/replay/ingest"
)

// IsRequestLog says whether the trace at path is to be read by this package: format is
// openai-log, or auto (or "") and the file's first 64 KiB look like a request log to
// ingest.Detect. Any other format belongs to ingest.
func IsRequestLog(format, path string) (bool, error) {
	switch format {
	case ingest.FormatOpenAILog:
		return true, nil
	case ingest.FormatAuto, "":
	default:
		return false, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	got, err := ingest.Detect(buf[:n])
	return err == nil && got == ingest.FormatOpenAILog, nil
}
