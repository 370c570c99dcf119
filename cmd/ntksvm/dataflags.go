package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/ntksvm/ntksvm/internal/outpath"
	"github.com/ntksvm/ntksvm/mnist"
	"github.com/ntksvm/ntksvm/svm/dataset"
)

// The one data vocabulary of every command that reads data (train,
// predict, certify, kernel, export-libsvm, data info, cv, equiv, genbound):
//
//	--data D  --test D  --first N  --standardize  --mnist-dir DIR  --allow-noncanonical
//	--label COL  --delimiter C  --header auto|yes|no  --missing error|drop
//
// D is any source package dataset opens; the binary commands add
// --positive and --classes (classFlags). A bad file gets the same message
// from every command: the reading is dataset.Open's alone.
const dataForms = "a CSV, ARFF or LIBSVM file (*.libsvm, *.svm, libsvm:PATH), X.npy,labels (a .npy vector or one label a line), " +
	"X.npy (no labels), mnist or mnist-test (ten digits), mnist01 or mnist01-test (digit 0 vs 1)"

// dataFlags select and read data sets.
type dataFlags struct {
	data, test                    string
	mnistDir                      string
	allowNonCanonical             bool
	first                         int
	standardize                   bool
	label, comma, header, missing string
}

// add registers --data (what describes it) and the reading flags on fs.
func (d *dataFlags) add(fs *flag.FlagSet, e *env, what string) {
	fs.StringVar(&d.data, "data", "", what+": "+dataForms)
	d.addRead(fs, e)
}

// addTest registers --test; what describes it.
func (d *dataFlags) addTest(fs *flag.FlagSet, what string) {
	fs.StringVar(&d.test, "test", "", what+" (same forms as --data; --first does not apply)")
}

// addRead registers the flags that say how to read a source.
func (d *dataFlags) addRead(fs *flag.FlagSet, e *env) {
	d.addMNIST(fs, e)
	fs.IntVar(&d.first, "first", 0, "keep only the first N examples of --data (MNIST: in file order); 0 keeps all")
	fs.BoolVar(&d.standardize, "standardize", false, "MNIST pixels (p/255 − 0.1307)/0.3081 instead of p/255")
	fs.StringVar(&d.label, "label", "", "class column of a table: a header name or a 0-based index, negative from the end (default: the last column; ARFF: \"class\" or the last)")
	fs.StringVar(&d.comma, "delimiter", "", "CSV delimiter (default: detected among , ; tab |)")
	fs.StringVar(&d.header, "header", "auto", "CSV header: auto, yes or no")
	fs.StringVar(&d.missing, "missing", "error", "rows with missing values: error (name the first) or drop (say how many)")
}

// addMNIST registers --mnist-dir (and its deprecated alias --mnist) and
// --allow-noncanonical on fs.
func (d *dataFlags) addMNIST(fs *flag.FlagSet, e *env) {
	fs.StringVar(&d.mnistDir, "mnist-dir", "", "MNIST `directory` (default $"+mnist.EnvDir+", else the user cache directory)")
	alias(fs, e, "mnist", "mnist-dir")
	fs.BoolVar(&d.allowNonCanonical, "allow-noncanonical", false,
		"use MNIST files whose content is not the canonical MNIST (prints a warning; results will not match the paper)")
}

// check validates the data flags and spec, given by flagName, without
// reading anything.
func (d *dataFlags) check(flagName, spec string) error {
	if d.first < 0 {
		return usageError("--first %d: want ≥ 0", d.first)
	}
	if spec == "" {
		return usageError("%s is required", flagName)
	}
	if err := dataset.Check(spec); err != nil {
		return usageError("%s %s", flagName, strings.TrimPrefix(err.Error(), dataset.ErrData.Error()+": "))
	}
	_, err := d.options(nil, 0)
	return err
}

// options returns the reading options of the flags; dim > 0 is the number
// of features a LIBSVM file is read with.
func (d *dataFlags) options(e *env, dim int) (dataset.Options, error) {
	o := dataset.Options{MNISTDir: d.mnistDir, MNISTDirFlag: "--mnist-dir", AllowNonCanonical: d.allowNonCanonical,
		First: d.first, Standardize: d.standardize, Dim: dim, Label: d.label, MaxBytes: memoryBudget()}
	if e != nil {
		o.Warn, o.Context = e.stderr, e.ctx
	}
	var err error
	if o.Missing, err = dataset.ParseMissing(d.missing); err != nil {
		return o, usageError("--missing: %v", strings.TrimPrefix(err.Error(), "dataset: "))
	}
	switch d.header {
	case "auto", "":
	case "yes":
		o.Header = dataset.HeaderYes
	case "no":
		o.Header = dataset.HeaderNo
	default:
		return o, usageError("--header %q: want auto, yes or no", d.header)
	}
	switch r := []rune(d.comma); {
	case len(r) == 0:
	case d.comma == "tab" || d.comma == `\t`:
		o.Comma = '\t'
	case len(r) == 1 && r[0] != '"' && r[0] != '\n' && r[0] != '\r':
		o.Comma = r[0]
	default:
		return o, usageError("--delimiter %q: want one character (or tab)", d.comma)
	}
	return o, nil
}

// open reads the source spec given by flagName: --data with --first, any
// other without; dim > 0 widens a LIBSVM file to that many features.
func (d *dataFlags) open(e *env, flagName, spec string, dim int) (*dataset.Dataset, error) {
	if err := d.check(flagName, spec); err != nil {
		return nil, err
	}
	o, err := d.options(e, dim)
	if err != nil {
		return nil, err
	}
	if flagName != "--data" {
		o.First = 0
	}
	s, err := dataset.Open(spec, o)
	if err != nil {
		return nil, err
	}
	if s.Dropped > 0 {
		fmt.Fprintf(e.stderr, "%s: dropped %d rows with missing values, kept %d\n", spec, s.Dropped, s.N())
	}
	return s, nil
}

// openPair reads --data and, when given, --test with the training set's
// number of features.
func (d *dataFlags) openPair(e *env) (train, test *dataset.Dataset, err error) {
	if train, err = d.open(e, "--data", d.data, 0); err != nil || d.test == "" {
		return train, nil, err
	}
	if test, err = d.open(e, "--test", d.test, train.D()); err != nil {
		return nil, nil, err
	}
	if test.D() != train.D() {
		return nil, nil, fmt.Errorf("--test %s: %d features, the training data (%s) have %d", d.test, test.D(), d.data, train.D())
	}
	return train, test, nil
}

// trimData drops the "dataset: bad data: " of a data error.
func trimData(err error) string {
	return strings.TrimPrefix(err.Error(), dataset.ErrData.Error()+": ")
}

// inputs returns the files of --data and --test, for checkOutputs.
func (d *dataFlags) inputs() []outpath.Path {
	return append(inputs("--data", d.data), inputs("--test", d.test)...)
}

// openClasses reads --data and --test for a classifier: both must have
// labels.
func (d *dataFlags) openClasses(e *env) (train, test *dataset.Dataset, err error) {
	if train, test, err = d.openPair(e); err != nil {
		return nil, nil, err
	}
	for _, s := range []*dataset.Dataset{train, test} {
		if s != nil && !s.Labelled() {
			return nil, nil, usageError("%s has no labels: a classifier needs X.npy,labels (or a table)", s.Name)
		}
	}
	return train, test, nil
}
