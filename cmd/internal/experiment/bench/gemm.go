package bench

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/ntksvm/ntksvm/asm"
	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
	"github.com/ntksvm/ntksvm/linalg"
)

// peakTime is how long the FMA peak loop is timed; a variable so that tests
// can shorten it.
var peakTime = 200 * time.Millisecond

// Gemm is "ntksvm bench gemm": linalg.Gemm and linalg.Gram on the shapes
// the paper's experiments run (network layers on MNIST batches, the NTK
// Gram matrix of the 12,665-point 0/1 training set) or on a square sweep,
// against the FMA peak measured in the same run.
type Gemm struct {
	Common
	Sweep       bool   // square sizes instead of the paper's shapes
	Shapes      string // --shapes: MxKxN, gram:NxK, syrk:NxK, comma-separated
	Float32Only bool
	Float64Only bool
}

// Flags registers the shape and dtype flags and the common flags.
func (b *Gemm) Flags(fs *flag.FlagSet) {
	fs.BoolVar(&b.Sweep, "sweep", false, "square sizes 64…4096 instead of the paper's shapes")
	fs.StringVar(&b.Shapes, "shapes", "", "comma-separated GEMM shapes MxKxN (op(A) is M×K, op(B) K×N), gram:NxK or syrk:NxK")
	fs.BoolVar(&b.Float32Only, "float32", false, "only float32")
	fs.BoolVar(&b.Float64Only, "float64", false, "only float64")
	b.addFlags(fs)
}

// Usage is the synopsis of the flags.
func (b *Gemm) Usage() string {
	return "[--sweep | --shapes MxKxN,…] [--float32 | --float64] [--threads T] [--runs R] [--json]"
}

// Run times every case on --threads threads, printing each row as it is
// measured.
func (b *Gemm) Run(ctx context.Context, env Env) error {
	if err := b.check(); err != nil {
		return err
	}
	cases, err := gemmCases(b.Sweep, b.Shapes, b.Float32Only, b.Float64Only, env)
	if err != nil {
		return err
	}
	linalg.SetThreads(b.Threads)
	defer linalg.SetThreads(0)
	ks := asm.Active()
	peak := map[string]float64{
		"float32": measurePeak(ks.PeakFMA32) * float64(b.Threads),
		"float64": measurePeak(ks.PeakFMA64) * float64(b.Threads),
	}
	if !b.JSON {
		printGemmHeader(env.Stdout, b.Runs)
	}
	for _, s := range cases {
		var secs float64
		var err error
		if s.dtype == "float32" {
			secs, err = timeGemm[float32](ctx, s, b.Runs)
		} else {
			secs, err = timeGemm[float64](ctx, s, b.Runs)
		}
		if err != nil {
			return err
		}
		g := 2 * float64(s.m) * float64(s.k) * float64(s.n) / secs / 1e9
		p := peak[s.dtype]
		row := GflopsRow{s.op, s.dtype, ks.Name(), b.Threads, s.m, s.k, s.n, g, p, 100 * g / p, secs}
		if b.JSON {
			if err := output.WriteJSONLine(env.Stdout, row); err != nil {
				return err
			}
			continue
		}
		if _, err := fmt.Fprintf(env.Stdout, gemmRowFormat, row.Op, row.Dtype, row.M, row.K, row.N, row.Threads,
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
