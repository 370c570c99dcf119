package bench

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"

	"github.com/ntksvm/ntksvm/asm"
	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm/dataset"
)

// mnistOpt is the --mnist flag of Ntk: alone it selects the real MNIST 0/1
// train set from the default location ($NTKSVM_MNIST_DIR or the user
// cache), --mnist=DIR from DIR.
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

// NtkRow is one line of "ntksvm bench ntk --json".
type NtkRow struct {
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

// Ntk is "ntksvm bench ntk": the infinite-width NTK Gram (ntk.FillGram:
// GEMM and arc-cosine recursion) against the bare Gram GEMM X·Xᵀ of the
// same run.
type Ntk struct {
	Common
	N, D, Depth              int
	Float32Only, Float64Only bool
	mnist                    mnistOpt
}

// Flags registers the size, dtype and data flags and the common flags.
func (b *Ntk) Flags(fs *flag.FlagSet) {
	fs.IntVar(&b.N, "n", 12665, "number of inputs (rows of X)")
	fs.IntVar(&b.D, "d", 784, "input dimension")
	fs.IntVar(&b.Depth, "depth", 1, "hidden ReLU layers L")
	fs.BoolVar(&b.Float32Only, "float32", false, "float32 kernel")
	fs.BoolVar(&b.Float64Only, "float64", false, "float64 kernel (the default)")
	fs.Var(&b.mnist, "mnist", "use the real MNIST 0/1 train set (first --n rows) instead of random data; --mnist=DIR names its directory")
	b.addFlags(fs)
}

// Usage is the synopsis of the flags.
func (b *Ntk) Usage() string {
	return "[--n 12665] [--d 784] [--depth 1] [--float32|--float64] [--mnist[=DIR]] [--threads T] [--runs R] [--json]"
}

// Run validates the flags and times the NTK Gram against its GEMM.
func (b *Ntk) Run(ctx context.Context, env Env) error {
	if err := b.check(); err != nil {
		return err
	}
	if b.Float32Only && b.Float64Only {
		return usage("--float32 and --float64 exclude each other")
	}
	if b.N < 1 || b.N > 200000 || b.D < 1 || b.D > 1<<20 {
		return usage("--n %d --d %d: want 1 ≤ n ≤ 200000 and 1 ≤ d ≤ 2^20", b.N, b.D)
	}
	if b.Depth < 1 || b.Depth > 100 {
		return usage("--depth %d: want 1…100", b.Depth)
	}
	if b.Float32Only {
		return ntkBench[float32](ctx, env, b)
	}
	return ntkBench[float64](ctx, env, b)
}

func ntkBench[T linalg.Float](ctx context.Context, env Env, b *Ntk) error {
	n, d := b.N, b.D
	var x linalg.Matrix[T]
	data := "random"
	if b.mnist.set {
		train, _, err := dataset.LoadMNISTBinary[T](0, 1, dataset.Options{MNISTDir: b.mnist.dir, Warn: env.Stderr})
		if err != nil {
			return err
		}
		if train.X.Rows < n {
			return usage("--n %d: the MNIST 0/1 train set has %d rows", n, train.X.Rows)
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
	linalg.SetThreads(b.Threads)
	defer linalg.SetThreads(old)
	k := linalg.New[T](n, n)
	p := ntk.DefaultSpec(b.Depth)
	var ferr error
	gemm, secs, err := pairedMedians(ctx, b.Runs, func() {
		if err := linalg.Gram(x, k); err != nil && ferr == nil {
			ferr = err
		}
	}, func() {
		if err := ntk.FillGram(ctx, p, x, ntk.Options{Threads: b.Threads}, k); err != nil && ferr == nil {
			ferr = err
		}
	})
	if err != nil {
		return err
	}
	if ferr != nil {
		return ferr
	}
	row := NtkRow{Op: "ntk", N: n, D: d, Depth: b.Depth, Dtype: dtypeName[T](), Threads: b.Threads,
		Impl: asm.Implementation(), Data: data, Seconds: secs, GemmSeconds: gemm, Ratio: secs / gemm}
	if b.JSON {
		return output.WriteJSONLine(env.Stdout, row)
	}
	fmt.Fprintf(env.Stdout, "NTK Gram %d×%d (d=%d, L=%d, %s, %s data), %d threads, kernels %s, median of %d:\n",
		n, n, d, b.Depth, row.Dtype, data, b.Threads, row.Impl, b.Runs)
	fmt.Fprintf(env.Stdout, "  Gram GEMM X·Xᵀ  %8.3f s\n  NTK Gram        %8.3f s  (%.2f× the GEMM; recursion and mirror %.3f s)\n",
		gemm, secs, row.Ratio, secs-gemm)
	return nil
}
