package bench

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"text/tabwriter"
	"time"

	"github.com/ntksvm/ntksvm/asm"
	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
	"github.com/ntksvm/ntksvm/cmd/internal/present/progress"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/mnist"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/dataset"
)

// SvmRow is one result line of "ntksvm bench svm"; it is also the JSON
// object.
type SvmRow struct {
	Op       string  `json:"op"` // "step" or "solve"
	Dtype    string  `json:"dtype"`
	N        int     `json:"n"`
	Threads  int     `json:"threads"`
	Impl     string  `json:"impl"`
	Seconds  float64 `json:"seconds"`
	GBps     float64 `json:"gbps,omitempty"`
	BaseGBps float64 `json:"read_gbps,omitempty"`
	Pct      float64 `json:"pct,omitempty"`
	Bias     bool    `json:"bias,omitempty"`
	RelGap   float64 `json:"rel_gap,omitempty"`
	Iters    int     `json:"iterations,omitempty"`
	SVs      int     `json:"support_vectors,omitempty"`
	Data     string  `json:"data"`
}

// Svm is "ntksvm bench svm": (a) one full-batch subgradient step of the
// kernel machine, the product K·α over the n×n Gram (float32 and float64,
// both summed in float64), in GB/s of Gram read, against a same-run
// read-bandwidth baseline, a pure streaming read of the Gram's own rows
// (readRows); (b) the exact SVM solve (SMO, with and without bias) with
// its time and relative duality gap.
type Svm struct {
	Common
	N                 int     // Gram size for random data
	Data              string  // "random" or "mnist01"
	MNISTDir          string  // MNIST directory; empty: the default
	AllowNonCanonical bool    // accept MNIST files that are not canonical
	Lambda            float64 // λ of the exact SVM (sum objective, C = 1/λ)
	NoSolve           bool    // skip the exact solves
	Gap               float64 // relative duality gap of the exact solves
}

// Flags registers the data and solver flags and the common flags.
func (b *Svm) Flags(fs *flag.FlagSet) {
	fs.IntVar(&b.N, "n", 12665, "Gram size for --data random")
	fs.StringVar(&b.Data, "data", "random", "random (the L = 1 NTK of n uniform 64-d inputs) or mnist01 (the real L = 1 NTK of the 12,665 MNIST 0/1 training points)")
	fs.StringVar(&b.MNISTDir, "mnist-dir", "", "MNIST `directory` (default $"+mnist.EnvDir+", else the user cache directory)")
	fs.BoolVar(&b.AllowNonCanonical, "allow-noncanonical", false,
		"use MNIST files whose content is not the canonical MNIST (prints a warning; results will not match the paper)")
	fs.Float64Var(&b.Lambda, "lambda", 0.064, "λ of the exact SVM (sum objective, C = 1/λ)")
	fs.BoolVar(&b.NoSolve, "no-solve", false, "skip the exact SVM solves")
	fs.Float64Var(&b.Gap, "gap", 1e-3, "relative duality gap of the exact solves")
	b.addFlags(fs)
}

// Usage is the synopsis of the flags.
func (b *Svm) Usage() string {
	return "[--data random|mnist01] [--n N] [--lambda λ] [--no-solve] [--threads T] [--runs R] [--json]"
}

// Run validates the flags, computes the L = 1 NTK Gram of the data and
// times the step and the exact solves on it.
func (b *Svm) Run(ctx context.Context, env Env) error {
	if err := b.check(); err != nil {
		return err
	}
	if err := b.checkFlags(); err != nil {
		return err
	}
	linalg.SetThreads(b.Threads)
	defer linalg.SetThreads(0)
	x, y, data, err := b.load(ctx, env)
	if err != nil {
		return err
	}
	pr := progress.New(env.Stderr, env.IsTerminal, "Gram", int64(x.Rows))
	k64, err := ntk.Gram(ctx, ntk.Spec{Kind: ntk.KindNTK, Depth: 1, WeightStd: 1}, x, ntk.Options{Progress: func(done, _ int) { pr.Set(int64(done)) }})
	pr.Done()
	if err != nil {
		return err
	}
	nn, k32 := k64.Rows, linalg.Convert[float32](k64)
	var rows []SvmRow
	emit := func(r SvmRow) error {
		r.N, r.Threads, r.Impl, r.Data = nn, b.Threads, asm.Implementation(), data
		rows = append(rows, r)
		if b.JSON {
			return output.WriteJSONLine(env.Stdout, r)
		}
		return nil
	}
	if err := svmSteps(ctx, k64, k32, &b.Common, emit); err != nil {
		return err
	}
	for _, bias := range []bool{false, true} {
		if b.NoSolve {
			break
		}
		t0 := time.Now()
		cfg := svm.FitConfig{Machine: svm.MachineSVM, Solver: svm.SolverExact, Lambda: b.Lambda, Bias: bias, Gap: b.Gap}
		r, err := svm.Fit(ctx, svm.NewDense(k64), y, cfg, svm.FitHooks{})
		if err != nil {
			return err
		}
		if err := emit(SvmRow{Op: "solve", Dtype: "float64", Seconds: time.Since(t0).Seconds(), Bias: bias,
			RelGap: r.Info.RelGap, Iters: r.Info.Iterations, SVs: r.Info.SupportVectors}); err != nil {
			return err
		}
	}
	if b.JSON {
		return nil
	}
	return printSvm(env.Stdout, rows, nn, data, b.Threads, b.Lambda)
}

// printSvm prints the rows of "bench svm" as a table.
func printSvm(w io.Writer, rows []SvmRow, nn int, data string, threads int, lambda float64) error {
	fmt.Fprintf(w, "bench svm: n = %d, %s, %d threads, kernels %s\n", nn, data, threads, asm.Implementation())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "op\tdtype\tmedian s\tGB/s\tread GB/s\t% of read\tbias\trel. gap\titerations\tSVs\t")
	for _, r := range rows {
		if r.Op == "step" {
			fmt.Fprintf(tw, "step K·α\t%s\t%.4f\t%.2f\t%.2f\t%.1f\t\t\t\t\t\n", r.Dtype, r.Seconds, r.GBps, r.BaseGBps, r.Pct)
		} else {
			fmt.Fprintf(tw, "SVM solve (λ=%g)\t%s\t%.3f\t\t\t\t%v\t%.2e\t%d\t%d\t\n", lambda, r.Dtype, r.Seconds, r.Bias, r.RelGap, r.Iters, r.SVs)
		}
	}
	return tw.Flush()
}

// load returns the inputs and labels of "bench svm": MNIST 0/1, or n
// random uniform 64-d points labelled by a noisy linear rule.
func (b *Svm) load(ctx context.Context, env Env) (linalg.Matrix[float64], []float64, string, error) {
	if b.Data == "mnist01" {
		ds, err := dataset.Open(dataset.MNIST01, dataset.Options{MNISTDir: b.MNISTDir, MNISTDirFlag: "--mnist-dir",
			AllowNonCanonical: b.AllowNonCanonical, Warn: env.Stderr, Context: ctx})
		if err != nil {
			return linalg.Matrix[float64]{}, nil, "", err
		}
		y, err := ds.Targets()
		return ds.X, y, "ntk(mnist01)", err
	}
	n := b.N
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	x := linalg.New[float64](n, 64)
	y := make([]float64, n)
	for i := range n {
		r := x.Row(i)
		var s float64
		for j := range r {
			r[j] = rng.Float64()
			s += r[j] * float64(j%3-1)
		}
		y[i] = 1
		if s+0.1*rng.NormFloat64() < 0 {
			y[i] = -1
		}
	}
	return x, y, "ntk(random uniform 64-d inputs)", nil
}

// svmSteps times the step K·α against the read baseline for both element
// types and emits a row for each.
func svmSteps(ctx context.Context, k64 linalg.Matrix[float64], k32 linalg.Matrix[float32], c *Common, emit func(SvmRow) error) error {
	nn := k64.Rows
	alpha := make([]float64, nn)
	for i := range alpha {
		alpha[i] = float64(i%7) - 3
	}
	g := make([]float64, nn)
	for _, dt := range []string{"float32", "float64"} {
		km := svm.KernelMatrix(svm.NewDense(k64))
		read := func() float64 { return readRows(k64, c.Threads) }
		bytes := 8 * float64(nn) * float64(nn)
		if dt == "float32" {
			km = svm.NewDense(k32)
			read = func() float64 { return readRows(k32, c.Threads) }
			bytes /= 2
		}
		// Step and baseline alternate, so that both see the same load; the
		// percentage is the median of the per-pair ratios.
		var sink float64
		times, err := roundTimes(ctx, c.Runs, func() { km.MulVec(g, alpha) }, func() { sink += read() })
		if err != nil {
			return err
		}
		readSink = sink
		tSteps, tBases := times[0], times[1]
		ratios := make([]float64, len(tSteps))
		for r := range ratios {
			ratios[r] = tBases[r] / tSteps[r]
		}
		tStep, tBase := median(tSteps), median(tBases)
		if err := emit(SvmRow{Op: "step", Dtype: dt, Seconds: tStep, GBps: bytes / tStep / 1e9,
			BaseGBps: bytes / tBase / 1e9, Pct: 100 * median(ratios)}); err != nil {
			return err
		}
	}
	return nil
}

// checkFlags validates the flags of "bench svm" beyond the common ones.
func (b *Svm) checkFlags() error {
	if b.N < 2 || b.N > 60000 {
		return usage("--n %d: want 2…60000 (the float64 Gram needs 8·n² bytes)", b.N)
	}
	if !(b.Lambda > 0) || !(b.Gap > 0) {
		return usage("--lambda and --gap must be > 0")
	}
	if b.Data != "random" && b.Data != "mnist01" {
		return usage("--data %q: want random or mnist01", b.Data)
	}
	return nil
}
