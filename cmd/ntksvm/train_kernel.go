package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
	"github.com/ntksvm/ntksvm/internal/testhold"
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
	if train.Source == "" {
		f.keptX = train.X // no name reloads them
	}
	train.X.Data = nil
	// The loaders' garbage (compressed and decoded files, the other split)
	// would otherwise stay resident under the heap goal that the Gram sets.
	releaseMemory()
	if f.widenGram() {
		// Exact KRR factors a float64 K + cI in place: the float32 Gram is
		// computed in the first half of that matrix's storage and widened
		// in place, so that the two never take more memory than the
		// float64 one.
		wide, err := linalg.FillWidened(n, n, func(g linalg.Matrix[float32]) error {
			return gramInto(ctx, e, f, ref, linalg.Convert[float32](xt), g)
		})
		if err != nil {
			return nil, nil, err
		}
		return svm.NewDense(wide), nil, nil
	}
	gram := linalg.New[T](n, n)
	if err := gramInto(ctx, e, f, ref, xt, gram); err != nil {
		return nil, nil, err
	}
	if subgradientTest {
		kt := linalg.New[T](zt.Rows, n)
		o, done := kernelProgress(e, "test kernel", zt.Rows)
		err := ntk.FillCross(ctx, f.kernel, zt, xt, o, kt)
		done()
		if err != nil {
			return nil, nil, err
		}
		testK = svm.NewDense(kt)
	}
	return svm.NewDense(gram), testK, nil
}

// gramInto fills gram with the training Gram, computed from the inputs x
// or assembled from --tiles (checked against ref), writes --export-libsvm
// and lets the inputs go: the fit's peak is the Gram and the solver's
// workspace.
func gramInto[T linalg.Float](ctx context.Context, e *env, f *trainFlags, ref svm.TrainRef, x, gram linalg.Matrix[T]) error {
	t0 := time.Now()
	var err error
	if f.tiles != "" {
		err = gramFromTiles(e, f.tiles, f.kernel, ref, gram)
	} else {
		o, done := kernelProgress(e, "Gram "+f.kernel.Kind.String(), x.Rows)
		err = ntk.FillGram(testhold.Context(ctx, "gram"), f.kernel, x, o, gram)
		done()
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "Gram: %d×%d %s in %.1fs\n", gram.Rows, gram.Cols, f.kernel.Type(), time.Since(t0).Seconds())
	if f.export != "" {
		t1 := time.Now()
		if err := output.WriteFileContext(ctx, f.export, false, func(w io.Writer) error { return svm.WritePrecomputed(w, f.trainSet.Y, gram) }); err != nil {
			return fmt.Errorf("--export-libsvm: %w", err)
		}
		fmt.Fprintf(e.stderr, "exported the Gram to %s in %.1fs\n", f.export, time.Since(t1).Seconds())
	}
	releaseMemory()
	return nil
}

// widenGram reports whether the Gram is computed in float32 for exact KRR
// with a ridge c > 0, which factors it in place in float64 (see
// trainWith).
func (f *trainFlags) widenGram() bool {
	return f.kernel.Float32 && f.cfg.Solver == svm.SolverExact && f.cfg.Machine == svm.MachineKRR &&
		svm.KRRShift(f.cfg.Lambda, f.cfg.Objective, f.trainSet.X.Rows) > 0
}

// testBlockBytes bounds the test kernel rows that predictTest computes at
// a time: small against the training Gram, large enough that each block
// is one efficient product. A variable so that tests can make several
// blocks of a small set.
var testBlockBytes = 16 << 20

// predictTest sets pred to the exact solver's outputs on the test set,
// whose training inputs are x. The test kernel K(test, train) is computed
// in blocks of rows (testBlockBytes each, svm.PredictKernel) rather than
// whole: the whole one (2,115 × 12,665 float64 for MNIST 0/1, 214 MB)
// would add a sixth of the Gram to the peak memory.
func (f *trainFlags) predictTest(ctx context.Context, e *env, m *svm.Model, pred []float64, x linalg.Matrix[float64]) error {
	o, done := kernelProgress(e, "test kernel", f.testSet.X.Rows)
	defer done()
	return svm.PredictKernel(ctx, m.KernelMachine(), pred, f.kernel, f.testSet.X, x, o, int64(testBlockBytes))
}
