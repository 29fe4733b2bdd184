package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/ollama/ollama/fs/ggml"
)

// weights collects a model's tensors, each drawn when it is written from a stream of its own
// (seed ^ hash(prefix+name)), so a file does not depend on the order tensors are added in.
type weights struct {
	seed   uint64
	prefix string
	ts     []*ggml.Tensor
}

func (w *weights) add(name string, shape []uint64, fill func(r *rand.Rand, w []float32)) {
	s := w.seed ^ hash(w.prefix+name)
	w.ts = append(w.ts, &ggml.Tensor{Name: name, Kind: kindOf(shape), Shape: shape, WriterTo: &lazy{shape: shape, seed: s, fill: fill}})
}

// normal draws every value from N(0, scale²).
func normal(scale float32) func(*rand.Rand, []float32) {
	return func(r *rand.Rand, w []float32) {
		for i := range w {
			w[i] = float32(r.NormFloat64()) * scale
		}
	}
}

func ones(_ *rand.Rand, w []float32) {
	for i := range w {
		w[i] = 1
	}
}

func zeros(_ *rand.Rand, w []float32) { clear(w) }

// zeroRow0 draws a matrix, then clears the row that writes residual dimension 0 (the first ne0
// elements), so the carrier survives every layer unchanged.
func zeroRow0(ne0 uint64, scale float32) func(*rand.Rand, []float32) {
	return func(r *rand.Rand, w []float32) {
		normal(scale)(r, w)
		clear(w[:ne0])
	}
}

// carrierEmbeddings is the token embedding of n tokens, residual dimension 0 of each holding
// the carrier constant.
func (w *weights) carrierEmbeddings(d uint64, n int) {
	w.add("token_embd.weight", []uint64{d, uint64(n)}, func(r *rand.Rand, v []float32) {
		normal(1)(r, v)
		for t := 0; t < n; t++ {
			v[uint64(t)*d] = carrier
		}
	})
}

// blocks are the Llama-style decoder layers of p (Qwen2's are the same with q/k/v biases), their
// attention output and FFN down projections not writing the carrier dimension.
func (w *weights) blocks(p preset, qkvBias bool) {
	d := uint64(p.dim)
	kvDim := uint64(p.dim / p.heads * p.kvHeads)
	ff := uint64(p.ffn)
	std := float32(1 / math.Sqrt(float64(p.dim)))
	for i := 0; i < p.layers; i++ {
		b := fmt.Sprintf("blk.%d.", i)
		w.add(b+"attn_norm.weight", []uint64{d}, ones)
		w.add(b+"attn_q.weight", []uint64{d, d}, normal(std))
		w.add(b+"attn_k.weight", []uint64{d, kvDim}, normal(std))
		w.add(b+"attn_v.weight", []uint64{d, kvDim}, normal(std))
		if qkvBias {
			w.add(b+"attn_q.bias", []uint64{d}, zeros)
			w.add(b+"attn_k.bias", []uint64{kvDim}, zeros)
			w.add(b+"attn_v.bias", []uint64{kvDim}, zeros)
		}
		w.add(b+"attn_output.weight", []uint64{d, d}, zeroRow0(d, std))
		w.add(b+"ffn_norm.weight", []uint64{d}, ones)
		w.add(b+"ffn_gate.weight", []uint64{d, ff}, normal(std))
		w.add(b+"ffn_up.weight", []uint64{d, ff}, normal(std))
		w.add(b+"ffn_down.weight", []uint64{ff, d}, zeroRow0(ff, float32(1/math.Sqrt(float64(p.ffn)))))
	}
	w.add("output_norm.weight", []uint64{d}, ones)
}

// write writes the GGUF file out.
func (w *weights) write(out string, kv ggml.KV) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := ggml.WriteGGUF(f, kv, w.ts); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", out, err)
	}
	return f.Close()
}

// writeJSONFiles writes each value as an indented JSON file of its name in dir.
func writeJSONFiles(dir string, files map[string]any) error {
	for name, v := range files {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}
