package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"
)

// runBench runs "ntksvm bench [name] [flags]": one target of benchmarks, or
// defaultBenches with the same flags.
func runBench(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprintln(e.stderr, "Usage: ntksvm bench [name] [flags]\n\nBenchmarks:")
		for _, b := range benchmarks {
			fmt.Fprintf(e.stderr, "  %-8s %s\n", b.name, b.summary)
		}
		fmt.Fprintf(e.stderr, "\nWithout a name it runs: %s. \"ntksvm bench NAME -h\" lists a benchmark's flags.\n",
			strings.Join(defaultBenches, ", "))
		return flag.ErrHelp
	}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		b := lookup(benchmarks, args[0])
		if b == nil {
			return usageError("unknown benchmark %q; run \"ntksvm bench -h\"", args[0])
		}
		return b.run(ctx, e, args[1:])
	}
	for _, n := range defaultBenches {
		b := lookup(benchmarks, n)
		if b == nil {
			return fmt.Errorf("benchmark %q is not built in", n)
		}
		if err := b.run(ctx, e, args); err != nil {
			return err
		}
	}
	return nil
}

// benchCommon are the flags every benchmark takes.
type benchCommon struct {
	threads int
	json    bool
	runs    int
}

// addCommonFlags registers --threads, --json and --runs on fs.
func addCommonFlags(fs *flag.FlagSet) *benchCommon {
	c := &benchCommon{}
	fs.IntVar(&c.threads, "threads", runtime.GOMAXPROCS(0), "number of threads")
	fs.BoolVar(&c.json, "json", false, "print one JSON object per line instead of a table")
	fs.IntVar(&c.runs, "runs", 5, "timed runs per measurement; the median is reported")
	return c
}

// parse parses a benchmark's command line args into fs, which holds the
// common flags c, and validates the common flags.
func (c *benchCommon) parse(fs *flag.FlagSet, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return c.check()
}

// check validates the common flags.
func (c *benchCommon) check() error {
	if c.threads < 1 || c.threads > 4096 {
		return usageError("--threads %d: want 1…4096", c.threads)
	}
	if c.runs < 1 || c.runs > 10000 {
		return usageError("--runs %d: want 1…10000", c.runs)
	}
	return nil
}

// gflopsRow is one result of the GFLOP/s benchmarks ("micro", "gemm"); it is
// also their JSON line. Seconds is the median time of one product (gemm
// only).
type gflopsRow struct {
	Op         string  `json:"op"`
	Dtype      string  `json:"dtype"`
	Impl       string  `json:"impl"`
	Threads    int     `json:"threads"`
	M          int     `json:"m"`
	K          int     `json:"k"`
	N          int     `json:"n"`
	GFlops     float64 `json:"gflops"`
	PeakGFlops float64 `json:"peak_gflops"`
	Pct        float64 `json:"pct"`
	Seconds    float64 `json:"seconds,omitempty"`
}

// medianTime runs fn runs times (after one untimed warm-up) and returns the
// median wall time in seconds. It stops early with ctx's error.
func medianTime(ctx context.Context, runs int, fn func()) (float64, error) {
	times, err := roundTimes(ctx, runs, fn)
	if err != nil {
		return 0, err
	}
	return median(times[0]), nil
}

// roundTimes runs fns in turn, runs rounds after one untimed warm-up
// round, and returns the wall time in seconds of each function in each
// round, times[i][r] for fns[i] in round r: alternating keeps a changing
// machine load from favouring any of them, and the ratios of one round
// compare measurements taken moments apart. It stops early with ctx's
// error.
func roundTimes(ctx context.Context, runs int, fns ...func()) ([][]float64, error) {
	for _, fn := range fns {
		fn()
	}
	times := make([][]float64, len(fns))
	for range runs {
		for i, fn := range fns {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			t0 := time.Now()
			fn()
			times[i] = append(times[i], time.Since(t0).Seconds())
		}
	}
	return times, nil
}

// median returns the median of xs (the mean of the middle two for an even
// count); xs is not modified.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
