package main

import (
	"flag"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment"
	"github.com/ntksvm/ntksvm/svm/dataset"
)

// addExperiment registers the data flags of an experiment command (equiv,
// genbound): --data and --test (default: MNIST 0 vs 1, the paper's task),
// the MNIST and table reading flags, and the class flags of a binary task
// on data of more classes.
func (d *dataFlags) addExperiment(fs *flag.FlagSet, e *env, cls *classFlags) {
	fs.StringVar(&d.data, "data", "", "training data (default: MNIST 0 vs 1, the paper's task): "+dataForms)
	d.addTest(fs, "test data, required with --data")
	d.addMNIST(fs, e)
	fs.StringVar(&d.label, "label", "", "class column of a table (default: the last column)")
	fs.StringVar(&d.comma, "delimiter", "", "CSV delimiter (default: detected)")
	fs.StringVar(&d.header, "header", "auto", "CSV header: auto, yes or no")
	fs.StringVar(&d.missing, "missing", "error", "rows with missing values: error or drop")
	cls.add(fs)
}

// experimentFlags are the flags of addExperiment, which a resumed run
// takes again (its fingerprint checks that the data are the same).
var experimentFlags = []string{"data", "test", "label", "delimiter", "header", "missing", "positive", "classes"}

// experimentData reads the data of an experiment command: MNIST 0 vs 1
// without --data, else --data and --test as the ±1 points of the class
// flags' two-class task.
func experimentData(e *env, d dataFlags, cls classFlags) (*experiment.Data, error) {
	if d.data == "" {
		if d.test != "" || cls.on() {
			return nil, usageError("--test, --positive and --classes choose a task of --data, which is not given (MNIST 0 vs 1 is)")
		}
		return loadMNIST01(e, d)
	}
	if d.test == "" {
		return nil, usageError("--data %s needs --test: the experiment evaluates on held-out data", d.data)
	}
	train, test, err := d.openClasses(e)
	if err != nil {
		return nil, err
	}
	tr, te, err := cls.binary(train, test)
	if err != nil {
		return nil, err
	}
	return &experiment.Data{Name: tr.Name, X: tr.X, Y: tr.Y, XTest: te.X, YTest: te.Y}, nil
}

// loadMNIST01 loads MNIST 0 against 1, both splits, through the data flags'
// MNIST location and pixel options: the data of the experiment commands
// without --data.
func loadMNIST01(e *env, d dataFlags) (*experiment.Data, error) {
	o, err := d.options(e, 0)
	if err != nil {
		return nil, err
	}
	train, test, err := dataset.LoadMNISTBinary[float64](0, 1, o)
	if err != nil {
		return nil, err
	}
	return &experiment.Data{Name: "MNIST 0 vs 1", X: train.X, Y: train.Y, XTest: test.X, YTest: test.Y}, nil
}

// capCounts caps a preset's point counts at the data's when --data is
// given and --n-train or --n-test is not (set holds the flags given).
func capCounts(d dataFlags, set map[string]bool, data *experiment.Data, nTrain, nTest *int) {
	if d.data == "" {
		return
	}
	if !set["n-train"] {
		*nTrain = min(*nTrain, data.X.Rows)
	}
	if !set["n-test"] {
		*nTest = min(*nTest, data.XTest.Rows)
	}
}
