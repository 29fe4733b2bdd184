package tokenizer

import (
	"slices"
	"sync"
	"testing"
)

// TestConcurrentEncode shares one tokenizer between goroutines (the word cache and the scratch
// pool are shared state) and checks they get the same ids as a single goroutine.
func TestConcurrentEncode(t *testing.T) {
	corpus := readCorpus(t)
	if len(corpus) > 1500 {
		corpus = corpus[:1500]
	}
	for _, name := range []string{"qwen3", "llama2"} {
		tk := loadReal(t, name)
		want := make([][]int, len(corpus))
		for i, text := range corpus {
			want[i] = tk.Encode(text, false)
		}
		fresh := loadFresh(t, name)
		var wg sync.WaitGroup
		errs := make(chan string, 4)
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				for k := range corpus {
					i := (k*7 + g*131) % len(corpus)
					if got := fresh.Encode(corpus[i], false); !slices.Equal(got, want[i]) {
						errs <- corpus[i]
						return
					}
					if fresh.Count(corpus[i]) != len(want[i]) {
						errs <- corpus[i]
						return
					}
				}
			}(g)
		}
		wg.Wait()
		close(errs)
		for text := range errs {
			t.Errorf("%s: concurrent encode of %q differs from single-threaded", name, text)
		}
	}
}

// loadFresh loads a tokenizer with an empty word cache.
func loadFresh(t *testing.T, name string) *HF {
	t.Helper()
	tk, err := Load(cacheDir(t) + "/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return tk.(*HF)
}
