package shard

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/llm-replay/replay/runfolder"
)

// Manifest is shards.json: what was merged, where each merged row came from (by row range:
// results.Row has no shard column), and the combined schedule's account.
type Manifest struct {
	Shards   int       `json:"shards"`
	StartAt  time.Time `json:"start_at"`
	Trace    Identity  `json:"trace"`
	Schedule Schedule  `json:"schedule"`
	// Folders are the merged shards in order of K, each with its rows' range in the merged
	// requests.parquet.
	Folders  []*Folder `json:"folders"`
	Verdict  string    `json:"verdict"`
	Warnings []string  `json:"warnings,omitempty"`
}

// manifest is the merge's Manifest.
func (r *Result) manifest() Manifest {
	first := r.Folders[0].info
	return Manifest{Shards: first.Shards, StartAt: first.StartAt.UTC(), Trace: first.Trace, Schedule: r.Schedule,
		Folders: r.Folders, Verdict: r.Summary.Verdict, Warnings: r.Warnings}
}

// writeManifest writes out/shards.json atomically.
func writeManifest(out string, m Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("shard: encoding %s: %w", runfolder.Shards, err)
	}
	return runfolder.WriteFile(filepath.Join(out, runfolder.Shards), append(b, '\n'))
}

// ReadManifest reads dir/shards.json, as a test or a script checks a merge.
func ReadManifest(dir string) (*Manifest, error) {
	var m Manifest
	if err := readJSON(filepath.Join(dir, runfolder.Shards), &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// readJSON decodes the JSON file at path into v; errors name the file.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("shard: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("shard: %s: %w", path, err)
	}
	return nil
}
