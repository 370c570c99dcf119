package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
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
	output.ClassReport(w, name, c.Classes, d.Labels(), pred)
	return nil
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
	var df dataFlags
	df.addRead(fs, e)
	df.missing = "drop" // count the rows with missing values rather than stop at the first
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	path := args[0]
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	d, err := df.open(e, "--data", path, 0)
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
	var small []string
	for _, c := range in.Classes {
		if c.Count < classify.DefaultFolds {
			small = append(small, fmt.Sprintf("%s (%d)", c.Name, c.Count))
		}
	}
	if len(small) > 0 {
		fmt.Fprintf(w, "classes with fewer examples than cv's %d folds (cv warns and goes on, counting their validation examples as errors in the folds that lack them in training): %s\n",
			classify.DefaultFolds, strings.Join(small, ", "))
	}
	if len(in.Constant) > 0 {
		fmt.Fprintf(w, "constant columns (no information): %s\n", strings.Join(in.Constant, ", "))
	}
	return nil
}
