package requestlog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/internal/outfiles"
	"github.com/llm-replay/replay/trace"
)

// ConvertOptions is one conversion of a request log (`replay ingest --format openai-log`): read
// it with the served model's tokenizer and write the normalized trace files or the Mooncake
// export, with no text unless KeepText.
type ConvertOptions struct {
	// Log is the request log to read.
	Log string
	// Tokenizer is the served model's tokenizer.json or its folder (see LoadModel), and
	// HashKeyFile the key of the block hashes (see ReadKeyFile; "" means a random key).
	Tokenizer, HashKeyFile string
	// BlockSize, Map, TimeUnit, OnError and KeepText are as in Options.
	BlockSize         int
	Map               map[string]string
	TimeUnit, OnError string
	KeepText          bool
	// ImageSize (--image-size WxH, "" for none) and ImageTokens (--image-tokens N, 0 for the
	// model's own rule) say how logged images are sized and counted (see Options.Images).
	ImageSize   string
	ImageTokens int
	// LoggedModel is --logged-model: the rule that counted the log's images ("": by each
	// line's model name; LoggedModelRule).
	LoggedModel string
	// AudioTokensPerSecond (--audio-tokens-per-second R, 0 for the model's own rule) says how
	// logged audio clips are counted (see Options.Audio).
	AudioTokensPerSecond float64
	// Out is the file to write: with Mooncake the Mooncake JSONL export, else the normalized
	// trace (Arrow IPC when its name ends in .arrow, .feather or .ipc, Parquet otherwise; with
	// KeepText the text goes beside it, in OUT.text.jsonl). Arrow is one more Arrow IPC file.
	// "" writes none.
	Out, Arrow string
	Mooncake   bool
	// Quarantine, when set, receives the raw lines of the rejected ones (OnError skip); it is
	// kept even when the conversion fails.
	Quarantine string
	// Observe, when set, sees every record in order (--stats counts the trace's shape).
	Observe func(trace.Record)
	// Stderr receives the rejected lines and the usage warning; nil discards them.
	Stderr io.Writer
}

// Convert runs the conversion and returns the reader's final counts. When it fails, the files
// it began are removed, except the quarantine.
func Convert(ctx context.Context, job ConvertOptions) (c Counts, err error) {
	opts, err := job.readOptions()
	if err != nil {
		return Counts{}, err
	}
	var outs outfiles.Set
	defer outs.Finish(&err)
	if job.Quarantine != "" {
		if opts.Quarantine, err = outs.File(job.Quarantine, true); err != nil {
			return Counts{}, err
		}
	}
	r, err := Open(job.Log, opts)
	if err != nil {
		return Counts{}, err
	}
	defer func() {
		if cerr := r.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	s, err := job.openSinks(&outs)
	if err != nil {
		return Counts{}, err
	}
	if err := s.copy(ctx, r); err != nil {
		return Counts{}, err
	}
	if err := outs.Close(); err != nil {
		return Counts{}, err
	}
	c = r.Counts()
	w := job.Stderr
	if w == nil {
		w = io.Discard
	}
	ingest.WriteRejected(w, c.Errors, c.Rejected, job.Quarantine, "lines")
	if text := c.CarriedFieldsText(); text != "" {
		fmt.Fprintf(w, "note: request fields carried as logged (options the reader does not know, sent back as they were): %s\n", text)
	}
	if text := c.DroppedFieldsText(); text != "" {
		fmt.Fprintf(w, "note: request fields not replayed: %s\n", text)
	}
	if c.UsageMismatches > 0 {
		fmt.Fprintf(w, "warning: %d of %d requests with usage.prompt_tokens disagree with our count: is --tokenizer the logged model's?\n", c.UsageMismatches, c.UsageChecked)
	}
	return c, nil
}

// readOptions loads the model and the hash key the reader needs.
func (job ConvertOptions) readOptions() (Options, error) {
	tok, chat, err := LoadModel(job.Tokenizer)
	if err != nil {
		return Options{}, err
	}
	opts := Options{Tokenizer: tok, Chat: chat, BlockSize: job.BlockSize, Map: job.Map, TimeUnit: job.TimeUnit, OnError: job.OnError, KeepText: job.KeepText}
	if err := opts.SetImages(job.Tokenizer, job.ImageSize, job.ImageTokens, job.LoggedModel); err != nil {
		return Options{}, err
	}
	if err := opts.SetAudio(job.Tokenizer, job.AudioTokensPerSecond); err != nil {
		return Options{}, err
	}
	if job.HashKeyFile != "" {
		if opts.HashKey, err = ReadKeyFile(job.HashKeyFile); err != nil {
			return Options{}, err
		}
	}
	return opts, nil
}

// sinks are where a conversion's requests go.
type sinks struct {
	moon    *MooncakeWriter
	writers []outfiles.RecordWriter
	text    *json.Encoder // the kept text beside a normalized trace
	observe func(trace.Record)
}

// openSinks creates the job's output files in outs.
func (job ConvertOptions) openSinks(outs *outfiles.Set) (*sinks, error) {
	s := &sinks{observe: job.Observe}
	if job.Mooncake {
		f, err := outs.File(job.Out, false)
		if err != nil {
			return nil, err
		}
		s.moon = NewMooncakeWriter(f)
	} else if job.Out != "" {
		w, err := outs.Records(job.Out)
		if err != nil {
			return nil, err
		}
		s.writers = append(s.writers, w)
		if job.KeepText {
			f, err := outs.File(strings.TrimSuffix(job.Out, ".parquet")+".text.jsonl", false)
			if err != nil {
				return nil, err
			}
			s.text = json.NewEncoder(f)
		}
	}
	if job.Arrow != "" {
		w, err := outs.Records(job.Arrow)
		if err != nil {
			return nil, err
		}
		s.writers = append(s.writers, w)
	}
	return s, nil
}

// copy sends every request of r to the sinks, then flushes the Mooncake export.
func (s *sinks) copy(ctx context.Context, r *Reader) error {
	for n := 0; ; n++ {
		if n%256 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		req, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if err := s.write(req); err != nil {
			return err
		}
	}
	if s.moon != nil {
		return s.moon.Flush()
	}
	return nil
}

func (s *sinks) write(req Request) error {
	if s.moon != nil {
		if err := s.moon.Write(req); err != nil {
			return err
		}
	}
	for _, w := range s.writers {
		if err := w.Write(req.Record); err != nil {
			return err
		}
	}
	if s.text != nil {
		if err := s.text.Encode(map[string]any{"line": req.Line, "prompt": req.Prompt, "response": req.Response}); err != nil {
			return err
		}
	}
	if s.observe != nil {
		s.observe(req.Record)
	}
	return nil
}
