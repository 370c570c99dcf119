package main

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/ntksvm/ntksvm/asm"
	"github.com/ntksvm/ntksvm/cmd/internal/dataset"
	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// "ntksvm bench ntk": the infinite-width NTK Gram against the bare Gram
// GEMM X·Xᵀ of the same run.

// mnistOpt is the --mnist flag of the benchmarks: alone it selects the real
// MNIST 0/1 train set from the default location ($NTKSVM_MNIST_DIR or the
// user cache), --mnist=DIR from DIR.
type mnistOpt struct {
	set bool
	dir string
}

func (m *mnistOpt) String() string   { return m.dir }
func (m *mnistOpt) IsBoolFlag() bool { return true }
func (m *mnistOpt) Set(s string) error {
	switch s {
	case "true":
		m.set, m.dir = true, ""
	case "false":
		m.set, m.dir = false, ""
	default:
		m.set, m.dir = true, s
	}
	return nil
}

// ntkBenchRow is one line of "ntksvm bench ntk --json".
type ntkBenchRow struct {
	Op          string  `json:"op"`
	N           int     `json:"n"`
	D           int     `json:"d"`
	Depth       int     `json:"depth"`
	Dtype       string  `json:"dtype"`
	Threads     int     `json:"threads"`
	Impl        string  `json:"impl"`
	Data        string  `json:"data"`
	Seconds     float64 `json:"seconds"`
	GemmSeconds float64 `json:"gemm_seconds"`
	Ratio       float64 `json:"ratio"`
}

func runNTKBench(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "bench ntk", "[--n 12665] [--d 784] [--depth 1] [--float32|--float64] [--mnist[=DIR]] [--threads T] [--runs R] [--json]")
	n := fs.Int("n", 12665, "number of inputs (rows of X)")
	d := fs.Int("d", 784, "input dimension")
	depth := fs.Int("depth", 1, "hidden ReLU layers L")
	f32 := fs.Bool("float32", false, "float32 kernel")
	f64 := fs.Bool("float64", false, "float64 kernel (the default)")
	var mo mnistOpt
	fs.Var(&mo, "mnist", "use the real MNIST 0/1 train set (first --n rows) instead of random data; --mnist=DIR names its directory")
	c := addCommonFlags(fs)
	if err := c.parse(fs, args); err != nil {
		return err
	}
	if *f32 && *f64 {
		return usageError("--float32 and --float64 exclude each other")
	}
	if *n < 1 || *n > 200000 || *d < 1 || *d > 1<<20 {
		return usageError("--n %d --d %d: want 1 ≤ n ≤ 200000 and 1 ≤ d ≤ 2^20", *n, *d)
	}
	if *depth < 1 || *depth > 100 {
		return usageError("--depth %d: want 1…100", *depth)
	}
	if *f32 {
		return ntkBench[float32](ctx, e, c, *n, *d, *depth, mo)
	}
	return ntkBench[float64](ctx, e, c, *n, *d, *depth, mo)
}

func dtypeName[T linalg.Float]() string {
	var z T
	if _, ok := any(z).(float32); ok {
		return "float32"
	}
	return "float64"
}

func ntkBench[T linalg.Float](ctx context.Context, e *env, c *benchCommon, n, d, depth int, mo mnistOpt) error {
	var x linalg.Matrix[T]
	data := "random"
	if mo.set {
		train, _, err := dataset.LoadMNISTBinary[T](0, 1, dataset.Options{MNISTDir: mo.dir, Warn: e.stderr})
		if err != nil {
			return err
		}
		if train.X.Rows < n {
			return usageError("--n %d: the MNIST 0/1 train set has %d rows", n, train.X.Rows)
		}
		x, d, data = train.X.Slice(0, n, 0, train.X.Cols), train.X.Cols, "mnist01"
	} else {
		// Pixel-like data: uniform in [0, 1), seeded.
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		x = linalg.New[T](n, d)
		for i := range x.Data {
			x.Data[i] = T(rng.Float64())
		}
	}
	old := linalg.Threads()
	linalg.SetThreads(c.threads)
	defer linalg.SetThreads(old)
	k := linalg.New[T](n, n)
	p := ntk.DefaultParams(depth)
	var ferr error
	gemm, secs, err := pairedMedians(ctx, c.runs, func() {
		if err := linalg.Gram(x, k); err != nil && ferr == nil {
			ferr = err
		}
	}, func() {
		if err := ntk.GramInto(ctx, x, p, ntk.Options{Threads: c.threads}, k, linalg.Matrix[T]{}); err != nil && ferr == nil {
			ferr = err
		}
	})
	if err != nil {
		return err
	}
	if ferr != nil {
		return ferr
	}
	row := ntkBenchRow{Op: "ntk", N: n, D: d, Depth: depth, Dtype: dtypeName[T](), Threads: c.threads,
		Impl: asm.Implementation(), Data: data, Seconds: secs, GemmSeconds: gemm, Ratio: secs / gemm}
	if c.json {
		return output.WriteJSONLine(e.stdout, row)
	}
	fmt.Fprintf(e.stdout, "NTK Gram %d×%d (d=%d, L=%d, %s, %s data), %d threads, kernels %s, median of %d:\n",
		n, n, d, depth, row.Dtype, data, c.threads, row.Impl, c.runs)
	fmt.Fprintf(e.stdout, "  Gram GEMM X·Xᵀ  %8.3f s\n  NTK Gram        %8.3f s  (%.2f× the GEMM; recursion and mirror %.3f s)\n",
		gemm, secs, row.Ratio, secs-gemm)
	return nil
}
