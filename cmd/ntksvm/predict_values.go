package main

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/ntksvm/ntksvm/internal/atomicfile"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/regress"
)

// "ntksvm predict" for a regression model of "ntksvm cv".

// predictValues is predict for a regression model: it prints the metrics
// when the data's labels are numbers and writes "row,value" lines (with
// that header) to out. With asJSON it prints the predictions as one JSON
// object (row, value, label) instead of the metrics.
func predictValues(ctx context.Context, e *env, m *svm.Model, df *dataFlags, out string, asJSON bool) error {
	r, err := regress.FromModel(m)
	if err != nil {
		return err
	}
	dataPath := df.data
	d, err := df.open(e, "--data", dataPath, m.Train.D)
	if err != nil {
		return badData(err)
	}
	if d.D() != m.Train.D {
		return fmt.Errorf("%s has %d features, the model was trained on %d", dataPath, d.D(), m.Train.D)
	}
	pred, err := r.Predict(ctx, d.X)
	if err != nil {
		return err
	}
	var y []float64
	if d.Labelled() {
		if y, err = d.Targets(); err != nil {
			return dataError{err}
		}
	}
	switch {
	case asJSON:
		if err := writeValuesJSON(e.stdout, d, pred, y); err != nil {
			return err
		}
	case y != nil:
		printMetrics(e.stdout, dataPath, regress.Evaluate(pred, y))
	default:
		fmt.Fprintf(e.stdout, "%s: %d predictions (no labels)\n", dataPath, len(pred))
	}
	if out == "" {
		return nil
	}
	err = atomicfile.WriteFileContext(ctx, out, false, func(w io.Writer) error {
		if _, err := fmt.Fprintln(w, "row,value"); err != nil {
			return err
		}
		for i, p := range pred {
			if _, err := fmt.Fprintf(w, "%d,%s\n", d.SourceRow(i), strconv.FormatFloat(p, 'g', 17, 64)); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		fmt.Fprintf(e.stderr, "wrote %s (row, value)\n", out)
	}
	return err
}
