package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/mnist"
	"github.com/ntksvm/ntksvm/svm/classify"
	data "github.com/ntksvm/ntksvm/svm/dataset"
)

// tableFlags are the flags that say how to read a user's data file.
type tableFlags struct {
	label, comma, header, missing string
	mnistDir                      string
	first                         int
}

func (t *tableFlags) add(fs *flag.FlagSet) {
	t.addFile(fs)
	t.addSubset(fs)
}

// addFile registers the flags that say how to read a data file.
func (t *tableFlags) addFile(fs *flag.FlagSet) {
	fs.StringVar(&t.label, "label", "", "class column: a header name or a 0-based index, negative from the end (default: the last column; ARFF: \"class\" or the last)")
	fs.StringVar(&t.comma, "delimiter", "", "CSV delimiter (default: detected among , ; tab |)")
	fs.StringVar(&t.header, "header", "auto", "CSV header: auto, yes or no")
	fs.StringVar(&t.missing, "missing", "error", "rows with missing values: error (name the first) or drop (say how many)")
}

// addSubset registers --mnist-dir and --first (commands whose data flags
// already have them use add's first part, addFile, alone).
func (t *tableFlags) addSubset(fs *flag.FlagSet) {
	fs.StringVar(&t.mnistDir, "mnist-dir", "", "MNIST `directory` for --data mnist or mnist-test (default $"+mnist.EnvDir+")")
	fs.IntVar(&t.first, "first", 0, "keep only the first N rows of the data (0: all)")
}

// loadMNISTClasses reads MNIST's training ("mnist") or test split as ten
// classes.
func loadMNISTClasses(name, dir string, first int) (*data.Dataset, error) {
	dir, _, err := mnist.Locate(dir)
	if err != nil {
		return nil, err
	}
	split := mnist.Train
	if name == "mnist-test" {
		split = mnist.Test
	}
	s, err := mnist.LoadSplit(dir, split)
	if err != nil {
		return nil, err
	}
	return data.FromMNIST(s, first)
}

func (t *tableFlags) options() (data.Options, error) {
	var o data.Options
	var err error
	if o.Missing, err = data.ParseMissing(t.missing); err != nil {
		return o, usageError("--missing: %v", err)
	}
	switch t.header {
	case "auto":
	case "yes":
		o.Header = data.HeaderYes
	case "no":
		o.Header = data.HeaderNo
	default:
		return o, usageError("--header %q: want auto, yes or no", t.header)
	}
	switch r := []rune(t.comma); {
	case len(r) == 0:
	case t.comma == "tab" || t.comma == `\t`:
		o.Comma = '\t'
	case len(r) == 1 && r[0] != '"' && r[0] != '\n' && r[0] != '\r':
		o.Comma = r[0]
	default:
		return o, usageError("--delimiter %q: want one character (or tab)", t.comma)
	}
	o.Label = t.label
	o.MaxBytes = memoryBudget()
	return o, nil
}

// load reads a data file, or MNIST's ten classes for "mnist" and
// "mnist-test", keeps its first t.first rows when that is set, and says
// how many rows it dropped.
func (t *tableFlags) load(e *env, path string) (*data.Dataset, error) {
	o, err := t.options()
	if err != nil {
		return nil, err
	}
	if path == "mnist" || path == "mnist-test" {
		return loadMNISTClasses(path, t.mnistDir, t.first)
	}
	d, err := data.Load(path, o)
	if err != nil {
		return nil, err
	}
	if t.first > 0 && t.first < d.N() {
		idx := make([]int, t.first)
		for i := range idx {
			idx[i] = i
		}
		d = d.Subset(idx)
	}
	if d.Dropped > 0 {
		fmt.Fprintf(e.stderr, "%s: dropped %d rows with missing values, kept %d\n", path, d.Dropped, d.N())
	}
	return d, nil
}

// gridFlags are the hyper-parameters cross-validation chooses from.
type gridFlags struct {
	kinds, depths, sigmaB, cs string
}

func (g *gridFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&g.kinds, "kernel", "ntk", "kernels to try, comma-separated: ntk, nngp, and fixed (for every depth L, the NTKs of the net whose first F = 1…L−1 layers are not trained; F = 0 is ntk, F = L nngp), e.g. ntk,nngp,fixed")
	fs.StringVar(&g.depths, "depth", "1-5", "hidden layers to try: 3, 1-5 or 0,2,4 (0 is the input kernel)")
	fs.StringVar(&g.sigmaB, "sigma-b", "0,0.5,1,2", "bias standard deviations σ_b to try (0: no bias)")
	fs.StringVar(&g.cs, "C", "1e-2:1e4:7", "C values to try: a list (0.1,1,10) or LO:HI:N in log scale")
}

func (g *gridFlags) grid() (classify.Grid, error) {
	var gr classify.Grid
	var err error
	if gr.Kinds, gr.Fixed, err = classify.ParseKernels(g.kinds); err != nil {
		return gr, usageError("--kernel: %v", err)
	}
	if gr.Depths, err = classify.ParseDepths(g.depths); err != nil {
		return gr, usageError("--depth: %v", err)
	}
	if gr.BiasStds, err = classify.ParseValues(g.sigmaB, true); err != nil {
		return gr, usageError("--sigma-b: %v", err)
	}
	if gr.Cs, err = classify.ParseValues(g.cs, false); err != nil {
		return gr, usageError("--C: %v", err)
	}
	return gr, nil
}

// loadPair reads the training data and, when testPath is set, the test
// data (--first subsets the training data only).
func (t *tableFlags) loadPair(e *env, trainPath, testPath string) (train, test *data.Dataset, err error) {
	if train, err = t.load(e, trainPath); err != nil || testPath == "" {
		return train, nil, err
	}
	tt := *t
	tt.first = 0
	if test, err = tt.load(e, testPath); err != nil {
		return nil, nil, err
	}
	widenLIBSVM(test, testPath, train.D())
	if test.D() != train.D() {
		return nil, nil, fmt.Errorf("--test %s: %d features, the training data (%s) have %d", testPath, test.D(), trainPath, train.D())
	}
	return train, test, nil
}

// widenLIBSVM gives the examples of d, read from path, width features
// when path is a LIBSVM file whose largest index is below width: the
// format's feature count is the largest index present, and the features
// past it are 0 by its definition.
func widenLIBSVM(d *data.Dataset, path string, width int) {
	if d.D() >= width || !isLIBSVM(path) {
		return
	}
	x := linalg.New[float64](d.N(), width)
	for i := range d.N() {
		copy(x.Row(i), d.X.Row(i))
	}
	d.X = x
}

// isLIBSVM reports whether path names a LIBSVM file (by its extension, as
// the readers choose their format).
func isLIBSVM(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".libsvm", ".svm", ".svmlight":
		return true
	}
	return false
}
