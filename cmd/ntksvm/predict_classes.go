package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
	"github.com/ntksvm/ntksvm/internal/atomicfile"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/classify"
	data "github.com/ntksvm/ntksvm/svm/dataset"
)

// "ntksvm predict" for a multi-class model of "ntksvm cv": the class of
// every example (by the machines' votes, or by the largest probability
// with --probability), as CSV with a header row or as JSON.

// predictOpts are the choices of "ntksvm predict" for a multi-class
// model: the decision values beside the class, the probabilities
// instead, JSON on stdout.
type predictOpts struct {
	decision, probability, json bool
}

// predictClasses is predict for a multi-class model: it prints the report
// when the data has labels (with --json, one JSON object instead), and
// writes a CSV with a header row to out: "row,class" (then with decision
// one column per binary machine, "a vs b" or "a vs rest"), or with
// probability "row,<class names…>", one probability per class.
func predictClasses(ctx context.Context, e *env, m *svm.Model, df *dataFlags, out string, po predictOpts) error {
	c, err := classify.FromModel(m)
	if err != nil {
		return err
	}
	if po.probability && !c.HasProbability() {
		return usageError("--probability: the model has no probability model (fit it with ntksvm cv --probability)")
	}
	dataPath := df.data
	d, err := df.open(e, "--data", dataPath, m.Train.D)
	if err != nil {
		return err
	}
	if d.D() != m.Train.D {
		return fmt.Errorf("%s has %d features, the model was trained on %d", dataPath, d.D(), m.Train.D)
	}
	r, err := predictClassRows(ctx, c, d, po)
	if err != nil {
		return err
	}
	if po.json {
		if err := writePredictJSON(e.stdout, c, d, r); err != nil {
			return err
		}
	} else if d.Labelled() {
		output.ClassReport(e.stdout, dataPath, c.Classes, d.Labels(), r.pred)
		if po.probability {
			fmt.Fprintf(e.stdout, "log-loss %.4f\n", logLoss(c.Classes, d, r.prob))
		}
	} else {
		fmt.Fprintf(e.stdout, "%s: %d predictions (no labels)\n", dataPath, len(r.pred))
	}
	if out == "" {
		return nil
	}
	err = atomicfile.WriteFileContext(ctx, out, false, func(w io.Writer) error { return writeClassCSV(w, c, d, r) })
	if err == nil {
		what := "row, predicted class"
		if po.probability {
			what = "row, the probability of each class"
		}
		if po.decision {
			what += ", decision values"
		}
		fmt.Fprintf(e.stderr, "wrote %s (%s)\n", out, what)
	}
	return err
}

// classRows are a multi-class model's predictions: the classes, and the
// decision values (with --decision) or probabilities (--probability)
// when asked for (else zero matrices).
type classRows struct {
	pred      []string
	dec, prob linalg.Matrix[float64]
	machines  []string // the names of dec's columns
}

// predictClassRows predicts the rows of d: the class of the largest
// probability with po.probability, else the model's vote.
func predictClassRows(ctx context.Context, c *classify.Classifier, d *data.Dataset, po predictOpts) (classRows, error) {
	var r classRows
	var idx []int
	var err error
	if po.probability {
		idx, r.prob, err = c.PredictProbable(ctx, d.X)
	} else {
		idx, err = c.PredictIndex(ctx, d.X)
	}
	if err != nil {
		return r, err
	}
	if po.decision {
		if r.dec, err = c.Decision(ctx, d.X); err != nil {
			return r, err
		}
		r.machines = machineNames(c)
	}
	for _, k := range idx {
		r.pred = append(r.pred, c.Classes[k])
	}
	return r, nil
}

// writeClassCSV writes r as CSV with a header row: row, then the class
// or the probability of each class, then the decision values.
func writeClassCSV(w io.Writer, c *classify.Classifier, d *data.Dataset, r classRows) error {
	header := []string{"row", "class"}
	if r.prob.Rows > 0 {
		header = append([]string{"row"}, c.Classes...)
	}
	line := make([]string, 0, len(header)+len(r.machines))
	for _, h := range append(header, r.machines...) {
		line = append(line, output.CSVField(h))
	}
	if _, err := fmt.Fprintln(w, strings.Join(line, ",")); err != nil {
		return err
	}
	for i, p := range r.pred {
		line = append(line[:0], strconv.Itoa(d.SourceRow(i)))
		if r.prob.Rows > 0 {
			line = appendFloats(line, r.prob.Row(i))
		} else {
			line = append(line, output.CSVField(p))
		}
		if r.dec.Rows > 0 {
			line = appendFloats(line, r.dec.Row(i))
		}
		if _, err := fmt.Fprintln(w, strings.Join(line, ",")); err != nil {
			return err
		}
	}
	return nil
}

// appendFloats appends v's numbers in full precision.
func appendFloats(line []string, v []float64) []string {
	for _, x := range v {
		line = append(line, strconv.FormatFloat(x, 'g', 17, 64))
	}
	return line
}

// machineNames names the binary machines of c in the order of its
// decision values: "a vs b" (one-vs-one) or "a vs rest".
func machineNames(c *classify.Classifier) []string {
	m, _ := c.Model()
	var out []string
	for _, o := range m.Outputs {
		other := "rest"
		if o.Neg >= 0 {
			other = c.Classes[o.Neg]
		}
		out = append(out, c.Classes[o.Pos]+" vs "+other)
	}
	return out
}

// logLoss returns the mean of −log p(true class) over the labelled rows of
// d whose class the model knows (a probability below 1e-15 counts as
// 1e-15, as scikit-learn's log_loss clips).
func logLoss(classes []string, d *data.Dataset, prob linalg.Matrix[float64]) float64 {
	var s float64
	n := 0
	for i, y := range d.Y {
		k := slices.Index(classes, d.Classes[y])
		if k < 0 {
			continue
		}
		s -= math.Log(min(max(prob.At(i, k), 1e-15), 1-1e-15))
		n++
	}
	return s / float64(max(n, 1))
}
