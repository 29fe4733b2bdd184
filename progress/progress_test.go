package progress

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/scheduler"
)

// syncBuffer is a strings.Builder the display's goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// TestJSONLine: in JSON mode Finish writes one object with the run's total and its errors,
// a failed request's last attempt counted and a retried or warmup one not.
func TestJSONLine(t *testing.T) {
	d := New(7, time.Minute, &scheduler.Counters{}, JSON)
	d.Add(&results.Row{HTTPStatus: 500, ErrorClass: "http"})
	d.Add(&results.Row{HTTPStatus: 500, ErrorClass: "http", Retried: true})
	d.Add(&results.Row{HTTPStatus: 500, ErrorClass: "http", Warmup: true})
	var out syncBuffer
	d.Run(&out)
	d.Finish()
	var line progressLine
	if err := json.Unmarshal([]byte(strings.TrimSpace(out.b.String())), &line); err != nil {
		t.Fatalf("%q: %v", out.b.String(), err)
	}
	if line.Total != 7 || line.Errors != 1 || line.ScheduleS != 60 {
		t.Errorf("%+v", line)
	}
}
