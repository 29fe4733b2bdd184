package tokenizer

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
)

// benchText is the mixed text of the throughput benchmarks: the corpus lines joined by "\n",
// repeated until it holds at least 2 MB. scripts/bench-tokenizer.sh builds the same text for
// the Rust reference.
func benchText(b *testing.B) string {
	if p := os.Getenv("REPLAY_BENCH_TEXT"); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		return string(data)
	}
	one := strings.Join(readCorpus(b), "\n")
	var sb strings.Builder
	for sb.Len() < 2<<20 {
		if sb.Len() > 0 {
			sb.WriteString("\n")
		}
		sb.WriteString(one)
	}
	return sb.String()
}

// reportCPU adds the throughput per CPU-second of the timed loop, given the CPU time at its
// start.
func reportCPU(b *testing.B, start float64, bytes int) {
	if start == 0 {
		return
	}
	if used := testenv.CPUTime().Seconds() - start; used > 0 {
		b.ReportMetric(float64(bytes)*float64(b.N)/used/1e6, "MB/cpu-s")
	}
}

var benchNames = []string{"llama3", "qwen3", "gpt4o", "deepseek_v3", "llama2", "gemma3"}

// BenchmarkEncode encodes the whole mixed text in one call, single-threaded.
func BenchmarkEncode(b *testing.B) {
	text := benchText(b)
	for _, name := range benchNames {
		b.Run(name, func(b *testing.B) {
			tk := loadReal(b, name)
			tk.Encode(text, false) // warm the word cache, as the reference's warm-up run does
			b.SetBytes(int64(len(text)))
			b.ResetTimer()
			cpu0 := testenv.CPUTime().Seconds()
			for i := 0; i < b.N; i++ {
				tk.Encode(text, false)
			}
			reportCPU(b, cpu0, len(text))
		})
	}
}

// BenchmarkEncodeLines encodes the mixed text line by line (each line without its "\n"),
// single-threaded: the granularity of the reference's lines mode.
func BenchmarkEncodeLines(b *testing.B) {
	text := benchText(b)
	lines := strings.Split(text, "\n")
	for _, name := range benchNames {
		b.Run(name, func(b *testing.B) {
			tk := loadReal(b, name)
			for _, l := range lines {
				tk.Encode(l, false)
			}
			b.SetBytes(int64(len(text)))
			b.ResetTimer()
			cpu0 := testenv.CPUTime().Seconds()
			for i := 0; i < b.N; i++ {
				for _, l := range lines {
					tk.Encode(l, false)
				}
			}
			reportCPU(b, cpu0, len(text))
		})
	}
}

// BenchmarkCount is the count-only path on the same text.
func BenchmarkCount(b *testing.B) {
	text := benchText(b)
	for _, name := range benchNames {
		b.Run(name, func(b *testing.B) {
			tk := loadReal(b, name)
			tk.Count(text)
			b.SetBytes(int64(len(text)))
			b.ResetTimer()
			cpu0 := testenv.CPUTime().Seconds()
			for i := 0; i < b.N; i++ {
				tk.Count(text)
			}
			reportCPU(b, cpu0, len(text))
		})
	}
}

// BenchmarkEncodeParallel encodes the lines of the mixed text from two goroutines (the cores
// of the reference machine), interleaved; the throughput is over both.
func BenchmarkEncodeParallel(b *testing.B) {
	text := benchText(b)
	lines := strings.Split(text, "\n")
	for _, name := range benchNames[:2] {
		b.Run(name, func(b *testing.B) {
			tk := loadReal(b, name)
			tk.Encode(text, false)
			b.SetBytes(int64(len(text)))
			b.ResetTimer()
			cpu0 := testenv.CPUTime().Seconds()
			for i := 0; i < b.N; i++ {
				var wg sync.WaitGroup
				workers := 2
				for w := 0; w < workers; w++ {
					wg.Add(1)
					go func(w int) {
						defer wg.Done()
						for k := w; k < len(lines); k += workers {
							tk.Encode(lines[k], false)
						}
					}(w)
				}
				wg.Wait()
			}
			reportCPU(b, cpu0, len(text))
		})
	}
}
