package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ntksvm/ntksvm/internal/atomicfile"
	"github.com/ntksvm/ntksvm/svm/classify"
	data "github.com/ntksvm/ntksvm/svm/dataset"
	"github.com/ntksvm/ntksvm/svm/regress"
)

// "ntksvm cv" on a numeric label column is a regression (svm/regress):
// asked for by --task regression or --machine svr, or detected when every
// label is a number and there are more than regress.MinDistinct distinct
// ones. predict writes the values of a regression model.

// The kinds of problem --task names (its other values are array tasks).
const (
	taskRegression     = "regression"
	taskClassification = "classification"
)

// kind returns the kind of problem --task names, or "" when it names an
// array task or is not given (then it is left for on and runCVTasks).
func (t *cvTaskFlags) kind() string {
	switch t.task {
	case taskRegression, taskClassification:
		k := t.task
		t.task = ""
		return k
	}
	return ""
}

// regressionOnly are the flags of "ntksvm cv" a regression reads; the
// others belong to the classifier.
var regressionOnly = map[string]bool{
	"data": true, "test": true, "out": true, "task": true, "machine": true, "epsilon": true,
	"kernel": true, "depth": true, "sigma-b": true, "C": true,
	"folds": true, "select": true, "seed": true, "repeats": true, "threads": true, "no-standardize": true, "unit-norm": true,
	"label": true, "delimiter": true, "header": true, "missing": true, "first": true, "mnist-dir": true,
}

// regressCVFlags are what a regression needs from the flags of "ntksvm cv".
type regressCVFlags struct {
	fs  *flag.FlagSet
	df  *dataFlags
	gf  *gridFlags
	mf  *machineFlags
	eps *string
	to  string
}

// options turns the flags into regress.Options, refusing the flags of the
// classifier and a classifying machine.
func (r *regressCVFlags) options() (regress.Options, error) {
	var o regress.Options
	var bad []string
	machineSet, cSet := false, false
	r.fs.Visit(func(f *flag.Flag) {
		machineSet = machineSet || f.Name == "machine"
		cSet = cSet || f.Name == "C"
		if !regressionOnly[f.Name] {
			bad = append(bad, "--"+f.Name)
		}
	})
	if len(bad) > 0 {
		return o, usageError("%s: not for a regression (flags of the classifier; --task classification classifies)", strings.Join(bad, ", "))
	}
	m := r.mf
	var err error
	if !machineSet {
		m.machine = "svr"
	}
	if o.Machine, err = regress.ParseMachine(m.machine); err != nil {
		return o, usageError("--machine %s: a regression fits svr (ε-SVR) or krr; --task classification classifies", m.machine)
	}
	c, err := cvOptions(r.gf, "svm", "ovo", m.sel, m.folds, m.threads)
	if err != nil {
		return o, err
	}
	o.Grid.Grid, o.Select, o.Folds, o.Threads = c.Grid, c.Select, c.Folds, c.Threads
	if !cSet {
		o.Grid.Cs = regress.DefaultCs()
	}
	if o.Grid.Epsilons, err = classify.ParseValues(*r.eps, true); err != nil {
		return o, usageError("--epsilon: %v", err)
	}
	if m.repeats < 1 || m.repeats > 100 {
		return o, usageError("--repeats %d: want 1…100", m.repeats)
	}
	o.Seed, o.Repeats, o.NoStandardize, o.UnitNorm, o.MaxBytes = m.seed, m.repeats, m.raw, m.unit, memoryBudget()
	return o, nil
}

// runRegressCV is "ntksvm cv" for a regression; why says how the task was
// decided, train and test are the data when already read.
func runRegressCV(ctx context.Context, e *env, r *regressCVFlags, why string, train, test *data.Dataset) error {
	o, err := r.options()
	if err != nil {
		return err
	}
	if err := r.df.check("--data", r.df.data); err != nil {
		return err
	}
	if train == nil {
		if err := checkOutputs(outPath("--out", r.to), r.df.inputs()...); err != nil {
			return err
		}
		if train, test, err = r.df.openClasses(e); err != nil {
			return badData(err)
		}
	}
	y, err := train.Targets()
	if err != nil {
		return dataError{err}
	}
	fmt.Fprintf(e.stdout, "task: regression (%s)\n", why)
	reg := regress.New(o)
	if err := reg.Fit(ctx, train.X, y); err != nil {
		return err
	}
	printRegressCV(e.stdout, reg)
	if test != nil {
		yt, err := test.Targets()
		if err != nil {
			return dataError{fmt.Errorf("--test: %w", err)}
		}
		met, err := reg.Score(ctx, test.X, yt)
		if err != nil {
			return err
		}
		printMetrics(e.stdout, r.df.test, met)
	}
	if r.to == "" {
		return nil
	}
	if err := atomicfile.WriteFileContext(e.ctx, r.to, false, reg.Save); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s\n", r.to)
	return nil
}

// badData makes an error of the readers about the data (a NaN label is a
// missing value to them) exit 2 in a regression, as a label that is not a
// finite number does.
func badData(err error) error {
	if errors.Is(err, data.ErrData) {
		return dataError{err}
	}
	return err
}

// detectRegression says whether the training labels of "ntksvm cv"
// without --task look like a regression target, and why: a classification
// on numeric labels says so on stderr, with the flag that turns it.
func detectRegression(e *env, train *data.Dataset) (bool, string) {
	reg, distinct := regress.Detect(train)
	if reg {
		return true, fmt.Sprintf("detected: the label column holds %d distinct numbers, more than %d; --task classification to classify",
			distinct, regress.MinDistinct)
	}
	if _, err := train.Targets(); err == nil {
		fmt.Fprintf(e.stderr, "task: classification (the label column holds %d distinct numbers, at most %d: taken for classes; --task regression to regress)\n",
			distinct, regress.MinDistinct)
	}
	return false, ""
}

// printRegressCV prints the grid table and the chosen point.
func printRegressCV(w io.Writer, r *regress.Regressor) {
	if cv := r.CV; cv != nil {
		fmt.Fprintf(w, "%-6s %5s %5s %7s %7s %10s  %s\n", "kernel", "depth", "fixed", "σ_b", "ε", "C", "CV RMSE (MSE mean ± std over folds)")
		for i, s := range cv.Scores {
			mark := ""
			if i == cv.Chosen {
				mark = "  ← chosen (" + cv.Rule + ")"
			}
			fmt.Fprintf(w, "%-6s %5d %5d %7g %7g %10g  %10.5g (%.5g ± %.3g)%s\n", s.KindName, s.Depth, s.Fixed, s.BiasStd, s.Epsilon, s.C, s.RMSE, s.Mean, s.Std, mark)
		}
	}
	eps := ""
	if r.Machine == regress.SVR {
		eps = fmt.Sprintf(", ε = %g (× the target's standard deviation %.5g)", r.Epsilon, r.Target.Scale)
	}
	fmt.Fprintf(w, "model: %s, %s, C = %g%s, %d support vectors, fitted in %v\n", r.Machine, r.Kernel, r.C, eps, r.SupportVectors(), r.FitTime.Round(time.Millisecond))
}

// printMetrics prints the test metrics of a regression.
func printMetrics(w io.Writer, name string, m regress.Metrics) {
	fmt.Fprintf(w, "%s: RMSE %.5g, MAE %.5g, R² %.4f (%d examples)\n", name, m.RMSE, m.MAE, m.R2, m.N)
}
