package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"text/tabwriter"
	"time"

	"github.com/ntksvm/ntksvm/asm"
	"github.com/ntksvm/ntksvm/cmd/internal/dataset"
	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
)

// "ntksvm bench svm": (a) one full-batch subgradient step of the kernel
// machine, the product K·α over the n×n Gram (float32 and float64, both
// summed in float64), in GB/s of Gram read, against a same-run
// read-bandwidth baseline: asm.Sum32 (asm.Sum64 for float64) over the
// Gram's own rows, the same rows per goroutine as the step and four rows
// side by side as the step reads them (asm.Sum32Rows4), a pure streaming
// read of full vectors (svmReadRows); (b) the exact
// SVM solve (SMO, with and without bias) with its time and relative
// duality gap.

// svmBenchRow is one result line; it is also the JSON object.
type svmBenchRow struct {
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

func runSVMBench(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "bench svm", "[--data random|mnist01] [--n N] [--lambda λ] [--no-solve] [--threads T] [--runs R] [--json]")
	n := fs.Int("n", 12665, "Gram size for --data random")
	dataName := fs.String("data", "random", "random (the L = 1 NTK of n uniform 64-d inputs) or mnist01 (the real L = 1 NTK of the 12,665 MNIST 0/1 training points)")
	var df dataFlags
	df.addMNIST(fs, e)
	lambda := fs.Float64("lambda", 0.064, "λ of the exact SVM (sum objective, C = 1/λ)")
	noSolve := fs.Bool("no-solve", false, "skip the exact SVM solves")
	gap := fs.Float64("gap", 1e-3, "relative duality gap of the exact solves")
	c := addCommonFlags(fs)
	if err := c.parse(fs, args); err != nil {
		return err
	}
	if err := checkSVMBenchFlags(*n, *lambda, *gap, *dataName); err != nil {
		return err
	}
	linalg.SetThreads(c.threads)
	defer linalg.SetThreads(0)
	x, y, data, err := svmBenchData(e, *dataName, *n, &df)
	if err != nil {
		return err
	}
	k64, err := gram[float64](ctx, e, "Gram", ntk.Spec{Kind: ntk.KindNTK, Depth: 1, WeightStd: 1}, x)
	if err != nil {
		return err
	}
	nn, k32 := k64.Rows, linalg.Convert[float32](k64)
	var rows []svmBenchRow
	emit := func(r svmBenchRow) error {
		r.N, r.Threads, r.Impl, r.Data = nn, c.threads, asm.Implementation(), data
		rows = append(rows, r)
		if c.json {
			return output.WriteJSONLine(e.stdout, r)
		}
		return nil
	}
	if err := svmBenchSteps(ctx, k64, k32, c, emit); err != nil {
		return err
	}
	for _, bias := range []bool{false, true} {
		if *noSolve {
			break
		}
		t0 := time.Now()
		cfg := svm.FitConfig{Machine: svm.MachineSVM, Solver: svm.SolverExact, Lambda: *lambda, Bias: bias, Gap: *gap}
		r, err := svm.Fit(ctx, svm.NewDense(k64), y, cfg, svm.FitHooks{})
		if err != nil {
			return err
		}
		if err := emit(svmBenchRow{Op: "solve", Dtype: "float64", Seconds: time.Since(t0).Seconds(), Bias: bias,
			RelGap: r.Info.RelGap, Iters: r.Info.Iterations, SVs: r.Info.SupportVectors}); err != nil {
			return err
		}
	}
	if c.json {
		return nil
	}
	return printSVMBench(e.stdout, rows, nn, data, c.threads, *lambda)
}

// printSVMBench prints the rows of "bench svm" as a table.
func printSVMBench(w io.Writer, rows []svmBenchRow, nn int, data string, threads int, lambda float64) error {
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

// svmBenchData returns the inputs and labels of "bench svm": MNIST 0/1,
// or n random uniform 64-d points labelled by a noisy linear rule.
func svmBenchData(e *env, name string, n int, df *dataFlags) (linalg.Matrix[float64], []float64, string, error) {
	if name == "mnist01" {
		ds, err := dataset.Load("mnist01", df.options(e, 0))
		if err != nil {
			return linalg.Matrix[float64]{}, nil, "", err
		}
		return ds.X, ds.Y, "ntk(mnist01)", nil
	}
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

// svmBenchSteps times the step K·α against the read baseline for both
// element types and emits a row for each.
func svmBenchSteps(ctx context.Context, k64 linalg.Matrix[float64], k32 linalg.Matrix[float32], c *benchCommon, emit func(svmBenchRow) error) error {
	nn := k64.Rows
	alpha := make([]float64, nn)
	for i := range alpha {
		alpha[i] = float64(i%7) - 3
	}
	g := make([]float64, nn)
	for _, dt := range []string{"float32", "float64"} {
		km := svm.KernelMatrix(svm.NewDense(k64))
		read := func() float64 { return svmReadRows(k64, c.threads) }
		bytes := 8 * float64(nn) * float64(nn)
		if dt == "float32" {
			km = svm.NewDense(k32)
			read = func() float64 { return svmReadRows(k32, c.threads) }
			bytes /= 2
		}
		// Step and baseline alternate, so that both see the same load; the
		// percentage is the median of the per-pair ratios.
		var sink float64
		times, err := roundTimes(ctx, c.runs, func() { km.MulVec(g, alpha) }, func() { sink += read() })
		if err != nil {
			return err
		}
		svmSink = sink
		tSteps, tBases := times[0], times[1]
		ratios := make([]float64, len(tSteps))
		for r := range ratios {
			ratios[r] = tBases[r] / tSteps[r]
		}
		tStep, tBase := median(tSteps), median(tBases)
		if err := emit(svmBenchRow{Op: "step", Dtype: dt, Seconds: tStep, GBps: bytes / tStep / 1e9,
			BaseGBps: bytes / tBase / 1e9, Pct: 100 * median(ratios)}); err != nil {
			return err
		}
	}
	return nil
}

// checkSVMBenchFlags validates the flags of "bench svm" beyond the common
// ones.
func checkSVMBenchFlags(n int, lambda, gap float64, dataName string) error {
	if n < 2 || n > 60000 {
		return usageError("--n %d: want 2…60000 (the float64 Gram needs 8·n² bytes)", n)
	}
	if !(lambda > 0) || !(gap > 0) {
		return usageError("--lambda and --gap must be > 0")
	}
	if dataName != "random" && dataName != "mnist01" {
		return usageError("--data %q: want random or mnist01", dataName)
	}
	return nil
}
