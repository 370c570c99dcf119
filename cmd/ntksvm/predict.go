package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
)

// "ntksvm predict" applies a model written by "ntksvm train" to new data.

func init() {
	register(&command{
		name:    "predict",
		summary: "apply a trained kernel machine to data; print accuracy and loss when labels are known",
		run:     runPredict,
	})
}

func runPredict(ctx context.Context, e *env, args []string) error {
	var d svmDataFlags
	fs := newFlagSet(e, "predict", "--model M --data D [--out pred.npy]")
	d.add(fs, "", "data to predict")
	modelPath := fs.String("model", "", "model file written by ntksvm train (required)")
	out := fs.String("out", "", "write the outputs g(x) as a float64 .npy vector")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *modelPath == "" {
		return usageError("--model is required")
	}
	fh, err := os.Open(*modelPath)
	if err != nil {
		return err
	}
	m, err := svm.ReadModel(fh)
	fh.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", *modelPath, err)
	}
	loss, err := svm.ParseLoss(m.Loss)
	if err != nil {
		return fmt.Errorf("%s: %w", *modelPath, err)
	}
	loss.Epsilon = m.Epsilon
	kind, err := ntk.ParseKind(m.Kernel.Name)
	if err != nil {
		return fmt.Errorf("%s: %w", *modelPath, err)
	}
	p := ntk.Params{Depth: m.Kernel.Depth, WeightStd: m.Kernel.SigmaW, BiasStd: m.Kernel.SigmaB}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("%s: %w", *modelPath, err)
	}
	x, err := svmTrainingInputs(e, m, d)
	if err != nil {
		return err
	}
	ds, err := svmLoadData(e, d.data, d, m.Train.D)
	if err != nil {
		return err
	}
	if ds.x.Cols != m.Train.D {
		return fmt.Errorf("%s has %d features, the model was trained on %d", ds.name, ds.x.Cols, m.Train.D)
	}
	t0 := time.Now()
	pred := make([]float64, ds.x.Rows)
	if m.Kernel.Type == "float32" {
		err = svmPredict[float32](ctx, e, m, pred, ds, x, p, kind)
	} else {
		err = svmPredict[float64](ctx, e, m, pred, ds, x, p, kind)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "predicted %d points in %.2fs\n", len(pred), time.Since(t0).Seconds())
	if ds.y != nil {
		svmReport(e.stdout, ds.name, loss, pred, ds.y)
	} else {
		fmt.Fprintf(e.stdout, "%s: %d predictions (no labels)\n", ds.name, len(pred))
	}
	if *out != "" {
		if err := linalg.WriteNpyVector(*out, pred); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", *out)
	}
	return nil
}

// svmTrainingInputs returns the model's training inputs: embedded, or
// reloaded from the recorded source and checked against the recorded
// SHA-256.
func svmTrainingInputs(e *env, m *svm.Model, d svmDataFlags) (linalg.Matrix[float64], error) {
	if m.Train.Embedded {
		return m.X, nil
	}
	tf := svmDataFlags{mnist: d.mnist, standardize: m.Params["standardize"] == "true"}
	if s, ok := m.Params["first"]; ok {
		n, err := strconv.Atoi(s)
		if err != nil {
			return linalg.Matrix[float64]{}, fmt.Errorf("model: bad \"first\" parameter %q", s)
		}
		tf.first = n
	}
	src := m.Train.Source
	ds, err := svmLoadData(e, src, tf, m.Train.D)
	if err != nil {
		return linalg.Matrix[float64]{}, fmt.Errorf("reloading the training inputs %s: %w", src, err)
	}
	if ds.x.Rows != m.Train.N || ds.x.Cols != m.Train.D || svm.InputsSHA256(ds.x) != m.Train.SHA256 {
		return linalg.Matrix[float64]{}, fmt.Errorf("training inputs %s (%d×%d) are not those the model was trained on (%d×%d, sha256 %.12s…)",
			src, ds.x.Rows, ds.x.Cols, m.Train.N, m.Train.D, m.Train.SHA256)
	}
	return ds.x, nil
}

// svmPredict computes the outputs in blocks of rows so that the cross
// kernel stays below about 256 MiB.
func svmPredict[T linalg.Float](ctx context.Context, e *env, m *svm.Model, pred []float64, ds *svmDataset, x linalg.Matrix[float64],
	p ntk.Params, kind ntk.Kind) error {
	km := m.KernelMachine()
	block := max(1, (256<<20)/8/max(1, x.Rows))
	for i0 := 0; i0 < ds.x.Rows; i0 += block {
		i1 := min(ds.x.Rows, i0+block)
		z := ds.x.Slice(i0, i1, 0, ds.x.Cols)
		k, err := svmKernel[T](ctx, e, fmt.Sprintf("kernel rows %d–%d", i0, i1), &z, &x, p, kind)
		if err != nil {
			return err
		}
		if err := km.Predict(pred[i0:i1], svm.NewDense(k)); err != nil {
			return err
		}
	}
	return nil
}
