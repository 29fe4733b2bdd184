package gen

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Config says what trace to generate. The zero value of every field but Seed means its default
// (see Default); Seed is used as given, so 0 is a seed of its own, not a synonym for 1: a sweep
// over seeds 0..N must not get two identical traces.
type Config struct {
	// Shape is "chat", "code", "agent" or "mixed"; "" means mixed.
	Shape string
	// Duration is the span of arrivals; 0 means 2 minutes. Turns and steps that would come
	// after it are left out, as in a slice of a real trace.
	Duration time.Duration
	// Rate is the mean number of requests per second over Duration; 0 means 3.
	Rate float64
	// Seed selects the trace: the same Config always gives the same records, byte for byte.
	Seed uint64
	// BlockSize is the number of tokens per hashed prompt block; 0 means 512, Mooncake's.
	BlockSize int
}

// Shapes lists the accepted Config.Shape values, in the order help text shows them.
var Shapes = []string{"chat", "code", "agent", "mixed"}

// Defaults of the zero Config fields.
const (
	DefaultShape     = "mixed"
	DefaultDuration  = 2 * time.Minute
	DefaultRate      = 3.0
	DefaultSeed      = 1
	DefaultBlockSize = 512
)

// maxRequests bounds Rate x Duration, so a typo (--rate 3000 --duration 24h) is an error
// instead of minutes of work and gigabytes of memory.
const maxRequests = 10_000_000

// Default is the trace `replay gen` writes without flags: mixed, 2 minutes, 3 requests/s,
// seed 1, 512-token blocks.
func Default() Config {
	return Config{Shape: DefaultShape, Duration: DefaultDuration, Rate: DefaultRate, Seed: DefaultSeed, BlockSize: DefaultBlockSize}
}

// normalized fills the defaults and checks the values; errors name the field and its flag,
// for both the runner and `replay gen`.
func (c Config) normalized() (Config, error) {
	c.Shape = strings.ToLower(strings.TrimSpace(c.Shape))
	if c.Shape == "" {
		c.Shape = DefaultShape
	}
	if !slices.Contains(Shapes, c.Shape) {
		return c, fmt.Errorf("gen.Config.Shape (--shape) %q: want one of %s", c.Shape, strings.Join(Shapes, ", "))
	}
	if c.Duration < 0 {
		return c, fmt.Errorf("gen.Config.Duration (--duration) %v: must be positive", c.Duration)
	}
	if c.Duration == 0 {
		c.Duration = DefaultDuration
	}
	if c.Rate < 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0) {
		return c, fmt.Errorf("gen.Config.Rate (--rate) %v: must be a positive number of requests per second", c.Rate)
	}
	if c.Rate == 0 {
		c.Rate = DefaultRate
	}
	if c.BlockSize < 0 {
		return c, fmt.Errorf("gen.Config.BlockSize (--block-size) %d: must be positive", c.BlockSize)
	}
	if c.BlockSize == 0 {
		c.BlockSize = DefaultBlockSize
	}
	if n := c.Rate * c.Duration.Seconds(); n > maxRequests {
		return c, fmt.Errorf("gen.Config.Rate (--rate) %v x Duration (--duration) %v is %.0f requests, more than %d", c.Rate, c.Duration, n, maxRequests)
	}
	return c, nil
}

// source names a generated trace in Record.Source, the way a file path names a read one.
func (c Config) source() string { return fmt.Sprintf("gen:%s:seed%d", c.Shape, c.Seed) }
