// Package bench measures the speed of the kernels the experiments run on:
// the targets of "ntksvm bench" (relu, micro, gemm, ntk, svm, train) and
// the tables of "ntksvm bench datasets".
//
// Each benchmark is a Benchmark: it registers its flags on a flag set,
// validates them and measures, printing one JSON object per line or a
// table headed by the CPU. A new benchmark is a type with Flags, Usage and
// Run in its own file here and one line in the command's list of
// benchmarks (cmd/ntksvm/main.go).
//
// Every measurement is a median over timed runs after an untimed warm-up.
// Relu, Micro, Ntk, Svm and Train alternate the measurement with its
// baseline (copy, the FMA peak, the bare Gram GEMM, a streaming read, the
// bare GEMMs of the step) within each run, so that a changing machine load
// favours neither, and their percentages are medians of per-run ratios;
// Gemm times the FMA peak once before its shapes.
package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/cpuid/v2"
	"github.com/ntksvm/ntksvm/linalg"
)

// ErrUsage marks errors caused by bad flags; the text after "bad flags: "
// names the flag and what it accepts.
var ErrUsage = errors.New("bad flags")

// usage returns an ErrUsage error.
func usage(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, args...))
}

// Env is what a benchmark reads and writes besides its flags.
type Env struct {
	Stdout, Stderr io.Writer
	// IsTerminal reports that Stderr is a terminal (progress bars instead
	// of log lines).
	IsTerminal bool
	// Available returns the bytes of memory a new allocation can get and
	// true, or false where that is unknown; nil means unknown.
	Available func() (uint64, bool)
}

// available calls e.Available if set.
func (e Env) available() (uint64, bool) {
	if e.Available == nil {
		return 0, false
	}
	return e.Available()
}

// A Benchmark is one target of "ntksvm bench".
type Benchmark interface {
	// Flags registers the benchmark's flags on fs.
	Flags(fs *flag.FlagSet)
	// Usage is the synopsis of the flags, for the usage line.
	Usage() string
	// Run validates the parsed flags (an ErrUsage error if they are bad),
	// measures and writes the results to env.Stdout.
	Run(ctx context.Context, env Env) error
}

// Common are the flags every benchmark takes.
type Common struct {
	Threads int  // goroutines (and linalg threads) measured
	JSON    bool // one JSON object per line instead of a table
	Runs    int  // timed runs per measurement
}

// addFlags registers --threads, --json and --runs on fs.
func (c *Common) addFlags(fs *flag.FlagSet) {
	fs.IntVar(&c.Threads, "threads", runtime.GOMAXPROCS(0), "number of threads")
	fs.BoolVar(&c.JSON, "json", false, "print one JSON object per line instead of a table")
	fs.IntVar(&c.Runs, "runs", 5, "timed runs per measurement; the median is reported")
}

// check validates the common flags.
func (c *Common) check() error {
	if c.Threads < 1 || c.Threads > 4096 {
		return usage("--threads %d: want 1…4096", c.Threads)
	}
	if c.Runs < 1 || c.Runs > 10000 {
		return usage("--runs %d: want 1…10000", c.Runs)
	}
	return nil
}

// GflopsRow is one result of the GFLOP/s benchmarks (micro, gemm); it is
// also their JSON line. Seconds is the median time of one product (gemm
// only).
type GflopsRow struct {
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

// pairedMedians times a and b alternately (roundTimes), runs times each
// after one untimed warm-up of each, and returns their median wall times
// in seconds.
func pairedMedians(ctx context.Context, runs int, a, b func()) (ta, tb float64, err error) {
	times, err := roundTimes(ctx, runs, a, b)
	if err != nil {
		return 0, 0, err
	}
	return median(times[0]), median(times[1]), nil
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

// threadCounts is 1 and, if larger, t: the single-core figure is always
// shown beside the aggregate one.
func threadCounts(t int) []int {
	if t > 1 {
		return []int{1, t}
	}
	return []int{1}
}

// dtypeName is "float32" or "float64", the name of T in the rows.
func dtypeName[T linalg.Float]() string {
	var z T
	if _, ok := any(z).(float32); ok {
		return "float32"
	}
	return "float64"
}

// printCPU writes the CPU model and clock, the line every benchmark table
// starts with.
func printCPU(w io.Writer) {
	c := &cpuid.CPU
	ghz := ""
	if c.Hz > 0 {
		ghz = fmt.Sprintf(", %.2f GHz", float64(c.Hz)/1e9)
	}
	brand := strings.TrimSpace(c.BrandName)
	if brand == "" {
		brand = "unknown"
	}
	fmt.Fprintf(w, "cpu: %s (%s/%s, %d logical CPUs%s)\n", brand, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), ghz)
}
