package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ntksvm/ntksvm/cmd/internal/output"
	"github.com/ntksvm/ntksvm/cmd/internal/progress"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
)

// trainKernels computes the Gram of the training inputs in T (and, for
// the subgradient solver's log with --test, the test kernel), writes
// --export-libsvm, and lets the inputs go. Nothing reads the float64
// inputs after that: a float32 run lets them go before the Gram, a float64
// one after it. The model's copy (--embed) and the exact solvers' test
// predictions reload them after the fit, as "ntksvm predict" does.
func trainKernels[T linalg.Float](ctx context.Context, e *env, f *trainFlags) (k, testK svm.KernelMatrix, err error) {
	train := f.trainSet
	n := train.X.Rows
	ref := trainRef(f)               // what --tiles must have been computed from
	xt := linalg.Convert[T](train.X) // train.X itself for float64
	var zt linalg.Matrix[T]
	subgradientTest := f.testSet != nil && f.cfg.Solver == svm.SolverSubgradient
	if subgradientTest {
		zt = linalg.Convert[T](f.testSet.X) // the log evaluates the test set as it goes
	}
	train.X.Data = nil
	// The loaders' garbage (compressed and decoded files, the other split)
	// would otherwise stay resident under the heap goal that the Gram sets.
	releaseMemory()
	// Exact KRR factors a float64 K + cI in place. A float32 Gram is
	// computed in the first half of that matrix's storage and widened in
	// place, so that the two never take more memory than the float64 one.
	var gram linalg.Matrix[T]
	var wide linalg.Matrix[float64]
	if f.widenGram() {
		w, g := linalg.NewWidenable(n, n)
		wide, gram = w, any(g).(linalg.Matrix[T])
	} else {
		gram = linalg.New[T](n, n)
	}
	t0 := time.Now()
	if f.tiles != "" {
		err = gramFromTiles(e, f.tiles, &f.kern, ref, gram)
	} else {
		err = kernelInto(ctx, e, "Gram "+f.kern.kernel, nil, xt, f.params, f.kind, gram)
	}
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(e.stderr, "Gram: %d×%d %s in %.1fs\n", gram.Rows, gram.Cols, f.kern.precision, time.Since(t0).Seconds())
	if f.export != "" {
		t1 := time.Now()
		if err := output.WriteFileContext(ctx, f.export, false, func(w io.Writer) error { return svm.WritePrecomputed(w, train.Y, gram) }); err != nil {
			return nil, nil, fmt.Errorf("--export-libsvm: %w", err)
		}
		fmt.Fprintf(e.stderr, "exported the Gram to %s in %.1fs\n", f.export, time.Since(t1).Seconds())
	}
	if subgradientTest {
		kt := linalg.New[T](zt.Rows, n)
		if err := kernelInto(ctx, e, "test kernel", &zt, xt, f.params, f.kind, kt); err != nil {
			return nil, nil, err
		}
		testK = svm.NewDense(kt)
	}
	// xt and zt are dead from here: the fit's peak is the Gram and the
	// solver's workspace.
	releaseMemory()
	if wide.Data != nil {
		if err := linalg.Widen(wide, any(gram).(linalg.Matrix[float32])); err != nil {
			return nil, nil, err
		}
		return svm.NewDense(wide), testK, nil
	}
	return svm.NewDense(gram), testK, nil
}

// widenGram reports whether the Gram is computed in float32 for exact KRR
// with a ridge c > 0, which factors it in place in float64 (see
// trainWith).
func (f *trainFlags) widenGram() bool {
	return f.kern.precision == "float32" && f.cfg.Solver == svm.SolverExact && f.cfg.Machine == svm.MachineKRR &&
		svm.KRRShift(f.cfg.Lambda, f.cfg.Objective, f.trainSet.X.Rows) > 0
}

// kernelInto computes K(Z, X) (z nil: the Gram K(X, X)) of the inputs in
// T into k, with a progress report labelled what.
func kernelInto[T linalg.Float](ctx context.Context, e *env, what string, z *linalg.Matrix[T], x linalg.Matrix[T], p ntk.Params,
	kind ntk.Kind, k linalg.Matrix[T]) error {
	var out, other linalg.Matrix[T]
	if kind == ntk.KindNTK {
		out = k
	} else {
		other = k
	}
	pr := progress.New(e.stderr, e.isTerminal, what, int64(k.Rows))
	o := ntk.Options{Progress: func(done, _ int) { pr.Set(int64(done)) }}
	var err error
	if z == nil {
		err = ntk.GramInto(ctx, x, p, o, out, other)
	} else {
		err = ntk.CrossInto(ctx, *z, x, p, o, out, other)
	}
	pr.Done()
	return err
}

// testBlockBytes is the size of the blocks of test kernel rows that
// predictTest computes at a time: small against the training Gram, large
// enough that each block is one efficient product. A variable so that
// tests can make several blocks of a small set.
var testBlockBytes = 16 << 20

// predictTest sets pred to the exact solver's outputs on the test set,
// whose training inputs are x. The test kernel K(test, train) is computed
// in blocks of rows (testBlockBytes each) rather than whole: the whole one
// (2,115 × 12,665 float64 for MNIST 0/1, 214 MB) would add a sixth of the
// Gram to the peak memory. Its rows are computed independently, so the
// outputs are those of the whole test kernel.
func (f *trainFlags) predictTest(ctx context.Context, e *env, m *svm.Model, pred []float64, x linalg.Matrix[float64], single bool) error {
	if single {
		return predictTestBlocks[float32](ctx, e, m.KernelMachine(), pred, f.testSet.X, x, f.params, f.kind)
	}
	return predictTestBlocks[float64](ctx, e, m.KernelMachine(), pred, f.testSet.X, x, f.params, f.kind)
}

// predictTestBlocks sets pred = K(z, x)·α (+ b) with the kernel computed in
// T, testBlockBytes of rows at a time.
func predictTestBlocks[T linalg.Float](ctx context.Context, e *env, km *svm.KernelMachine, pred []float64, z, x linalg.Matrix[float64],
	p ntk.Params, kind ntk.Kind) error {
	xt := linalg.Convert[T](x)
	rows := max(1, min(z.Rows, testBlockBytes/8/max(1, x.Rows)))
	buf := linalg.New[T](rows, x.Rows)
	pr := progress.New(e.stderr, e.isTerminal, "test kernel", int64(z.Rows))
	defer pr.Done()
	for i0 := 0; i0 < z.Rows; i0 += rows {
		i1 := min(z.Rows, i0+rows)
		k := buf.Slice(0, i1-i0, 0, x.Rows)
		var out, other linalg.Matrix[T]
		if kind == ntk.KindNTK {
			out = k
		} else {
			other = k
		}
		zt := linalg.Convert[T](z.Slice(i0, i1, 0, z.Cols))
		if err := ntk.CrossInto(ctx, zt, xt, p, ntk.Options{}, out, other); err != nil {
			return err
		}
		if err := km.Predict(pred[i0:i1], svm.NewDense(k)); err != nil {
			return err
		}
		pr.Set(int64(i1))
	}
	return nil
}
