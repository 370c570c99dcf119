package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
	"github.com/ntksvm/ntksvm/internal/outpath"
	"github.com/ntksvm/ntksvm/internal/testhold"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/dataset"
)

// "ntksvm predict" applies a model written by "ntksvm train" to new data.

func runPredict(ctx context.Context, e *env, args []string) error {
	var d dataFlags
	var cls classFlags
	fs := newFlagSet(e, "predict", "--model M --data D [--out pred.npy]")
	d.add(fs, e, "data to predict")
	cls.add(fs)
	modelPath := fs.String("model", "", "model file written by ntksvm train or ntksvm cv (required)")
	out := fs.String("out", "", "write the outputs g(x) as a float64 .npy vector (multi-class models: a CSV with the header row,class or, with --probability, row,<class names…>; regression models of cv: a CSV of row,value)")
	var po predictOpts
	fs.BoolVar(&po.decision, "decision", false, "multi-class models: add each binary machine's decision value to --out (columns \"a vs b\", or \"a vs rest\")")
	fs.BoolVar(&po.probability, "probability", false, "multi-class models fitted with cv --probability: write the probability of every class (columns row,<class names…>) "+
		"and predict the class of the largest probability; without it the class is chosen by the votes of the one-vs-one machines "+
		"(one-vs-rest and krr: the largest decision value), which may differ near a boundary")
	fs.BoolVar(&po.json, "json", false, "print the predictions as one JSON object instead of the report (multi-class models: classes, rule, predictions with their class, and accuracy and log-loss with labels; others: row, value and label)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *modelPath == "" {
		return usageError("--model is required")
	}
	if err := d.check("--data", d.data); err != nil {
		return err
	}
	if err := checkOutputs(outPath("--out", *out), append(inputs("--data", d.data), outpath.Path{Flag: "--model", Path: *modelPath})...); err != nil {
		return err
	}
	if m, ok, err := isClassModel(*modelPath); err != nil {
		return err
	} else if ok {
		return predictClasses(ctx, e, m, &d, *out, po)
	} else if po.probability {
		return usageError("--probability: %s is not a classifier of ntksvm cv; only those have a probability model (cv --probability)", *modelPath)
	} else if m.Task == svm.TaskRegression {
		return predictValues(ctx, e, m, &d, *out, po.json)
	}
	return predictBinary(ctx, e, d, cls, *modelPath, *out, po.json)
}

// predictBinary runs "ntksvm predict" for a model of one machine (one
// output per point) on the data of d, writing the outputs to out if it is
// not empty.
func predictBinary(ctx context.Context, e *env, d dataFlags, cls classFlags, modelPath, out string, asJSON bool) error {
	m, loss, err := readModel(modelPath)
	if err != nil {
		return err
	}
	x, err := trainingInputs(e, m, d)
	if err != nil {
		return err
	}
	ds, err := openForModel(e, d, cls, m, loss)
	if err != nil {
		return err
	}
	t0 := time.Now()
	pred := make([]float64, ds.X.Rows)
	o, done := kernelProgress(e, "kernel rows", ds.X.Rows)
	err = svm.PredictKernel(testhold.Context(ctx, "predict"), m.KernelMachine(), pred, m.Kernel, ds.X, x, o, predictMemory)
	done()
	if err == nil {
		err = checkFinite(ds.Name, pred)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "predicted %d points in %.2fs\n", len(pred), time.Since(t0).Seconds())
	if asJSON {
		if err := writeValuesJSON(e.stdout, nil, pred, ds.Y); err != nil {
			return err
		}
		return reportPredictions(e, ds, loss, pred, out, io.Discard)
	}
	return reportPredictions(e, ds, loss, pred, out, e.stdout)
}

// openForModel reads --data for the binary model m: its labels as the
// machine reads them (the class flags' task, or numbers for regression),
// checked, and its features as many as the model's.
func openForModel(e *env, d dataFlags, cls classFlags, m *svm.Model, loss svm.Loss) (*points, error) {
	s, err := d.open(e, "--data", d.data, m.Train.D)
	if err != nil {
		return nil, err
	}
	if s.D() != m.Train.D {
		return nil, fmt.Errorf("%s has %d features, the model was trained on %d", s.Name, s.D(), m.Train.D)
	}
	if err := cls.checkNamed(s, "the model"); err != nil {
		return nil, err
	}
	ds, _, err := cls.forMachine(!loss.Classification(), s, nil)
	if err != nil {
		return nil, err
	}
	if ds.Y != nil {
		machine, _ := svm.ParseMachine(m.Machine)
		if err := svm.CheckLabels(machine, ds.Y); err != nil {
			return nil, fmt.Errorf("--data %s: %s (machine %s)", ds.Name, strings.TrimPrefix(err.Error(), svm.ErrInput.Error()+": "), machine)
		}
	}
	return ds, nil
}

// reportPredictions prints the loss and accuracy (with labels) to w and
// writes the outputs to out if it is not empty.
func reportPredictions(e *env, ds *points, loss svm.Loss, pred []float64, out string, w io.Writer) error {
	if ds.Y != nil {
		printReport(w, ds.Name, loss, pred, ds.Y)
	} else {
		fmt.Fprintf(w, "%s: %d predictions (no labels)\n", ds.Name, len(pred))
	}
	if out == "" {
		return nil
	}
	if err := output.WriteFileContext(e.ctx, out, false, func(w io.Writer) error { return npy.WriteVectorTo(w, pred) }); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s\n", out)
	return nil
}

// readModel reads a model file and the loss it names.
func readModel(path string) (m *svm.Model, loss svm.Loss, err error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, loss, err
	}
	defer fh.Close()
	if m, err = svm.ReadModel(fh); err != nil {
		return nil, loss, fmt.Errorf("%s: %w", path, err)
	}
	machine, err := svm.ParseMachine(m.Machine)
	if err != nil {
		return nil, loss, fmt.Errorf("%s: %w", path, err)
	}
	return m, machine.Loss(m.Epsilon), nil
}

// trainingInputs returns the model's training inputs: embedded, or
// reloaded from the recorded source and checked against the recorded
// SHA-256.
func trainingInputs(e *env, m *svm.Model, d dataFlags) (linalg.Matrix[float64], error) {
	if m.Train.Embedded {
		return m.X, nil
	}
	tf := dataFlags{mnistDir: d.mnistDir, allowNonCanonical: d.allowNonCanonical, first: m.Train.First, standardize: m.Train.Standardize}
	src := m.Train.Source
	o, err := tf.options(e, m.Train.D)
	if err != nil {
		return linalg.Matrix[float64]{}, err
	}
	ds, err := dataset.Open(src, o)
	if err != nil {
		return linalg.Matrix[float64]{}, fmt.Errorf("reloading the training inputs %s: %w", src, err)
	}
	if ds.X.Rows != m.Train.N || ds.X.Cols != m.Train.D || svm.InputsSHA256(ds.X) != m.Train.SHA256 {
		return linalg.Matrix[float64]{}, fmt.Errorf("training inputs %s (%d×%d) are not those the model was trained on (%d×%d, sha256 %.12s…)",
			src, ds.X.Rows, ds.X.Cols, m.Train.N, m.Train.D, m.Train.SHA256)
	}
	return ds.X, nil
}

// predictMemory bounds the cross kernel "ntksvm predict" holds at once:
// larger ones are computed in blocks of rows.
const predictMemory = 256 << 20
