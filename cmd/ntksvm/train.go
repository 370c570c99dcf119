package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/dataset"
)

// "ntksvm train" fits one kernel machine of paper Table 1 on the NTK (or
// NNGP) Gram of a data set (svm.Fit) and writes a model file.

// trainFlags are the flags of "ntksvm train" and what check and load
// derive from them.
type trainFlags struct {
	data                           dataFlags
	cls                            classFlags
	kern                           kernelFlags
	machine, objective, solver     string
	decay                          string
	lambda, epsilon, gap, lr, tol  float64
	bias, pegasos, embed, prob     bool
	batch, steps, epochs, logCount int
	seed                           uint64
	logFile, track, trackTest      string
	out, export, tiles, multiclass string

	// Derived from the flags (runTrain, check).
	set                         map[string]bool // flags given on the command line
	cfg                         svm.FitConfig
	kernel                      ntk.Spec
	trackTrainIdx, trackTestIdx []int
	// Set by load: the binary machine's points, or the multi-class data.
	trainSet, testSet    *points
	multiData, multiTest *dataset.Dataset
	keptX                linalg.Matrix[float64] // inputs no name reloads (trainKernels)
}

// register adds the flags to fs.
func (f *trainFlags) register(fs *flag.FlagSet, e *env) {
	f.data.add(fs, e, "training data")
	f.data.addTest(fs, "held-out data for the log and a final report")
	f.cls.add(fs)
	fs.StringVar(&f.multiclass, "multiclass", "ovo", "data of more than two classes without --positive/--classes: ovo (one-vs-one voting) or ovr (one-vs-rest) machines of svm, svm2 or krr")
	fs.BoolVar(&f.prob, "probability", false, "data of classes without --positive/--classes (two or more; svm, svm2, krr): fit the machines of cv with a bias and "+
		"libsvm's probability model (Platt's sigmoids on 5-fold cross-validated decision values, coupled), for predict --probability")
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
	fs.Uint64Var(&f.seed, "seed", 6, "subgradient: seed of the minibatch order (train.BatchStream)")
	fs.BoolVar(&f.pegasos, "pegasos", false, "subgradient: Pegasos step 1/(λt) instead of --lr")
	fs.Float64Var(&f.tol, "tol", 0, "subgradient: stop when the objective changes by ≤ tol (relative) over an epoch")
	fs.IntVar(&f.logCount, "log-count", 100, "subgradient: evaluations at log-spaced steps (the authors' step_test schedule)")
	fs.StringVar(&f.logFile, "log", "", "subgradient: write the evaluations as CSV to this file")
	fs.StringVar(&f.track, "track-train", "", "subgradient: comma-separated training indices whose outputs the log records (the authors' Fig. 1 uses 2761,8419,10196,4714,8527)")
	fs.StringVar(&f.trackTest, "track-test", "", "subgradient: comma-separated --test indices whose outputs the log records (848,1305,1721,26,1953)")
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
	if f.multiData != nil {
		return trainMulti(ctx, e, f)
	}
	if f.prob {
		return usageError("--probability: the binary machines of train (one output, paper Table 1) have no probability model; give data of classes without --positive/--classes (svm, svm2, krr), or use ntksvm cv --probability")
	}
	fmt.Fprintf(e.stderr, "data: %s, %d points × %d features\n", f.trainSet.Name, f.trainSet.X.Rows, f.trainSet.X.Cols)
	if f.kernel.Float32 {
		return trainWith[float32](ctx, e, f)
	}
	return trainWith[float64](ctx, e, f)
}

// load reads the training and test sets as the machine reads them: the
// points of one binary machine, or (multiData) the classes of a
// multi-class one.
func (f *trainFlags) load(e *env) error {
	train, test, err := f.data.openPair(e)
	if err != nil {
		return err
	}
	for _, s := range []*dataset.Dataset{train, test} {
		if s != nil && !s.Labelled() {
			return usageError("%s has no labels; give X.npy,y.npy or a table", s.Name)
		}
	}
	if f.isMulti(train) {
		f.multiData, f.multiTest = train, test
		return nil
	}
	regress := !f.cfg.Machine.Loss(f.cfg.Epsilon).Classification()
	if f.trainSet, f.testSet, err = f.cls.forMachine(regress, train, test); err != nil {
		return err
	}
	for _, p := range []*points{f.trainSet, f.testSet} {
		if p == nil {
			continue
		}
		if err := svm.CheckLabels(f.cfg.Machine, p.Y); err != nil {
			return fmt.Errorf("%s: %s (machine %s)", p.Name, strings.TrimPrefix(err.Error(), svm.ErrInput.Error()+": "), f.cfg.Machine)
		}
	}
	if f.trainSet.Source == "" && !f.embed {
		f.embed = true
		fmt.Fprintf(e.stderr, "the model embeds the training inputs: no file name alone gives %s's rows again\n", f.trainSet.Name)
	}
	return nil
}

func trainWith[T linalg.Float](ctx context.Context, e *env, f *trainFlags) error {
	ref := trainRef(f)                      // before the inputs go
	if err := f.checkMemory(); err != nil { // before the Gram is allocated
		return err
	}
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
