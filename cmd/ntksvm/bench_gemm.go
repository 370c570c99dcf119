package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ntksvm/ntksvm/asm"
	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
	"github.com/ntksvm/ntksvm/linalg"
)

// "ntksvm bench gemm": linalg.Gemm and linalg.Gram on the shapes the paper's
// experiments run (network layers on MNIST batches, the NTK Gram matrix of
// the 12,665-point 0/1 training set) or on a square sweep, against the FMA
// peak measured in the same run.

// peakTime is how long the FMA peak loop is timed; a variable so that tests
// can shorten it.
var peakTime = 200 * time.Millisecond

func runGemmBench(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "bench gemm", "[--sweep | --shapes MxKxN,…] [--float32 | --float64] [--threads T] [--runs R] [--json]")
	sweep := fs.Bool("sweep", false, "square sizes 64…4096 instead of the paper's shapes")
	shapes := fs.String("shapes", "", "comma-separated GEMM shapes MxKxN (op(A) is M×K, op(B) K×N), gram:NxK or syrk:NxK")
	f32 := fs.Bool("float32", false, "only float32")
	f64 := fs.Bool("float64", false, "only float64")
	c := addCommonFlags(fs)
	if err := c.parse(fs, args); err != nil {
		return err
	}
	cases, err := gemmCases(*sweep, *shapes, *f32, *f64)
	if err != nil {
		return err
	}
	linalg.SetThreads(c.threads)
	defer linalg.SetThreads(0)
	ks := asm.Active()
	peak := map[string]float64{
		"float32": measurePeak(ks.PeakFMA32) * float64(c.threads),
		"float64": measurePeak(ks.PeakFMA64) * float64(c.threads),
	}
	if !c.json {
		printGemmHeader(e.stdout, c.runs)
	}
	for _, s := range cases {
		var secs float64
		var err error
		if s.dtype == "float32" {
			secs, err = timeGemm[float32](ctx, s, c.runs)
		} else {
			secs, err = timeGemm[float64](ctx, s, c.runs)
		}
		if err != nil {
			return err
		}
		g := 2 * float64(s.m) * float64(s.k) * float64(s.n) / secs / 1e9
		p := peak[s.dtype]
		row := gflopsRow{s.op, s.dtype, ks.Name(), c.threads, s.m, s.k, s.n, g, p, 100 * g / p, secs}
		if c.json {
			if err := output.WriteJSONLine(e.stdout, row); err != nil {
				return err
			}
			continue
		}
		if _, err := fmt.Fprintf(e.stdout, gemmRowFormat, row.Op, row.Dtype, row.M, row.K, row.N, row.Threads,
			row.Impl, row.GFlops, row.PeakGFlops, row.Pct, row.Seconds); err != nil {
			return err
		}
	}
	return nil
}

// timeGemm allocates the operands of s, fills them with small
// deterministic values and returns the median time of runs calls.
func timeGemm[T linalg.Float](ctx context.Context, s gemmShape, runs int) (float64, error) {
	a := linalg.New[T](s.m, s.k)
	fill(a.Data, 1)
	c := linalg.New[T](s.m, s.n)
	var err error
	switch s.op {
	case "gram", "syrk":
		fn := func() { err = linalg.Gram(a, c) }
		if s.op == "syrk" {
			fn = func() { err = linalg.SyrkLower(1, a, 0, c) }
		}
		t, terr := medianTime(ctx, runs, fn)
		if err != nil {
			return 0, err
		}
		return t, terr
	}
	b := linalg.New[T](s.k, s.n)
	fill(b.Data, 2)
	t, terr := medianTime(ctx, runs, func() {
		err = linalg.Gemm(linalg.NoTrans, linalg.NoTrans, 1, a, b, 0, c)
	})
	if err != nil {
		return 0, err
	}
	return t, terr
}

// fill sets x to a cheap deterministic pattern in [-0.5, 0.5).
func fill[T linalg.Float](x []T, seed uint32) {
	h := seed * 2654435761
	for i := range x {
		h = h*1664525 + 1013904223
		x[i] = T(h>>8)/(1<<24) - 0.5
	}
}

// measurePeak times the FMA peak loop of one kernel set on one thread for
// about peakTime and returns its GFLOP/s.
func measurePeak(peak func(n int) int) float64 {
	n := 1 << 10
	for {
		t0 := time.Now()
		f := peak(n)
		d := time.Since(t0)
		if d >= peakTime/4 || n >= 1<<40 {
			if d < peakTime {
				n = int(float64(n) * float64(peakTime) / float64(max(d, 1)))
				t0 = time.Now()
				f = peak(n)
				d = time.Since(t0)
			}
			return float64(f) / d.Seconds() / 1e9
		}
		n *= 4
	}
}

// Fixed-width columns rather than a tabwriter: each line is printed as
// soon as it is measured, and large shapes take a while.
const gemmRowFormat = "%-5s %-8s %6d %6d %6d %7d %-8s %8.1f %8.1f %6.1f%% %9.4f\n"

// printGemmHeader prints what "bench gemm" measures, the CPU and the
// column names.
func printGemmHeader(w io.Writer, runs int) {
	fmt.Fprintf(w, "gemm: linalg.Gemm/Gram/SyrkLower, C = A·B (gram, syrk: A·Aᵀ, counted as 2·n²·k flops), median of %d runs\n", runs)
	printCPU(w)
	fmt.Fprintf(w, "%-5s %-8s %6s %6s %6s %7s %-8s %8s %8s %7s %9s\n",
		"op", "dtype", "M", "K", "N", "threads", "ISA", "GFLOP/s", "peak", "% peak", "seconds")
}
