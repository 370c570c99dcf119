package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/ntksvm/ntksvm/cmd/internal/dataset"
	"github.com/ntksvm/ntksvm/cmd/internal/output"
	"github.com/ntksvm/ntksvm/cmd/internal/progress"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
)

// "ntksvm train" fits one kernel machine of paper Table 1 on the NTK (or
// NNGP) Gram of a data set (svm.Fit) and writes a model file.

// trainFlags are the flags of "ntksvm train" and what check and load
// derive from them.
type trainFlags struct {
	data                           dataFlags
	kern                           kernelFlags
	machine, objective, solver     string
	decay                          string
	lambda, epsilon, gap, lr, tol  float64
	bias, pegasos, embed           bool
	batch, steps, epochs, logCount int
	seed                           uint64
	logFile, track, trackTest      string
	test, out, export              string
	tiles                          string

	// Derived from the flags (runTrain, check).
	set                         map[string]bool // flags given on the command line
	cfg                         svm.FitConfig
	params                      ntk.Params
	kind                        ntk.Kind
	trackTrainIdx, trackTestIdx []int
	// Set by load.
	trainSet, testSet *dataset.Set
}

// register adds the flags to fs.
func (f *trainFlags) register(fs *flag.FlagSet, e *env) {
	f.data.add(fs, e, "training data")
	f.kern.add(fs)
	fs.StringVar(&f.machine, "machine", "svm", "kernel machine: svm (hinge), svm2 (squared hinge), svr (ε-insensitive), krr (squared), logistic")
	fs.Float64Var(&f.lambda, "lambda", 0.001, "regularisation λ of the objective")
	fs.StringVar(&f.objective, "objective", "sum", "objective: sum (λ/2‖β‖² + Σ l, paper eq. 7) or mean (λ/2‖β‖² + (1/n)Σ l, eq. 11)")
	fs.StringVar(&f.solver, "solver", "exact", "exact (SMO dual for svm/svm2/svr, Cholesky for krr) or subgradient (paper App. A.1)")
	fs.BoolVar(&f.bias, "bias", false, "exact svm/svm2/svr: add a bias b (libsvm's machine); the paper's machines have none")
	fs.Float64Var(&f.epsilon, "epsilon", 0.1, "svr: ε of the ε-insensitive loss")
	fs.Float64Var(&f.gap, "gap", 1e-3, "exact svm/svm2/svr: target relative duality gap")
	fs.IntVar(&f.batch, "batch", 0, "subgradient: minibatch size (0: full batch)")
	fs.Float64Var(&f.lr, "lr", 1, "subgradient: step η (t = step·η)")
	fs.IntVar(&f.steps, "steps", 0, "subgradient: number of steps (0: --epochs epochs)")
	fs.IntVar(&f.epochs, "epochs", 1, "subgradient: epochs when --steps is 0")
	fs.StringVar(&f.decay, "decay", "lazy", "subgradient minibatch decay: lazy (batch entries only, the authors' code) or exact")
	fs.Uint64Var(&f.seed, "seed", 6, "subgradient: seed of the minibatch order (svm.BatchStream)")
	fs.BoolVar(&f.pegasos, "pegasos", false, "subgradient: Pegasos step 1/(λt) instead of --lr")
	fs.Float64Var(&f.tol, "tol", 0, "subgradient: stop when the objective changes by ≤ tol (relative) over an epoch")
	fs.IntVar(&f.logCount, "log-count", 100, "subgradient: evaluations at log-spaced steps (the authors' step_test schedule)")
	fs.StringVar(&f.logFile, "log", "", "subgradient: write the evaluations as CSV to this file")
	fs.StringVar(&f.track, "track-train", "", "subgradient: comma-separated training indices whose outputs the log records (the authors' Fig. 1 uses 2761,8419,10196,4714,8527)")
	fs.StringVar(&f.trackTest, "track-test", "", "subgradient: comma-separated --test indices whose outputs the log records (848,1305,1721,26,1953)")
	fs.StringVar(&f.test, "test", "", "held-out data for the log and a final report (same forms as --data)")
	fs.StringVar(&f.out, "out", "", "model file to write (required)")
	fs.BoolVar(&f.embed, "embed", false, "store the training inputs in the model (else a reference: source and SHA-256)")
	fs.StringVar(&f.tiles, "tiles", "", "read the training Gram from the tile `DIR` of \"ntksvm kernel --tile\" (checked against --data and the kernel flags) instead of computing it")
	fs.StringVar(&f.export, "export-libsvm", "", "also write the training Gram in LIBSVM's precomputed-kernel format to this file")
}

func runTrain(ctx context.Context, e *env, args []string) error {
	f := &trainFlags{}
	fs := newFlagSet(e, "train", "--data D --out MODEL [--machine svm|svm2|svr|krr|logistic] [--solver exact|subgradient] [flags]")
	f.register(fs, e)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	f.set = setFlags(fs)
	if err := f.check(); err != nil {
		return err
	}
	if err := f.load(e); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "data: %s, %d points × %d features\n", f.trainSet.Name, f.trainSet.X.Rows, f.trainSet.X.Cols)
	if f.kern.precision == "float32" {
		return trainWith[float32](ctx, e, f)
	}
	return trainWith[float64](ctx, e, f)
}

// load reads the training and test sets and checks their labels for the
// machine.
func (f *trainFlags) load(e *env) (err error) {
	if f.trainSet, err = dataset.Load(f.data.data, f.data.options(e, 0)); err != nil {
		return err
	}
	if f.trainSet.Y == nil {
		return usageError("--data %s has no labels; give X.npy,y.npy", f.data.data)
	}
	if err := f.trainSet.CheckLabels(f.cfg.Machine); err != nil {
		return fmt.Errorf("--data %w", err)
	}
	if f.test == "" {
		return nil
	}
	opt := f.data.options(e, f.trainSet.X.Cols)
	opt.First = 0
	if f.testSet, err = dataset.Load(f.test, opt); err != nil {
		return err
	}
	switch {
	case f.testSet.X.Cols != f.trainSet.X.Cols:
		return fmt.Errorf("--test has %d features, --data %d", f.testSet.X.Cols, f.trainSet.X.Cols)
	case f.testSet.Y == nil:
		return usageError("--test %s has no labels", f.test)
	}
	if err := f.testSet.CheckLabels(f.cfg.Machine); err != nil {
		return fmt.Errorf("--test %w", err)
	}
	return nil
}

func trainWith[T linalg.Float](ctx context.Context, e *env, f *trainFlags) error {
	ref := trainRef(f) // before the inputs go
	k, testK, err := trainKernels[T](ctx, e, f)
	if err != nil {
		return err
	}
	res, err := f.fit(ctx, e, k, testK)
	if err != nil {
		return err
	}
	// The Gram is dead too: the reloaded inputs, the model's encoding and
	// the test kernel take its place.
	releaseMemory()
	return f.reportAndSave(ctx, e, res, ref, testK)
}

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
		if err := output.WriteFile(f.export, func(w io.Writer) error { return svm.WritePrecomputed(w, train.Y, gram) }); err != nil {
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

// reportAndSave prints the training (and --test) report of a fit and
// writes its model. testK is the test kernel the fit's log used, if any;
// otherwise the test predictions reload the training inputs.
func (f *trainFlags) reportAndSave(ctx context.Context, e *env, res *svm.FitResult, ref svm.TrainRef, testK svm.KernelMatrix) error {
	train := f.trainSet
	var err error
	if f.embed || (f.testSet != nil && testK == nil) {
		if train.X, err = f.reloadInputs(e, ref); err != nil {
			return err
		}
	}
	model := f.model(res, ref)
	loss := f.cfg.Machine.Loss(f.cfg.Epsilon)
	if err := checkFinite("training set", res.Outputs); err != nil {
		return err
	}
	printReport(e.stdout, "train", loss, res.Outputs, train.Y)
	if f.testSet != nil {
		pred := make([]float64, f.testSet.X.Rows)
		if testK != nil {
			err = model.KernelMachine().Predict(pred, testK)
		} else {
			err = f.predictTest(ctx, e, model, pred, train.X, f.kern.precision == "float32")
		}
		if err != nil {
			return err
		}
		printReport(e.stdout, "test", loss, pred, f.testSet.Y)
	}
	if err := output.WriteFile(f.out, func(w io.Writer) error { return svm.WriteModel(w, model) }); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s\n", f.out)
	return nil
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

// reloadInputs returns the training inputs ref names, reloaded from their
// source and checked against its SHA-256 as "ntksvm predict" reloads them
// (an error if the source changed during the fit).
func (f *trainFlags) reloadInputs(e *env, ref svm.TrainRef) (linalg.Matrix[float64], error) {
	m := &svm.Model{Train: ref}
	m.Train.Embedded = false
	return trainingInputs(e, m, f.data)
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

// trainRef returns the model's reference to the training inputs; it is
// taken before the fit, after which the inputs may be gone.
func trainRef(f *trainFlags) svm.TrainRef {
	train := f.trainSet
	return svm.TrainRef{Source: train.Source, N: train.X.Rows, D: train.X.Cols, SHA256: svm.InputsSHA256(train.X),
		Embedded: f.embed, First: f.data.first, Standardize: f.data.standardize}
}

// model returns the model file's content for the fit, whose training
// inputs ref names.
func (f *trainFlags) model(res *svm.FitResult, ref svm.TrainRef) *svm.Model {
	train, cfg := f.trainSet, f.cfg
	m := &svm.Model{Machine: cfg.Machine.String(), Loss: cfg.Machine.Loss(cfg.Epsilon).Name(), Lambda: cfg.Lambda,
		Objective: cfg.Objective.String(), Solver: cfg.Solver.String(), HasBias: cfg.Bias, Bias: res.Machine.Bias,
		Kernel: f.kern.spec(), Fit: res.Info, Alpha: res.Machine.Alpha}
	if cfg.Machine == svm.MachineSVR {
		m.Epsilon = cfg.Epsilon
	}
	m.Train = ref
	if f.embed {
		m.X = train.X
	}
	return m
}

// printReport prints the mean loss and, for classification, the accuracy.
func printReport(w io.Writer, what string, loss svm.Loss, out, y []float64) {
	if loss.Classification() {
		fmt.Fprintf(w, "%s: accuracy %.4f%%, mean %s loss %.6g (%d points)\n", what, 100*svm.Accuracy(out, y), loss.Name(), svm.MeanLoss(loss, out, y), len(y))
		return
	}
	fmt.Fprintf(w, "%s: mean %s loss %.6g, sign accuracy %.4f%% (%d points)\n", what, loss.Name(), svm.MeanLoss(loss, out, y), 100*svm.Accuracy(out, y), len(y))
}
