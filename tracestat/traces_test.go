package tracestat

import (
	"fmt"
	"testing"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/internal/testenv"
)

// TestSharedShapes checks the shapes of the public traces against figures known for them
// (64.0%: the Mooncake synthetic trace's ideal block hit rate, as first measured here).
func TestSharedShapes(t *testing.T) {
	mc, _, err := ingest.ReadAll(testenv.SharedTrace(t, "mooncake_synthetic.jsonl"), ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := Stats(mc)
	if got := fmt.Sprintf("%.1f%%", 100*s.IdealHitRate); got != "64.0%" {
		t.Errorf("ideal block hit rate %s, want 64.0%%", got)
	}
	if s.Prompt.Max != 191378 || s.Output.Max != 893 || s.Records != 3993 {
		t.Errorf("mooncake shape %+v", s)
	}
	if span := fmt.Sprintf("%.0f", s.SpanSeconds); span != "1022" {
		t.Errorf("mooncake span %s s, want 1022", span)
	}
	az, _, err := ingest.ReadAll(testenv.SharedTrace(t, "azure2023_conv.csv"), ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sa := Stats(az)
	if span := fmt.Sprintf("%.0f", sa.SpanSeconds); span != "3502" || sa.Prompt.Max != 14050 || sa.Output.Max != 1000 || sa.HashedRecords != 0 {
		t.Errorf("azure shape %+v", sa)
	}
	if rate := fmt.Sprintf("%.1f", sa.MeanRate); rate != "5.5" {
		t.Errorf("azure mean rate %s, want 5.5", rate)
	}
}
