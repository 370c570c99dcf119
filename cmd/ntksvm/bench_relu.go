package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"text/tabwriter"
	"unsafe"

	"github.com/klauspost/cpuid/v2"
	"github.com/ntksvm/ntksvm/asm"
	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
)

// "ntksvm bench relu": memory bandwidth of out-of-place ReLU against copy.
// Like "micro" (bench_micro.go), it runs every kernel set this CPU can run,
// so that one command line compares them on the same machine in the same
// run.

// maxReluN bounds --n: the float64 run needs 16·n bytes.
const maxReluN = 1 << 30

// reluRow is one result of "ntksvm bench relu"; it is also the JSON line.
type reluRow struct {
	Op       string  `json:"op"`
	Dtype    string  `json:"dtype"`
	Impl     string  `json:"impl"`
	Threads  int     `json:"threads"`
	N        int     `json:"n"`
	GBps     float64 `json:"gbps"`
	CopyGBps float64 `json:"copy_gbps"`
	Pct      float64 `json:"pct"`
}

func runReluBench(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "bench relu", "[--n N] [--threads T] [--runs R] [--json]")
	n := fs.Int("n", 100_000_000, "number of elements (float32 and float64 runs; needs 16·n bytes)")
	c := addCommonFlags(fs)
	if err := c.parse(fs, args); err != nil {
		return err
	}
	if *n < 1 || *n > maxReluN {
		return usageError("--n %d: want 1…%d elements", *n, maxReluN)
	}
	// One pair of float64 buffers; the float32 runs use their first halves.
	x := make([]float64, *n)
	dst := make([]float64, *n)
	x32 := unsafe.Slice((*float32)(unsafe.Pointer(&x[0])), *n)
	dst32 := unsafe.Slice((*float32)(unsafe.Pointer(&dst[0])), *n)

	var rows []reluRow
	for _, threads := range threadCounts(c.threads) {
		for _, dtype := range []string{"float32", "float64"} {
			rs, err := reluOne(ctx, dtype, threads, c.runs, x, dst, x32, dst32)
			if err != nil {
				return err
			}
			for _, row := range rs {
				if c.json {
					if err := output.WriteJSONLine(e.stdout, row); err != nil {
						return err
					}
				}
			}
			rows = append(rows, rs...)
		}
	}
	if c.json {
		return nil
	}
	fmt.Fprintf(e.stdout, "relu: out-of-place ReLU on n=%d elements, GB/s counting read+write, median of %d runs;\n"+
		"each run times copy() and then every set; %% = median of the per-run ratios to copy\n", *n, c.runs)
	printCPU(e.stdout)
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dtype\timpl\tthreads\tGB/s\tcopy GB/s\t% of copy\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f\t%.1f\t%.0f%%\t\n", r.Dtype, r.Impl, r.Threads, r.GBps, r.CopyGBps, r.Pct)
	}
	return tw.Flush()
}

// reluOne measures every kernel set on one dtype and thread count. Each
// run times copy() and then each set, after one untimed round, so that the
// ratios compare measurements taken moments apart on a busy machine.
func reluOne(ctx context.Context, dtype string, threads, runs int, x, dst []float64, x32, dst32 []float32) ([]reluRow, error) {
	n := len(x)
	esz := 8
	fns := []func(lo, hi int){func(lo, hi int) { copy(dst[lo:hi], x[lo:hi]) }}
	if dtype == "float32" {
		esz = 4
		fns[0] = func(lo, hi int) { copy(dst32[lo:hi], x32[lo:hi]) }
	}
	// Inputs about half negative, so that the mask does work.
	if dtype == "float32" {
		for i := range x32 {
			x32[i] = float32(i%13) - 6
		}
	} else {
		for i := range x {
			x[i] = float64(i%13) - 6
		}
	}
	sets := asm.Available()
	for _, k := range sets {
		if dtype == "float32" {
			fns = append(fns, func(lo, hi int) { k.ReLU32(dst32[lo:hi], x32[lo:hi]) })
		} else {
			fns = append(fns, func(lo, hi int) { k.ReLU64(dst[lo:hi], x[lo:hi]) })
		}
	}
	timed := make([]func(), len(fns))
	for i, fn := range fns {
		timed[i] = func() { parallelRange(n, threads, fn) }
	}
	times, err := roundTimes(ctx, runs, timed...)
	if err != nil {
		return nil, err
	}
	bytes := float64(2 * n * esz) // read x, write dst
	copyGBps := bytes / median(times[0]) / 1e9
	rows := make([]reluRow, len(sets))
	for i, k := range sets {
		gbps := bytes / median(times[i+1]) / 1e9
		// pct is the median of the per-run ratios to that run's copy.
		ratios := make([]float64, runs)
		for r := range ratios {
			ratios[r] = times[0][r] / times[i+1][r]
		}
		rows[i] = reluRow{"relu", dtype, k.Name(), threads, n, gbps, copyGBps, 100 * median(ratios)}
	}
	return rows, nil
}

// threadCounts is 1 and, if larger, t: the single-core figure is always
// shown beside the aggregate one.
func threadCounts(t int) []int {
	if t > 1 {
		return []int{1, t}
	}
	return []int{1}
}

// parallelRange calls fn on threads contiguous chunks of [0, n), in
// parallel when threads > 1; chunk boundaries are multiples of 64 elements
// so that every chunk starts on a cache line if the slice does.
func parallelRange(n, threads int, fn func(lo, hi int)) {
	if threads <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	chunk := (n/threads + 63) &^ 63
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

// printCPU writes the CPU model and clock, the line every benchmark table
// starts with.
func printCPU(w io.Writer) {
	c := &cpuid.CPU
	ghz := ""
	if c.Hz > 0 {
		ghz = fmt.Sprintf(", %.2f GHz", float64(c.Hz)/1e9)
	}
	fmt.Fprintf(w, "cpu: %s (%s/%s, %d logical CPUs%s)\n",
		nonEmpty(strings.TrimSpace(c.BrandName), "unknown"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), ghz)
}
