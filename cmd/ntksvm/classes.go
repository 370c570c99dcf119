package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/ntksvm/ntksvm/internal/atomicfile"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/classify"
	data "github.com/ntksvm/ntksvm/svm/dataset"
)

// memoryBudget is the memory a data file may take: half of what the
// system can give (0: no limit known).
func memoryBudget() int64 {
	if avail, ok := availableMemory(); ok {
		return int64(min(avail/2, 1<<62))
	}
	return 0
}

// reportClasses prints the accuracy, the confusion matrix and each class's
// recall of c on a labelled dataset.
func reportClasses(ctx context.Context, w io.Writer, c *classify.Classifier, d *data.Dataset, name string) error {
	pred, err := c.Predict(ctx, d.X)
	if err != nil {
		return err
	}
	printClassReport(w, c.Classes, d, pred, name)
	return nil
}

// printClassReport prints the accuracy, the confusion matrix (rows: true
// class, columns: predicted) and the recall of each class. A true class the
// model does not know gets a row of its own and counts as wrong.
func printClassReport(w io.Writer, classes []string, d *data.Dataset, pred []string, name string) {
	index := map[string]int{}
	for i, c := range classes {
		index[c] = i
	}
	names := append([]string(nil), classes...)
	truth, p := make([]int, len(pred)), make([]int, len(pred))
	right := 0
	for i := range pred {
		t := d.Classes[d.Y[i]]
		k, ok := index[t]
		if !ok {
			k = len(names)
			index[t], names = k, append(names, t)
		}
		truth[i], p[i] = k, index[pred[i]]
		if t == pred[i] {
			right++
		}
	}
	fmt.Fprintf(w, "%s: accuracy %.2f%% (%d of %d)\n", name, 100*float64(right)/float64(len(pred)), right, len(pred))
	conf := classify.Confusion(truth, p, len(names))
	width := 6
	for _, n := range names {
		width = max(width, len(n))
	}
	fmt.Fprintf(w, "%*s", width+2, "true\\pred")
	for _, n := range names {
		fmt.Fprintf(w, " %*s", width, n)
	}
	fmt.Fprintf(w, " %8s\n", "recall")
	for t, row := range conf {
		fmt.Fprintf(w, "%*s", width+2, names[t])
		total := 0
		for _, v := range row {
			fmt.Fprintf(w, " %*d", width, v)
			total += v
		}
		if total > 0 {
			fmt.Fprintf(w, " %7.2f%%\n", 100*float64(row[t])/float64(total))
		} else {
			fmt.Fprintf(w, " %8s\n", "-")
		}
	}
}

// predictClasses is predict for a multi-class model: it prints the report
// when the data has labels, and writes one line per example (the predicted
// class, then with decision the machines' decision values) to out.
func predictClasses(ctx context.Context, e *env, m *svm.Model, tf *tableFlags, dataPath, out string, decision bool) error {
	c, err := classify.FromModel(m)
	if err != nil {
		return err
	}
	d, err := tf.load(e, dataPath)
	if err != nil {
		return err
	}
	if d.D() != m.Train.D {
		return fmt.Errorf("%s has %d features, the model was trained on %d", dataPath, d.D(), m.Train.D)
	}
	dec, err := c.Decision(ctx, d.X)
	if err != nil {
		return err
	}
	idx, err := c.PredictIndex(ctx, d.X)
	if err != nil {
		return err
	}
	pred := make([]string, len(idx))
	for i, k := range idx {
		pred[i] = c.Classes[k]
	}
	printClassReport(e.stdout, c.Classes, d, pred, dataPath)
	if out == "" {
		return nil
	}
	err = atomicfile.WriteFileContext(ctx, out, false, func(w io.Writer) error {
		for i, p := range pred {
			line := []string{strconv.Itoa(d.Rows[i]), csvField(p)}
			if decision {
				for _, v := range dec.Row(i) {
					line = append(line, strconv.FormatFloat(v, 'g', 17, 64))
				}
			}
			if _, err := fmt.Fprintln(w, strings.Join(line, ",")); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		fmt.Fprintf(e.stderr, "wrote %s (row, predicted class%s)\n", out, map[bool]string{true: ", decision values", false: ""}[decision])
	}
	return err
}

// csvField quotes s for a CSV line when it needs it.
func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\r\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// isClassModel reports whether the model file at path is a multi-class
// model, reading it once; the model is returned for use.
func isClassModel(path string) (*svm.Model, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	m, err := svm.ReadModel(f)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	return m, len(m.Classes) > 0, nil
}

// runFileInfo is "data info FILE": rows, features, classes, missing values
// and constant columns of any data file the readers take.
func runFileInfo(e *env, args []string) error {
	fs := newFlagSet(e, "data info", "FILE [--label COL] [--missing error|drop] [--json]")
	var tf tableFlags
	tf.add(fs)
	tf.missing = "drop" // count the rows with missing values rather than stop at the first
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	path := args[0]
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	d, err := tf.load(e, path)
	if err != nil {
		return err
	}
	in := d.Info()
	if *asJSON {
		b, _ := json.MarshalIndent(in, "", "  ")
		fmt.Fprintln(e.stdout, string(b))
		return nil
	}
	w := e.stdout
	fmt.Fprintf(w, "%s: %d rows, %d features, %d classes\n", path, in.Rows, in.Features, len(in.Classes))
	if in.Dropped > 0 {
		fmt.Fprintf(w, "dropped %d rows with missing values\n", in.Dropped)
	}
	for _, c := range in.Classes {
		fmt.Fprintf(w, "  %-20s %6d (%.1f%%)\n", c.Name, c.Count, 100*float64(c.Count)/float64(in.Rows))
	}
	if len(in.Constant) > 0 {
		fmt.Fprintf(w, "constant columns (no information): %s\n", strings.Join(in.Constant, ", "))
	}
	return nil
}
