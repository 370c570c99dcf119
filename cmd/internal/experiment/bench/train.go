package bench

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/ntksvm/ntksvm/asm"
	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/network"
)

// TrainRow is one line of "ntksvm bench train --json".
type TrainRow struct {
	Op          string  `json:"op"`
	N           int     `json:"n"`
	D           int     `json:"d"`
	Width       int     `json:"width"`
	Depth       int     `json:"depth"`
	Dtype       string  `json:"dtype"`
	Threads     int     `json:"threads"`
	Impl        string  `json:"impl"`
	Seconds     float64 `json:"seconds"`
	GFlops      float64 `json:"gflops"`
	GemmSeconds float64 `json:"sgemm_seconds"`
	GemmGFlops  float64 `json:"sgemm_gflops"`
	Pct         float64 `json:"pct"`
	Reg         string  `json:"reg"`
	Lambda      float64 `json:"lambda"`
}

// Train is "ntksvm bench train": one training step of the Fig. 1 network
// (forward, backward, update with the penalty) against the GEMMs of its
// forward and backward passes run bare.
type Train struct {
	Common
	N, D, Width, Depth int
	Float64            bool    // a float64 network (default float32, as PyTorch)
	Reg                string  // penalty of the update (network.ParseRegularization)
	Lambda             float64 // λ of the penalty
}

// Flags registers the network and penalty flags and the common flags.
func (b *Train) Flags(fs *flag.FlagSet) {
	fs.IntVar(&b.N, "n", 128, "batch size (rows of X)")
	fs.IntVar(&b.D, "d", 784, "input dimension")
	fs.IntVar(&b.Width, "width", 10000, "hidden width m")
	fs.IntVar(&b.Depth, "depth", 2, "hidden layers L (Fig. 1 is L = 2)")
	fs.BoolVar(&b.Float64, "float64", false, "float64 network (default float32, as PyTorch)")
	fs.StringVar(&b.Reg, "reg", "paper", "penalty of the update: paper, theory, lastlayer or none")
	fs.Float64Var(&b.Lambda, "lambda", 0.001, "λ of the penalty")
	b.addFlags(fs)
}

// Usage is the synopsis of the flags.
func (b *Train) Usage() string {
	return "[--n 128] [--d 784] [--width 10000] [--depth 2] [--reg paper|theory|lastlayer|none] [--lambda λ] [--float64] [--threads T] [--runs R] [--json]"
}

// Run validates the flags and times the step against its GEMMs.
func (b *Train) Run(ctx context.Context, env Env) error {
	if err := b.check(); err != nil {
		return err
	}
	reg, err := network.ParseRegularization(b.Reg)
	if err != nil {
		return usage("--reg: %v", err)
	}
	if !(b.Lambda >= 0) || math.IsInf(b.Lambda, 0) {
		return usage("--lambda %v: want a finite λ ≥ 0", b.Lambda)
	}
	if b.N < 1 || b.D < 1 || b.Width < 1 || b.Depth < 1 || b.Depth > 100 || b.N > 1<<20 {
		return usage("--n %d --d %d --width %d --depth %d: want positive sizes and depth ≤ 100", b.N, b.D, b.Width, b.Depth)
	}
	if b.Float64 {
		return trainBench[float64](ctx, env, b, reg)
	}
	return trainBench[float32](ctx, env, b, reg)
}

// trainBench times one full training step of the network,
// network.Stepper.Step on a batch of n (forward, backward and the update
// with the penalty reg), against the bare GEMMs of its forward and
// backward passes, alternated.
func trainBench[T linalg.Float](ctx context.Context, env Env, b *Train, reg network.Regularization) error {
	n, d, m, depth, lambda := b.N, b.D, b.Width, b.Depth, b.Lambda
	net, err := ntk.NewNetwork[T](d, m, depth, 1, 0, 1)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(2, 2))
	x := linalg.New[T](n, d)
	for i := range x.Data {
		x.Data[i] = T(rng.Float64())
	}
	y := make([]float64, n)
	batch := make([]int, n)
	for i := range y {
		y[i] = float64(1 - 2*(i%2))
		batch[i] = i
	}
	old := linalg.Threads()
	linalg.SetThreads(b.Threads)
	defer linalg.SetThreads(old)
	st, err := network.NewStepper(net, x, y, linalg.Matrix[T]{}, network.Config{
		Loss: svm.Hinge, Lambda: lambda, Objective: svm.ObjectiveMean, Reg: reg})
	if err != nil {
		return err
	}
	calls, flops := trainGemms[T](rng, n, d, m, depth)
	var ferr error
	secs, gemm, err := pairedMedians(ctx, b.Runs, func() {
		if err := st.Step(batch, 1e-3); err != nil && ferr == nil {
			ferr = err
		}
	}, func() {
		for _, g := range calls {
			if err := linalg.Gemm(g.ta, g.tb, 1, g.a, g.b, 0, g.c); err != nil && ferr == nil {
				ferr = err
			}
		}
	})
	if err != nil {
		return err
	}
	if ferr != nil {
		return ferr
	}
	row := TrainRow{Op: "train", N: n, D: d, Width: m, Depth: depth, Dtype: dtypeName[T](), Threads: b.Threads,
		Impl: asm.Implementation(), Seconds: secs, GFlops: flops / secs / 1e9, GemmSeconds: gemm, GemmGFlops: flops / gemm / 1e9}
	row.Pct = 100 * row.GFlops / row.GemmGFlops
	row.Reg, row.Lambda = reg.String(), lambda
	if b.JSON {
		return output.WriteJSONLine(env.Stdout, row)
	}
	fmt.Fprintf(env.Stdout, "training step (forward, backward, update with --reg %v, λ = %g), %d→%s→1, batch %d, %s, %d threads, kernels %s, median of %d:\n",
		reg, lambda, d, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("%d×", m), depth), "×"), n, row.Dtype, b.Threads, row.Impl, b.Runs)
	fmt.Fprintf(env.Stdout, "  step     %8.3f s  %7.1f GFLOP/s (GEMM flops of forward and backward)\n  GEMMs    %8.3f s  %7.1f GFLOP/s (same shapes, bare)\n  %.0f%% of the GEMM rate\n",
		secs, row.GFlops, gemm, row.GemmGFlops, row.Pct)
	return nil
}

// gemmCall is one bare GEMM of the network benchmark.
type gemmCall[T linalg.Float] struct {
	ta, tb  linalg.Op
	a, b, c linalg.Matrix[T]
}

// trainGemms returns the GEMMs of one forward and backward pass,
// bare, on preallocated operands, and their flops.
func trainGemms[T linalg.Float](rng *rand.Rand, n, d, m, depth int) ([]gemmCall[T], float64) {
	// Forward z_l = a_l·W_lᵀ, backward dW_l = g_lᵀ·a_l and (l ≥ 1) g·W_l.
	var calls []gemmCall[T]
	var flops float64
	in := d
	for l := 0; l <= depth; l++ {
		out := m
		if l == depth {
			out = 1
		}
		// Operands hold data: pages that were never written would all map
		// to the zero page and be read from cache.
		a := linalg.New[T](n, in)
		w := linalg.New[T](out, in)
		for _, m := range []linalg.Matrix[T]{a, w} {
			for i := range m.Data {
				m.Data[i] = T(rng.Float64())
			}
		}
		z := linalg.New[T](n, out)
		calls = append(calls, gemmCall[T]{linalg.NoTrans, linalg.Trans, a, w, z})
		calls = append(calls, gemmCall[T]{linalg.Trans, linalg.NoTrans, z, a, linalg.New[T](out, in)})
		flops += 4 * float64(n) * float64(in) * float64(out)
		if l > 0 {
			calls = append(calls, gemmCall[T]{linalg.NoTrans, linalg.NoTrans, z, w, linalg.New[T](n, in)})
			flops += 2 * float64(n) * float64(in) * float64(out)
		}
		in = out
	}
	return calls, flops
}
