package bench

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"text/tabwriter"
	"unsafe"

	"github.com/ntksvm/ntksvm/asm"
	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
)

// maxReluN bounds --n: the float64 run needs 16·n bytes.
const maxReluN = 1 << 30

// ReluRow is one result of "ntksvm bench relu"; it is also the JSON line.
type ReluRow struct {
	Op       string  `json:"op"`
	Dtype    string  `json:"dtype"`
	Impl     string  `json:"impl"`
	Threads  int     `json:"threads"`
	N        int     `json:"n"`
	GBps     float64 `json:"gbps"`
	CopyGBps float64 `json:"copy_gbps"`
	Pct      float64 `json:"pct"`
}

// Relu is "ntksvm bench relu": the memory bandwidth of out-of-place ReLU
// against copy(). Like Micro, it runs every kernel set this CPU can run,
// so that one command line compares them on the same machine in the same
// run.
type Relu struct {
	Common
	N int // elements of the float32 and float64 runs
}

// Flags registers --n and the common flags.
func (b *Relu) Flags(fs *flag.FlagSet) {
	fs.IntVar(&b.N, "n", 100_000_000, "number of elements (float32 and float64 runs; needs 16·n bytes)")
	b.addFlags(fs)
}

// Usage is the synopsis of the flags.
func (b *Relu) Usage() string { return "[--n N] [--threads T] [--runs R] [--json]" }

// Run measures every kernel set and dtype on 1 and --threads threads.
func (b *Relu) Run(ctx context.Context, env Env) error {
	if err := b.check(); err != nil {
		return err
	}
	n := b.N
	if n < 1 || n > maxReluN {
		return usage("--n %d: want 1…%d elements", n, maxReluN)
	}
	// One pair of float64 buffers; the float32 runs use their first halves.
	x := make([]float64, n)
	dst := make([]float64, n)
	x32 := unsafe.Slice((*float32)(unsafe.Pointer(&x[0])), n)
	dst32 := unsafe.Slice((*float32)(unsafe.Pointer(&dst[0])), n)

	var rows []ReluRow
	for _, threads := range threadCounts(b.Threads) {
		for _, dtype := range []string{"float32", "float64"} {
			rs, err := reluOne(ctx, dtype, threads, b.Runs, x, dst, x32, dst32)
			if err != nil {
				return err
			}
			for _, row := range rs {
				if b.JSON {
					if err := output.WriteJSONLine(env.Stdout, row); err != nil {
						return err
					}
				}
			}
			rows = append(rows, rs...)
		}
	}
	if b.JSON {
		return nil
	}
	w := env.Stdout
	fmt.Fprintf(w, "relu: out-of-place ReLU on n=%d elements, GB/s counting read+write, median of %d runs;\n"+
		"each run times copy() and then every set; %% = median of the per-run ratios to copy\n", n, b.Runs)
	printCPU(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dtype\timpl\tthreads\tGB/s\tcopy GB/s\t% of copy\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f\t%.1f\t%.0f%%\t\n", r.Dtype, r.Impl, r.Threads, r.GBps, r.CopyGBps, r.Pct)
	}
	return tw.Flush()
}

// reluOne measures every kernel set on one dtype and thread count. Each
// run times copy() and then each set, after one untimed round, so that the
// ratios compare measurements taken moments apart on a busy machine.
func reluOne(ctx context.Context, dtype string, threads, runs int, x, dst []float64, x32, dst32 []float32) ([]ReluRow, error) {
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
	rows := make([]ReluRow, len(sets))
	for i, k := range sets {
		gbps := bytes / median(times[i+1]) / 1e9
		// pct is the median of the per-run ratios to that run's copy.
		ratios := make([]float64, runs)
		for r := range ratios {
			ratios[r] = times[0][r] / times[i+1][r]
		}
		rows[i] = ReluRow{"relu", dtype, k.Name(), threads, n, gbps, copyGBps, 100 * median(ratios)}
	}
	return rows, nil
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
