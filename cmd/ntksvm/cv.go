package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ntksvm/ntksvm/internal/atomicfile"
	"github.com/ntksvm/ntksvm/internal/testhold"
	"github.com/ntksvm/ntksvm/svm/classify"
	data "github.com/ntksvm/ntksvm/svm/dataset"
)

const cvUsage = "--data FILE [--test FILE] [--out model] [grid and data flags]\n" +
	"       ntksvm cv --data FILE --task i/N --out DIR [grid and data flags]   (one array task)\n" +
	"       ntksvm cv --data FILE --collect DIR [--test FILE] [--out model] [grid and data flags]"

func runCV(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "cv", cvUsage)
	var df dataFlags
	var gf gridFlags
	df.add(fs, e, "training data")
	df.addTest(fs, "test data: report its accuracy after the refit (a regression: RMSE, MAE, R²)")
	gf.add(fs)
	out := fs.String("out", "", "write the refitted model here")
	mf := addMachineFlags(fs)
	var tk cvTaskFlags
	tk.add(fs)
	var sf scaleFlags
	sf.add(fs)
	var ck checkpointFlags
	ck.add(fs)
	eps := fs.String("epsilon", "0.01,0.1,0.5", "regression with svr: ε to try, in units of the target's standard deviation")
	prob := fs.Bool("probability", false, "also fit libsvm's probability model at the chosen point: Platt's sigmoid for each binary machine on 5-fold cross-validated decision values, "+
		"coupled over the classes (one-vs-one: Wu, Lin and Weng's pairwise coupling; one-vs-rest: normalised); stored in the model for predict --probability")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	task := tk.kind()
	reg := &regressCVFlags{fs: fs, df: &df, gf: &gf, mf: mf, eps: eps, to: *out}
	if task == taskRegression || task == "" && mf.machine == "svr" {
		return runRegressCV(ctx, e, reg, map[bool]string{true: "--task regression", false: "--machine svr"}[task != ""], nil, nil)
	}
	o, err := mf.options(&gf)
	if err != nil {
		return err
	}
	o.Probability = *prob
	o.Warn = func(w string) { fmt.Fprintln(e.stderr, "warning:", w) }
	if err := df.check("--data", df.data); err != nil {
		return err
	}
	if err := ck.load(tk.on()); err != nil {
		return err
	}
	if tk.on() {
		return runCVTasks(ctx, e, &df, &tk, o, *out)
	}
	if err := checkOutputs(append(outPath("--out", *out), outPath("--checkpoint", ck.path)...), df.inputs()...); err != nil {
		return err
	}
	train, test, err := df.openClasses(e)
	if err != nil {
		return err
	}
	if task == "" {
		if yes, why := detectRegression(e, train); yes {
			return runRegressCV(ctx, e, reg, why, train, test)
		}
	}
	sf.resumeBudget = ck.budget()
	if err := sf.apply(e, &o, train, test); err != nil {
		return err
	}
	ck.wire(e, &o, sf.route)
	return fitCV(ctx, e, o, &sf, &ck, train, test, df.test, *out)
}

// fitCV fits the classifier of o on train, reports it (and its accuracy
// on test) and writes it to out; a fit at scale that stops keeps its
// checkpoint, a finished one removes it.
func fitCV(ctx context.Context, e *env, o classify.Options, sf *scaleFlags, ck *checkpointFlags, train, test *data.Dataset, testPath, out string) error {
	if err := o.CheckClassWeights(train.Classes); err != nil {
		return usageError("--class-weight: %s", strings.TrimPrefix(err.Error(), "classify: "))
	}
	c := classify.New(o)
	fmt.Fprintln(e.stderr, sf.intro(o, train))
	err := c.FitDataset(testhold.Context(ctx, "cv"), train)
	sf.done()
	if err != nil {
		return ck.stopped(e, sf.explain(err))
	}
	fmt.Fprint(e.stderr, sf.summary())
	printCV(e.stdout, c)
	if test != nil {
		if err := reportClasses(ctx, e.stdout, c, test, testPath); err != nil {
			return ck.stopped(e, err)
		}
	}
	if out != "" {
		if err := saveClassifier(e, c, out); err != nil {
			return ck.stopped(e, err)
		}
	}
	ck.done(e)
	return nil
}

// machineFlags choose the machine and how cross-validation runs.
type machineFlags struct {
	machine, scheme, sel string
	folds, threads       int
	repeats              int
	seed                 uint64
	float32, raw, unit   bool
}

func addMachineFlags(fs *flag.FlagSet) *machineFlags {
	m := &machineFlags{}
	fs.StringVar(&m.machine, "machine", "svm", "binary machine: svm (C-SVC), svm2 (squared hinge) or krr (multi-output ridge); a regression: svr (ε-SVR, its default) or krr")
	fs.StringVar(&m.scheme, "multiclass", "ovo", "multi-class scheme for svm and svm2: ovo (one-vs-one voting) or ovr (one-vs-rest)")
	fs.IntVar(&m.folds, "folds", classify.DefaultFolds, "folds of stratified cross-validation (≥ 2)")
	fs.StringVar(&m.sel, "select", "1se", "rule: 1se (simplest within one standard error of the best) or best")
	fs.Uint64Var(&m.seed, "seed", 0, "seed of the fold assignment")
	fs.IntVar(&m.repeats, "repeats", 1, "repeat the cross-validation with new folds (seed, seed+1, …) and pool the scores")
	fs.IntVar(&m.threads, "threads", 0, "goroutines (0: all cores); results do not depend on it")
	fs.BoolVar(&m.float32, "float32", false, "store the Gram matrices as float32 (half the memory)")
	fs.BoolVar(&m.raw, "no-standardize", false, "use the features as they are (default: standardise with the training data's mean and deviation)")
	fs.BoolVar(&m.unit, "unit-norm", false, "then scale every example to the Euclidean norm √d (d features): with σ_b = 0 the kernel sees only the angles between examples (stored in the model)")
	return m
}

func (m *machineFlags) options(gf *gridFlags) (classify.Options, error) {
	o, err := cvOptions(gf, m.machine, m.scheme, m.sel, m.folds, m.threads)
	o.Seed, o.Float32, o.MaxBytes, o.NoStandardize, o.UnitNorm = m.seed, m.float32, memoryBudget(), m.raw, m.unit
	if err == nil && (m.repeats < 1 || m.repeats > 100) {
		return o, usageError("--repeats %d: want 1…100", m.repeats)
	}
	o.Repeats = m.repeats
	return o, err
}

// cvOptions turns the flags into classify.Options.
func cvOptions(gf *gridFlags, machine, scheme, sel string, folds, threads int) (classify.Options, error) {
	var o classify.Options
	var err error
	if o.Grid, err = gf.grid(); err != nil {
		return o, err
	}
	if o.Machine, err = classify.ParseMachine(machine); err != nil {
		return o, usageError("--machine: %v", err)
	}
	if o.Scheme, err = classify.ParseScheme(scheme); err != nil {
		return o, usageError("--multiclass: %v", err)
	}
	if o.Select, err = classify.ParseSelection(sel); err != nil {
		return o, usageError("--select: %v", err)
	}
	if folds < 2 || folds > 1000 {
		return o, usageError("--folds %d: want 2…1000", folds)
	}
	if threads < 0 || threads > 4096 {
		return o, usageError("--threads %d: want 0 (all cores) … 4096", threads)
	}
	o.Folds, o.Threads = folds, threads
	return o, nil
}

// printCV prints the grid table and the chosen point.
func printCV(w io.Writer, c *classify.Classifier) {
	if c.CV != nil {
		weighted := false
		for _, s := range c.CV.Scores {
			weighted = weighted || s.ClassWeight != classify.NoClassWeight
		}
		cw := ""
		if weighted {
			cw = fmt.Sprintf(" %-12s", "class weight")
		}
		fmt.Fprintf(w, "%-6s %5s %5s %7s%s %10s  %s\n", "kernel", "depth", "fixed", "σ_b", cw, "C", "CV accuracy (mean ± std over folds)")
		for i, s := range c.CV.Scores {
			mark := ""
			if i == c.CV.Chosen {
				mark = "  ← chosen (" + c.CV.Rule + ")"
			}
			cw := ""
			if weighted {
				cw = fmt.Sprintf(" %-12s", s.ClassWeight)
			}
			fmt.Fprintf(w, "%-6s %5d %5d %7g%s %10g  %6.2f%% ± %5.2f%s\n", s.KindName, s.Depth, s.Fixed, s.BiasStd, cw, s.C, 100*s.Mean, 100*s.Std, mark)
		}
	}
	weights := ""
	if c.ClassWeight != classify.NoClassWeight {
		weights = ", class weight " + c.ClassWeight.String()
	}
	fmt.Fprintf(w, "model: %s, C = %g%s, %d support vectors, fitted in %v\n", c.Kernel, c.C, weights, c.SupportVectors(), c.FitTime.Round(time.Millisecond))
	if m, err := c.Model(); err == nil && m.Probability != nil {
		fmt.Fprintf(w, "probability model: Platt's sigmoids on %d-fold cross-validated decision values, %s\n", m.Probability.Folds,
			map[string]string{"pairwise": "pairwise coupling (Wu, Lin and Weng)", "normalize": "normalised over the classes"}[m.Probability.Coupling])
	}
}

// saveClassifier writes the model atomically.
func saveClassifier(e *env, c *classify.Classifier, path string) error {
	if err := atomicfile.WriteFileContext(e.ctx, path, false, c.Save); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s\n", path)
	return nil
}
