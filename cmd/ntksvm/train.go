package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/mnist"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
)

// "ntksvm train" fits one kernel machine of paper Table 1 on the NTK (or
// NNGP) Gram of a data set and writes a model file; "ntksvm export-libsvm"
// writes a data set, or its Gram in LIBSVM's precomputed-kernel format, so
// that libsvm (svm-train -t 4) or scikit-learn can check our solvers.

func init() {
	register(&command{
		name:    "train",
		summary: "train a kernel machine of paper Table 1 (svm, svm2, svr, krr, logistic) on the NTK",
		run:     runTrain,
	})
	register(&command{
		name:    "export-libsvm",
		summary: "write a data set, or its NTK Gram as a precomputed kernel, in LIBSVM format",
		run:     runExportLIBSVM,
	})
}

// svmMachines maps --machine to its loss (paper Table 1).
var svmMachines = map[string]string{
	"svm":      "hinge",
	"svm2":     "squared-hinge",
	"svr":      "eps-insensitive",
	"krr":      "squared",
	"logistic": "logistic",
}

// svmDataFlags are the flags that select and load a data set.
type svmDataFlags struct {
	data        string
	mnist       *mnistFlags
	first       int
	standardize bool
}

func (d *svmDataFlags) add(fs *flag.FlagSet, def, what string) {
	fs.StringVar(&d.data, "data", def, what+": mnist01 (MNIST 0 vs 1 train), mnist01-test, X.npy,y.npy, X.npy, or a LIBSVM file (*.libsvm, *.svm, libsvm:PATH)")
	d.mnist = addMNISTFlags(fs)
	fs.IntVar(&d.first, "first", 0, "keep only the first N points (MNIST: in file order); 0 keeps all")
	fs.BoolVar(&d.standardize, "standardize", false, "MNIST pixels (p/255 − 0.1307)/0.3081 instead of p/255")
}

// svmKernelFlags select the kernel.
type svmKernelFlags struct {
	kernel    string
	depth     int
	sigmaW    float64
	sigmaB    float64
	precision string
}

func (k *svmKernelFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&k.kernel, "kernel", "ntk", "kernel: ntk or nngp (infinite-width, of an L-hidden-layer ReLU net)")
	fs.IntVar(&k.depth, "depth", 1, "hidden layers L (the paper's 2-layer net is L = 1)")
	fs.Float64Var(&k.sigmaW, "sigma-w", 1, "weight standard deviation σ_w")
	fs.Float64Var(&k.sigmaB, "sigma-b", 0, "bias standard deviation σ_b (0: no bias)")
	fs.StringVar(&k.precision, "precision", "float64", "element type of the Gram: float64 or float32")
}

func (k *svmKernelFlags) check() (ntk.Params, ntk.Kind, error) {
	kind, err := ntk.ParseKind(k.kernel)
	if err != nil {
		return ntk.Params{}, 0, usageError("--kernel: %v", err)
	}
	p := ntk.Params{Depth: k.depth, WeightStd: k.sigmaW, BiasStd: k.sigmaB}
	if err := p.Validate(); err != nil {
		return ntk.Params{}, 0, usageError("%v", err)
	}
	if k.precision != "float64" && k.precision != "float32" {
		return ntk.Params{}, 0, usageError("--precision %q: want float64 or float32", k.precision)
	}
	return p, kind, nil
}

func (k *svmKernelFlags) spec() svm.KernelSpec {
	return svm.KernelSpec{Name: k.kernel, Depth: k.depth, SigmaW: k.sigmaW, SigmaB: k.sigmaB, Type: k.precision}
}

// svmDataset is a loaded data set: inputs one per row, and targets when
// the source has them.
type svmDataset struct {
	name   string // for messages
	source string // the model's training-set reference
	x      linalg.Matrix[float64]
	y      []float64 // nil without labels
}

// svmLoadData loads the data set named by spec. dim > 0 is the number of
// features a LIBSVM file must be read with (the training set's).
func svmLoadData(e *env, spec string, f svmDataFlags, dim int) (*svmDataset, error) {
	if f.first < 0 {
		return nil, usageError("--first %d: want ≥ 0", f.first)
	}
	var ds *svmDataset
	switch {
	case spec == "":
		return nil, usageError("--data is required")
	case spec == "mnist01" || spec == "mnist01-train" || spec == "mnist01-test":
		m := f.mnist
		if m == nil {
			m = &mnistFlags{}
		}
		train, test, err := loadBinary[float64](e, m, 0, 1, mnist.Options{Standardize: f.standardize})
		if err != nil {
			return nil, err
		}
		t := train
		if spec == "mnist01-test" {
			t = test
		}
		ds = &svmDataset{name: spec, source: strings.TrimSuffix(spec, "-train"), x: t.X, y: t.Y}
	case strings.HasPrefix(spec, "libsvm:") || strings.HasSuffix(spec, ".libsvm") || strings.HasSuffix(spec, ".svm"):
		path := strings.TrimPrefix(spec, "libsvm:")
		fh, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		s, err := svm.ReadLIBSVM(fh, path)
		if err != nil {
			return nil, err
		}
		x, err := s.Dense(dim, 1<<31)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		ds = &svmDataset{name: path, source: svmAbs(path), x: x, y: s.Y}
	default:
		xp, yp, hasY := strings.Cut(spec, ",")
		x, err := linalg.ReadNpy[float64](xp)
		if err != nil {
			return nil, err
		}
		ds = &svmDataset{name: xp, source: svmAbs(xp), x: x}
		if hasY {
			if ds.y, err = linalg.ReadNpyVector[float64](yp); err != nil {
				return nil, err
			}
			if len(ds.y) != x.Rows {
				return nil, fmt.Errorf("%s has %d labels for the %d rows of %s", yp, len(ds.y), x.Rows, xp)
			}
		}
	}
	if f.first > 0 {
		if f.first > ds.x.Rows {
			return nil, usageError("--first %d: %s has only %d points", f.first, ds.name, ds.x.Rows)
		}
		ds.x = ds.x.Slice(0, f.first, 0, ds.x.Cols)
		if ds.y != nil {
			ds.y = ds.y[:f.first]
		}
	}
	for i, v := range ds.y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s: label %d is %v", ds.name, i, v)
		}
	}
	return ds, nil
}

func svmAbs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// svmConvert returns x with elements of type T (x itself for float64).
func svmConvert[T linalg.Float](x linalg.Matrix[float64]) linalg.Matrix[T] {
	if m, ok := any(x).(linalg.Matrix[T]); ok {
		return m
	}
	m := linalg.New[T](x.Rows, x.Cols)
	for i := range x.Rows {
		r := m.Row(i)
		for j, v := range x.Row(i) {
			r[j] = T(v)
		}
	}
	return m
}

// svmKernel computes K(Z, X) (z nil: the Gram K(X, X)) of element type T.
func svmKernel[T linalg.Float](ctx context.Context, e *env, what string, z, x *linalg.Matrix[float64], p ntk.Params, kind ntk.Kind) (linalg.Matrix[T], error) {
	xt := svmConvert[T](*x)
	rows := x.Rows
	if z != nil {
		rows = z.Rows
	}
	k := linalg.New[T](rows, x.Rows)
	var out, other linalg.Matrix[T]
	if kind == ntk.KindNTK {
		out = k
	} else {
		other = k
	}
	pr := newProgress(e, what, int64(rows))
	o := ntk.Options{Progress: func(done, _ int) { pr.Set(int64(done)) }}
	var err error
	if z == nil {
		err = ntk.GramInto(ctx, xt, p, o, out, other)
	} else {
		err = ntk.CrossInto(ctx, svmConvert[T](*z), xt, p, o, out, other)
	}
	pr.Done()
	return k, err
}

// svmWriteAtomic writes path through fn into a temporary file in the same
// directory, syncs it and renames it over path; on error path is untouched.
func svmWriteAtomic(path string, fn func(w io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 4<<20)
	if err = fn(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// svmTrainFlags are the flags of "ntksvm train".
type svmTrainFlags struct {
	data      svmDataFlags
	kern      svmKernelFlags
	machine   string
	lambda    float64
	objective string
	solver    string
	bias      bool
	epsilon   float64
	gap       float64
	batch     int
	lr        float64
	steps     int
	epochs    int
	decay     string
	seed      uint64
	pegasos   bool
	tol       float64
	logCount  int
	logFile   string
	track     string
	trackTest string
	test      string
	out       string
	embed     bool
	export    string
}

func runTrain(ctx context.Context, e *env, args []string) error {
	var f svmTrainFlags
	fs := newFlagSet(e, "train", "--data D --out MODEL [--machine svm|svm2|svr|krr|logistic] [--solver exact|subgradient] [flags]")
	f.data.add(fs, "", "training data")
	f.kern.add(fs)
	fs.StringVar(&f.machine, "machine", "svm", "kernel machine: svm (hinge), svm2 (squared hinge), svr (ε-insensitive), krr (squared), logistic")
	fs.Float64Var(&f.lambda, "lambda", 0.001, "regularisation λ of the objective")
	fs.StringVar(&f.objective, "objective", "sum", "objective: sum (λ/2‖β‖² + Σ l, paper eq. 7) or mean (λ/2‖β‖² + (1/n)Σ l, eq. 11)")
	fs.StringVar(&f.solver, "solver", "exact", "exact (SMO dual for svm/svm2/svr, Cholesky for krr) or subgradient (paper App. A.1)")
	fs.BoolVar(&f.bias, "bias", false, "exact svm/svm2/svr: add a bias b (libsvm's machine); the paper's machines have none")
	fs.Float64Var(&f.epsilon, "epsilon", 0.1, "ε of the svr machine's ε-insensitive loss")
	fs.Float64Var(&f.gap, "gap", 1e-3, "exact svm/svm2/svr: target relative duality gap")
	fs.IntVar(&f.batch, "batch", 0, "subgradient: minibatch size (0: full batch)")
	fs.Float64Var(&f.lr, "lr", 1, "subgradient: step η (t = step·η)")
	fs.IntVar(&f.steps, "steps", 0, "subgradient: number of steps (0: --epochs epochs)")
	fs.IntVar(&f.epochs, "epochs", 1, "subgradient: epochs when --steps is 0")
	fs.StringVar(&f.decay, "decay", "lazy", "subgradient minibatch decay: lazy (batch entries only, the authors' code) or exact")
	fs.Uint64Var(&f.seed, "seed", 6, "subgradient: seed of the minibatch order (svm.BatchStream)")
	fs.BoolVar(&f.pegasos, "pegasos", false, "subgradient: Pegasos step 1/(λt) instead of --lr")
	fs.Float64Var(&f.tol, "tol", 0, "subgradient: stop when the objective changes by ≤ tol (relative) over an epoch")
	fs.IntVar(&f.logCount, "log-count", 100, "subgradient: evaluations at log-spaced steps (PROTOCOL step_test)")
	fs.StringVar(&f.logFile, "log", "", "subgradient: write the evaluations as CSV to this file")
	fs.StringVar(&f.track, "track-train", "", "subgradient: comma-separated training indices whose outputs the log records (PROTOCOL §1: 2761,8419,10196,4714,8527)")
	fs.StringVar(&f.trackTest, "track-test", "", "subgradient: comma-separated --test indices whose outputs the log records (848,1305,1721,26,1953)")
	fs.StringVar(&f.test, "test", "", "held-out data for the log and a final report (same forms as --data)")
	fs.StringVar(&f.out, "out", "", "model file to write (required)")
	fs.BoolVar(&f.embed, "embed", false, "store the training inputs in the model (else a reference: source and SHA-256)")
	fs.StringVar(&f.export, "export-libsvm", "", "also write the training Gram in LIBSVM's precomputed-kernel format to this file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if f.out == "" {
		return usageError("--out is required")
	}
	lossName, ok := svmMachines[f.machine]
	if !ok {
		return usageError("--machine %q: want svm, svm2, svr, krr or logistic", f.machine)
	}
	loss, _ := svm.ParseLoss(lossName)
	if f.machine == "svr" {
		loss = svm.EpsInsensitiveLoss(f.epsilon)
		if !loss.Valid() {
			return usageError("--epsilon %v: want a finite ε ≥ 0", f.epsilon)
		}
	}
	obj, err := svm.ParseObjective(f.objective)
	if err != nil {
		return usageError("--objective: %v", err)
	}
	if !(f.lambda >= 0) || math.IsInf(f.lambda, 0) {
		return usageError("--lambda %v: want a finite λ ≥ 0", f.lambda)
	}
	p, kind, err := f.kern.check()
	if err != nil {
		return err
	}
	switch f.solver {
	case "exact":
		if f.machine == "logistic" {
			return usageError("--machine logistic has no exact solver; use --solver subgradient")
		}
		if f.bias && f.machine == "krr" {
			return usageError("--bias is not supported for krr")
		}
		if f.lambda == 0 && f.machine != "krr" {
			return usageError("--solver exact needs --lambda > 0 for %s (C = 1/λ)", f.machine)
		}
		if !(f.gap > 0) {
			return usageError("--gap %v: want > 0", f.gap)
		}
	case "subgradient":
		if f.bias {
			return usageError("--bias: the subgradient trainer fits the paper's homogeneous machine (no bias)")
		}
	default:
		return usageError("--solver %q: want exact or subgradient", f.solver)
	}
	train, err := svmLoadData(e, f.data.data, f.data, 0)
	if err != nil {
		return err
	}
	if train.y == nil {
		return usageError("--data %s has no labels; give X.npy,y.npy", f.data.data)
	}
	var test *svmDataset
	if f.test != "" {
		tf := f.data
		tf.first = 0
		if test, err = svmLoadData(e, f.test, tf, train.x.Cols); err != nil {
			return err
		}
		if test.x.Cols != train.x.Cols {
			return fmt.Errorf("--test has %d features, --data %d", test.x.Cols, train.x.Cols)
		}
		if test.y == nil {
			return usageError("--test %s has no labels", f.test)
		}
	}
	fmt.Fprintf(e.stderr, "data: %s, %d points × %d features\n", train.name, train.x.Rows, train.x.Cols)
	if f.kern.precision == "float32" {
		return trainWith[float32](ctx, e, &f, loss, obj, p, kind, train, test)
	}
	return trainWith[float64](ctx, e, &f, loss, obj, p, kind, train, test)
}

func trainWith[T linalg.Float](ctx context.Context, e *env, f *svmTrainFlags, loss svm.Loss, obj svm.Objective,
	p ntk.Params, kind ntk.Kind, train, test *svmDataset) error {
	t0 := time.Now()
	gram, err := svmKernel[T](ctx, e, "Gram "+f.kern.kernel, nil, &train.x, p, kind)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "Gram: %d×%d %s in %.1fs\n", gram.Rows, gram.Cols, f.kern.precision, time.Since(t0).Seconds())
	if f.export != "" {
		t1 := time.Now()
		if err := svmWriteAtomic(f.export, func(w io.Writer) error { return svm.WritePrecomputed(w, train.y, gram) }); err != nil {
			return fmt.Errorf("--export-libsvm: %w", err)
		}
		fmt.Fprintf(e.stderr, "exported the Gram to %s in %.1fs\n", f.export, time.Since(t1).Seconds())
	}
	var testK svm.KernelMatrix
	if test != nil {
		kt, err := svmKernel[T](ctx, e, "test kernel", &test.x, &train.x, p, kind)
		if err != nil {
			return err
		}
		testK = svm.NewDense(kt)
	}
	k := svm.NewDense(gram)
	n := train.x.Rows
	model := &svm.Model{Machine: f.machine, Loss: loss.Name(), Epsilon: loss.Epsilon, Lambda: f.lambda,
		Objective: obj.String(), Solver: f.solver, Kernel: f.kern.spec(), Params: map[string]string{}}
	if f.data.first > 0 {
		model.Params["first"] = strconv.Itoa(f.data.first)
	}
	if f.data.standardize {
		model.Params["standardize"] = "true"
	}
	var outputs []float64
	t1 := time.Now()
	switch {
	case f.solver == "exact" && f.machine == "krr":
		c := svm.KRRShift(f.lambda, obj, n)
		m, err := svm.KRR(ctx, k, train.y, c)
		if err != nil {
			return err
		}
		model.Alpha = m.Alpha
		outputs = make([]float64, n)
		k.MulVec(outputs, m.Alpha)
		model.Params["ridge_c"] = strconv.FormatFloat(c, 'g', -1, 64)
		fmt.Fprintf(e.stderr, "KRR: α = (K + %gI)⁻¹y in %.2fs\n", c, time.Since(t1).Seconds())
	case f.solver == "exact":
		lambda := f.lambda
		if obj == svm.Mean {
			lambda *= float64(n) // the mean objective is the sum objective with nλ, divided by n
		}
		r, err := svm.SolveDual(ctx, k, train.y, svm.DualConfig{Loss: loss, Lambda: lambda, Bias: f.bias, Tol: f.gap})
		if err != nil {
			return err
		}
		el := time.Since(t1).Seconds()
		model.Alpha, model.Bias, model.HasBias = r.Machine.Alpha, r.Machine.Bias, f.bias
		outputs = r.Outputs
		fmt.Fprintf(e.stderr, "exact %s (C = %g): %v, %.2fs\n", f.machine, 1/lambda, r, el)
		if !r.Converged {
			fmt.Fprintf(e.stderr, "warning: relative duality gap %.3g above --gap %g\n", r.RelGap, f.gap)
		}
		for key, v := range map[string]float64{"primal": r.Primal, "dual": r.DualObj, "rel_gap": r.RelGap,
			"objective": r.Objective, "solve_seconds": el, "C": 1 / lambda} {
			model.Params[key] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		model.Params["iterations"] = strconv.Itoa(r.Iterations)
		model.Params["support_vectors"] = strconv.Itoa(r.SupportVectors)
	default:
		if outputs, err = svmSubgradient(ctx, e, f, loss, obj, k, testK, train, test, model); err != nil {
			return err
		}
	}
	svmReport(e.stdout, "train", loss, outputs, train.y)
	if test != nil {
		pred := make([]float64, test.x.Rows)
		if err := model.KernelMachine().Predict(pred, testK); err != nil {
			return err
		}
		svmReport(e.stdout, "test", loss, pred, test.y)
	}
	model.Train = svm.TrainRef{Source: train.source, N: n, D: train.x.Cols, SHA256: svm.InputsSHA256(train.x), Embedded: f.embed}
	if f.embed {
		model.X = train.x
	}
	if err := svmWriteAtomic(f.out, func(w io.Writer) error { return svm.WriteModel(w, model) }); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s\n", f.out)
	return nil
}

// svmReport prints the mean loss and, for classification, the accuracy.
func svmReport(w io.Writer, what string, loss svm.Loss, out, y []float64) {
	if loss.Classification() {
		fmt.Fprintf(w, "%s: accuracy %.4f%%, mean %s loss %.6g (%d points)\n", what, 100*svm.Accuracy(out, y), loss.Name(), svm.MeanLoss(loss, out, y), len(y))
		return
	}
	fmt.Fprintf(w, "%s: mean %s loss %.6g, sign accuracy %.4f%% (%d points)\n", what, loss.Name(), svm.MeanLoss(loss, out, y), 100*svm.Accuracy(out, y), len(y))
}

func svmSubgradient(ctx context.Context, e *env, f *svmTrainFlags, loss svm.Loss, obj svm.Objective, k, testK svm.KernelMatrix,
	train, test *svmDataset, model *svm.Model) ([]float64, error) {
	n := train.x.Rows
	decay, err := svm.ParseDecay(f.decay)
	if err != nil {
		return nil, usageError("--decay: %v", err)
	}
	switch {
	case f.batch < 0:
		return nil, usageError("--batch %d: want ≥ 0", f.batch)
	case f.steps < 0 || f.epochs < 1:
		return nil, usageError("--steps %d --epochs %d: want steps ≥ 0 and epochs ≥ 1", f.steps, f.epochs)
	case f.logCount < 0:
		return nil, usageError("--log-count %d: want ≥ 0", f.logCount)
	case f.pegasos && f.lambda == 0:
		return nil, usageError("--pegasos needs --lambda > 0")
	case !f.pegasos && (!(f.lr > 0) || math.IsInf(f.lr, 0)):
		return nil, usageError("--lr %v: want a finite η > 0", f.lr)
	}
	steps := f.steps
	if steps == 0 {
		perEpoch := 1
		if f.batch > 0 && f.batch < n {
			perEpoch = (n + f.batch - 1) / f.batch
		}
		steps = f.epochs * perEpoch
	}
	cfg := svm.Config{Loss: loss, Lambda: f.lambda, Objective: obj, LR: f.lr, Pegasos: f.pegasos, Batch: f.batch,
		Decay: decay, Steps: steps, Seed: f.seed, Tol: f.tol, LogAt: svm.LogSteps(steps, f.logCount)}
	if testK != nil {
		cfg.Test = &svm.EvalSet{K: testK, Y: test.y}
	}
	if cfg.TrackTrain, err = svmIndices("--track-train", f.track); err != nil {
		return nil, err
	}
	if cfg.TrackTest, err = svmIndices("--track-test", f.trackTest); err != nil {
		return nil, err
	}
	var csv strings.Builder
	csv.WriteString("step,t,epoch,objective,train_loss,train_acc,test_loss,test_acc")
	for _, i := range cfg.TrackTrain {
		fmt.Fprintf(&csv, ",train_out_%d", i)
	}
	for _, i := range cfg.TrackTest {
		fmt.Fprintf(&csv, ",test_out_%d", i)
	}
	csv.WriteString("\n")
	t0 := time.Now()
	cfg.Log = func(p *svm.Progress) error {
		fmt.Fprintf(&csv, "%d,%g,%d,%g,%g,%g,%g,%g", p.Step, p.T, p.Epoch, p.Objective, p.TrainLoss, p.TrainAcc, p.TestLoss, p.TestAcc)
		for _, v := range append(p.TrainOut, p.TestOut...) {
			fmt.Fprintf(&csv, ",%g", v)
		}
		csv.WriteString("\n")
		line := fmt.Sprintf("step %d/%d t=%g objective %.6g train loss %.5g acc %.4f", p.Step, steps, p.T, p.Objective, p.TrainLoss, p.TrainAcc)
		if testK != nil {
			line += fmt.Sprintf(" test loss %.5g acc %.4f", p.TestLoss, p.TestAcc)
		}
		if e.isTerminal {
			fmt.Fprintf(e.stderr, "\r%s (%.0fs)\x1b[K", line, time.Since(t0).Seconds())
		} else {
			fmt.Fprintln(e.stderr, line)
		}
		return nil
	}
	res, err := svm.Train(ctx, k, train.y, cfg)
	if e.isTerminal {
		fmt.Fprintln(e.stderr)
	}
	if err != nil {
		return nil, err
	}
	el := time.Since(t0).Seconds()
	fmt.Fprintf(e.stderr, "subgradient: %d steps in %.2fs, objective %.8g (converged early: %v)\n", res.Steps, el, res.Objective, res.Converged)
	if f.logFile != "" {
		if err := svmWriteAtomic(f.logFile, func(w io.Writer) error { _, err := io.WriteString(w, csv.String()); return err }); err != nil {
			return nil, err
		}
	}
	model.Alpha = res.Machine.Alpha
	for key, v := range map[string]string{"batch": strconv.Itoa(f.batch), "lr": strconv.FormatFloat(f.lr, 'g', -1, 64),
		"steps": strconv.Itoa(res.Steps), "decay": decay.String(), "seed": strconv.FormatUint(f.seed, 10),
		"pegasos": strconv.FormatBool(f.pegasos), "objective_value": strconv.FormatFloat(res.Objective, 'g', -1, 64)} {
		model.Params[key] = v
	}
	return res.Outputs, nil
}

// svmIndices parses a comma-separated list of indices ("" is none).
func svmIndices(flagName, s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || i < 0 {
			return nil, usageError("%s: %q is not an index ≥ 0", flagName, f)
		}
		out = append(out, i)
	}
	return out, nil
}

func runExportLIBSVM(ctx context.Context, e *env, args []string) error {
	var d svmDataFlags
	var kf svmKernelFlags
	fs := newFlagSet(e, "export-libsvm", "--data D --out FILE [--sparse] [--kernel ntk --depth L --precision float64|float32]")
	d.add(fs, "", "data to export")
	kf.add(fs)
	out := fs.String("out", "", "output file (required); written atomically")
	sparse := fs.Bool("sparse", false, "write the data itself in LIBSVM's sparse format instead of its Gram")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usageError("--out is required")
	}
	p, kind, err := kf.check()
	if err != nil {
		return err
	}
	ds, err := svmLoadData(e, d.data, d, 0)
	if err != nil {
		return err
	}
	y := ds.y
	if y == nil {
		y = make([]float64, ds.x.Rows) // libsvm needs a label column; 0 marks "unknown"
	}
	t0 := time.Now()
	if *sparse {
		err = svmWriteAtomic(*out, func(w io.Writer) error { return svm.WriteLIBSVM(w, y, ds.x) })
	} else if kf.precision == "float32" {
		err = svmExportGram[float32](ctx, e, *out, ds, y, p, kind)
	} else {
		err = svmExportGram[float64](ctx, e, *out, ds, y, p, kind)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s (%d points) in %.1fs\n", *out, ds.x.Rows, time.Since(t0).Seconds())
	return nil
}

func svmExportGram[T linalg.Float](ctx context.Context, e *env, out string, ds *svmDataset, y []float64, p ntk.Params, kind ntk.Kind) error {
	k, err := svmKernel[T](ctx, e, "Gram", nil, &ds.x, p, kind)
	if err != nil {
		return err
	}
	return svmWriteAtomic(out, func(w io.Writer) error {
		err := svm.WritePrecomputed(w, y, k)
		if err == nil {
			err = ctx.Err()
		}
		return err
	})
}
