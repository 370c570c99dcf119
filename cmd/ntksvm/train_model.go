package main

import (
	"context"
	"fmt"
	"io"

	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/svm"
)

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
			err = f.predictTest(ctx, e, model, pred, train.X)
		}
		if err != nil {
			return err
		}
		printReport(e.stdout, "test", loss, pred, f.testSet.Y)
	}
	// A model that holds the training data (--embed) is its owner's only.
	if err := output.WriteFileContext(ctx, f.out, f.embed, func(w io.Writer) error { return svm.WriteModel(w, model) }); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s\n", f.out)
	return nil
}

// reloadInputs returns the training inputs ref names, reloaded from their
// source and checked against its SHA-256 as "ntksvm predict" reloads them
// (an error if the source changed during the fit).
func (f *trainFlags) reloadInputs(e *env, ref svm.TrainRef) (linalg.Matrix[float64], error) {
	if f.keptX.Data != nil {
		return f.keptX, nil
	}
	m := &svm.Model{Train: ref}
	m.Train.Embedded = false
	return trainingInputs(e, m, f.data)
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
		Kernel: f.kernel, Fit: res.Info, Alpha: res.Machine.Alpha}
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
