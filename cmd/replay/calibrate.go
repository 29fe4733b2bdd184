package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/calibrate"
)

func init() {
	register(&command{
		name:    "calibrate",
		summary: "Measure single requests one at a time over prompt and output lengths and fit TTFT and TPOT curves",
		usage:   "--endpoint URL --model NAME --tokenizer FILE [--max-prompt-tokens N] --out DIR",
		example: `  # one request at a time, prompts up to 4,096 tokens; writes calibration.json and calibration.html
  replay calibrate --endpoint http://127.0.0.1:8000/v1 --model Qwen/Qwen3-8B \
      --tokenizer ~/models/Qwen3-8B --max-prompt-tokens 4096 --out runs/calib

  # prompts up to the trace's p99, then split a loaded run's TTFT into prefill and queueing
  replay calibrate --trace mooncake.jsonl --endpoint http://127.0.0.1:8000/v1 --model M \
      --tokenizer ~/models/M --out runs/calib
  replay run --trace mooncake.jsonl --endpoint http://127.0.0.1:8000/v1 --model M \
      --tokenizer ~/models/M --calibration runs/calib/calibration.json --out runs/loaded`,
		exits:   "  0    calibrated: calibration.json and calibration.html written\n  1    bad input, setup error, or too few answers to fit a curve\n",
		grouped: true,
		setup:   setupCalibrate,
	})
}

func setupCalibrate(fs *pflag.FlagSet, std cli) func(ctx context.Context, args []string) error {
	config := addRunFlags(fs, std)
	// The run's --max-prompt-tokens is, here, the largest prompt measured: its 0 is auto.
	mp := fs.Lookup("max-prompt-tokens")
	mp.Value.(*wordFlag[int]).words = []keyword[int]{auto(0)}
	mp.DefValue, mp.Usage = wordAuto, "largest prompt measured (auto: the --trace's p99 prompt, else 2048; 0 means auto too)"
	var o calibrate.Options
	fs.IntVar(&o.Points, "points", 6, "prompt lengths measured, evenly spread up to the largest")
	prompts := fs.String("prompt-tokens", "", "exact prompt lengths instead of --points (e.g. 128,512,2048)")
	outputs := fs.String("output-tokens", "8,32", "output lengths each prompt length is measured with")
	fs.IntVar(&o.Repeats, "repeats", 3, "times the whole grid is measured, fresh prefixes each time")
	fs.BoolVar(&o.NoCached, "no-cached", false, "skip the cached-prefix repeat of each prompt length")
	return func(ctx context.Context, args []string) error {
		cfg, err := config(args)
		if err != nil {
			return err
		}
		// --max-prompt-tokens is the run flag's: here it is the largest prompt measured
		// (default: the --trace's p99 prompt, else 2048).
		o.MaxPromptTokens = cfg.Synth.MaxPromptTokens
		if o.PromptTokens, err = intList("--prompt-tokens", *prompts); err != nil {
			return err
		}
		if o.OutputTokens, err = intList("--output-tokens", *outputs); err != nil {
			return err
		}
		if o.Repeats <= 0 {
			return fmt.Errorf("--repeats %d: want 1 or more", o.Repeats)
		}
		c, err := calibrate.Run(ctx, cfg, o)
		if err != nil {
			return err
		}
		calibrate.WriteSummary(std.stdout, c)
		return nil
	}
}

// intList parses a comma-separated list of whole numbers; "" is none.
func intList(flag, s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a whole number", flag, f)
		}
		out = append(out, v)
	}
	return out, nil
}
