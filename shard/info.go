package shard

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/llm-replay/replay/runfolder"
)

// Info is a shard's identity: which share of which trace it replays, on which clock. The
// runner writes it (WriteInfo) at the start of a sharded run, before the first request, so
// the folder of a shard killed at any moment still says what it is; the merge reads it back
// to refuse folders that are not shares of one schedule.
type Info struct {
	// Shard is K, from 0; Shards is N: this folder holds share K of N.
	Shard  int `json:"shard"`
	Shards int `json:"shards"`
	// StartAt is the shared instant every shard schedules from (--start-at): row offsets
	// of a sharded run are nanoseconds from it, on every machine.
	StartAt time.Time `json:"start_at"`
	// Trace is the replayed trace's identity.
	Trace Identity `json:"trace"`
	// Schedule, when the runner sets it, is the flags that shape the schedule besides the
	// trace, canonically written (e.g. "speed=2 from=0s to=0s limit=0"): shards that
	// disagree on it are not shares of one schedule, and the merge refuses them.
	Schedule string `json:"schedule,omitempty"`
	// Version is replay's version; shards of different versions are merged with a warning.
	Version string `json:"version,omitempty"`
	// Host is the machine (a pod's name in Kubernetes), for people reading the merge.
	Host string `json:"host,omitempty"`
}

// WriteInfo writes dir/shard.json (creating dir if needed) through a synced temporary file
// renamed into place, so a reader sees the whole file or none, even across a power loss.
func WriteInfo(dir string, info Info) error {
	if err := info.validate(); err != nil {
		return fmt.Errorf("shard: %s: %w", filepath.Join(dir, runfolder.Shard), err)
	}
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return fmt.Errorf("shard: encoding %s: %w", runfolder.Shard, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("shard: %w", err)
	}
	return runfolder.WriteFile(filepath.Join(dir, runfolder.Shard), append(b, '\n'))
}

// ReadInfo reads and checks dir/shard.json. A folder without one is not a shard's (a run
// without --shard, or a shard from before shard.json existed): the error says so.
func ReadInfo(dir string) (Info, error) {
	path := filepath.Join(dir, runfolder.Shard)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Info{}, fmt.Errorf("shard: %s: no %s: not the folder of a run with --shard K/N", dir, runfolder.Shard)
	}
	if err != nil {
		return Info{}, fmt.Errorf("shard: %w", err)
	}
	var info Info
	if err := json.Unmarshal(b, &info); err != nil {
		return Info{}, fmt.Errorf("shard: %s: %w", path, err)
	}
	if err := info.validate(); err != nil {
		return Info{}, fmt.Errorf("shard: %s: %w", path, err)
	}
	return info, nil
}

// validate checks the fields a merge relies on.
func (info Info) validate() error {
	switch {
	case info.Shards < 1:
		return fmt.Errorf("shards %d: want at least 1", info.Shards)
	case info.Shard < 0 || info.Shard >= info.Shards:
		return fmt.Errorf("shard %d of %d: want 0 <= shard < shards", info.Shard, info.Shards)
	case info.StartAt.IsZero():
		return errors.New("start_at is missing: every shard schedules from a shared instant")
	}
	return info.Trace.validate()
}

// Label is the shard as people read it: "shard 2 of 4" (K from 0).
func (info Info) Label() string { return fmt.Sprintf("shard %d of %d", info.Shard, info.Shards) }
