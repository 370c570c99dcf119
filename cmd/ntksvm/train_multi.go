package main

import (
	"context"
	"fmt"

	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/classify"
	"github.com/ntksvm/ntksvm/svm/dataset"
)

// isMulti reports whether train fits a multi-class machine on train: data
// of more than two classes (two with --probability: libsvm's machine with
// a bias and its probability model) without --positive or --classes, for
// the machines that classify (svm, svm2; krr when the labels are not
// numbers, which it would otherwise fit as regression targets).
func (f *trainFlags) isMulti(train *dataset.Dataset) bool {
	if f.cls.on() || len(train.Classes) < 2 || len(train.Classes) == 2 && !f.prob {
		return false
	}
	switch f.cfg.Machine {
	case svm.MachineSVM, svm.MachineSVM2:
		return true
	case svm.MachineKRR:
		_, err := train.Targets()
		return err != nil
	}
	return false
}

// multiOptions returns the classifier of the flags: one grid point, the
// kernel of the kernel flags and C = 1/λ (1/(λn) for the mean objective),
// which makes svm/classify's ½‖β‖² + C Σ l the objective λ/2‖β‖² + Σ l of
// the binary machines, on the inputs as given.
func (f *trainFlags) multiOptions(n int) (classify.Options, error) {
	var o classify.Options
	switch {
	case f.cfg.Solver != svm.SolverExact:
		return o, usageError("--solver %s: data of more than two classes is fitted by the exact solvers; give --positive or --classes for a binary task", f.cfg.Solver)
	case f.kernel.Fixed != 0 && f.kernel.Fixed != f.kernel.Depth:
		return o, usageError("--fixed %d: data of more than two classes takes the NTK or the NNGP (\"ntksvm cv --kernel fixed\" fits the others)", f.kernel.Fixed)
	}
	m, err := classify.ParseMachine(f.cfg.Machine.String())
	if err != nil {
		return o, usageError("--machine %s: data of more than two classes takes svm, svm2 or krr; give --positive or --classes for a binary task", f.cfg.Machine)
	}
	if o.Scheme, err = classify.ParseScheme(f.multiclass); err != nil {
		return o, usageError("--multiclass: %v", err)
	}
	kind := f.kernel.Kind
	if f.kernel.Fixed != 0 {
		kind = ntk.KindNNGP // every weight layer below the last fixed
	}
	c := 1 / f.cfg.Lambda
	if f.cfg.Objective == svm.ObjectiveMean {
		c /= float64(n)
	}
	o.Machine, o.NoStandardize, o.Float32, o.WeightStd, o.MaxBytes = m, true, f.kernel.Float32, f.kernel.WeightStd, memoryBudget()
	o.Probability = f.prob
	o.Grid = classify.Grid{Kinds: []ntk.Kind{kind}, Depths: []int{f.kernel.Depth}, BiasStds: []float64{f.kernel.BiasStd}, Cs: []float64{c}}
	return o, nil
}

// trainMulti fits, reports and writes the multi-class machine of the
// flags; "ntksvm predict" applies its model.
func trainMulti(ctx context.Context, e *env, f *trainFlags) error {
	train, test := f.multiData, f.multiTest
	o, err := f.multiOptions(train.N())
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "data: %s, %d points × %d features, %d classes: %s %s machines\n",
		train.Name, train.N(), train.D(), len(train.Classes), f.multiclass, f.cfg.Machine)
	c := classify.New(o)
	if err := c.FitDataset(ctx, train); err != nil {
		return err
	}
	printCV(e.stdout, c)
	if err := reportClasses(ctx, e.stdout, c, train, "train"); err != nil {
		return err
	}
	if test != nil {
		if err := reportClasses(ctx, e.stdout, c, test, "test"); err != nil {
			return err
		}
	}
	return saveClassifier(e, c, f.out)
}
