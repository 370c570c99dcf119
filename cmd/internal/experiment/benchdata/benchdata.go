// Package benchdata runs the cross-validated NTK classifier over a folder
// of benchmark datasets laid out as NAME.csv (or the files its splits name)
// beside NAME.splits.json, the published protocol of the NTK-SVM on small
// tabular data: for each fixed train/test split, standardise with the train
// half, choose the hyper-parameters by k-fold cross-validation on it, refit,
// and score the test half. It returns one Row per dataset; the command
// prints them.
package benchdata

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ntksvm/ntksvm/svm/classify"
	"github.com/ntksvm/ntksvm/svm/dataset"
)

// Row is one dataset's result over its splits.
type Row struct {
	Name    string    `json:"dataset"`
	N       int       `json:"n"`
	D       int       `json:"d"`
	Classes int       `json:"classes"`
	Chosen  []string  `json:"chosen"` // the grid point chosen on each split
	CVAcc   []float64 `json:"cv_accuracy"`
	TestAcc []float64 `json:"test_accuracy"`
	Mean    float64   `json:"test_mean"`
	Std     float64   `json:"test_std"`
	Seconds []float64 `json:"seconds"` // wall time per split (CV + refit + test)
}

// Config says what to run.
type Config struct {
	Dir     string
	Names   []string // datasets to run; nil means every NAME.splits.json in Dir
	Options classify.Options
	// OwnFolds uses the cross-validation folds stored in the splits file
	// (cv_fold) when it has them, so that the comparison with another
	// tool runs on the same folds.
	OwnFolds bool
	// Progress, if not nil, is told when each split finishes.
	Progress func(name string, split int, acc float64, took time.Duration)
}

// Names returns the datasets of a folder: every NAME.splits.json, sorted.
func Names(dir string) ([]string, error) {
	m, err := filepath.Glob(filepath.Join(dir, "*.splits.json"))
	if err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("benchdata: %s holds no NAME.splits.json", dir)
	}
	var names []string
	for _, p := range m {
		names = append(names, strings.TrimSuffix(filepath.Base(p), ".splits.json"))
	}
	slices.Sort(names)
	return names, nil
}

// Run runs the protocol on every dataset of cfg.
func Run(ctx context.Context, cfg Config) ([]Row, error) {
	names := cfg.Names
	if names == nil {
		var err error
		if names, err = Names(cfg.Dir); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(cfg.Dir); err != nil {
		return nil, fmt.Errorf("benchdata: %w", err)
	}
	var rows []Row
	for _, name := range names {
		r, err := runOne(ctx, cfg, name)
		if err != nil {
			return rows, fmt.Errorf("benchdata: %s: %w", name, err)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func runOne(ctx context.Context, cfg Config, name string) (Row, error) {
	d, sp, err := dataset.LoadBenchmark(cfg.Dir, name, dataset.Options{Missing: dataset.DropMissing})
	if err != nil {
		return Row{}, err
	}
	row := Row{Name: name, N: d.N(), D: d.D(), Classes: len(d.Classes)}
	for k, s := range sp.Splits {
		start := time.Now()
		tr, err := d.Indices(s.Train)
		if err != nil {
			return row, err
		}
		te, err := d.Indices(s.Test)
		if err != nil {
			return row, err
		}
		o := cfg.Options
		o.Seed = uint64(s.Seed)
		if warn := cfg.Options.Warn; warn != nil {
			o.Warn = func(w string) { warn(fmt.Sprintf("%s, split %d: %s", name, k, w)) }
		}
		if cfg.OwnFolds && s.CVFold != nil {
			o.FoldOf = s.CVFold
		}
		if err := row.add(ctx, o, d.Subset(tr), d.Subset(te), start); err != nil {
			return row, fmt.Errorf("split %d: %w", k, err)
		}
		if cfg.Progress != nil {
			cfg.Progress(name, k, row.TestAcc[k], time.Since(start))
		}
	}
	row.Mean, row.Std = classify.MeanStd(row.TestAcc)
	return row, nil
}

// RunPair runs the protocol on one training and one test set, the one
// split of data that comes as two files; cfg's Dir, Names and OwnFolds do
// not apply.
func RunPair(ctx context.Context, cfg Config, name string, train, test *dataset.Dataset) (Row, error) {
	start := time.Now()
	row := Row{Name: name, N: train.N() + test.N(), D: train.D(), Classes: len(train.Classes)}
	if err := row.add(ctx, cfg.Options, train, test, start); err != nil {
		return row, fmt.Errorf("benchdata: %s: %w", name, err)
	}
	if cfg.Progress != nil {
		cfg.Progress(name, 0, row.TestAcc[0], time.Since(start))
	}
	row.Mean, row.Std = classify.MeanStd(row.TestAcc)
	return row, nil
}

// add fits the classifier of o on train (choosing by cross-validation),
// scores it on test and appends the split's results, timed from start, to
// r.
func (r *Row) add(ctx context.Context, o classify.Options, train, test *dataset.Dataset, start time.Time) error {
	c := classify.New(o)
	if err := c.FitDataset(ctx, train); err != nil {
		return err
	}
	acc, err := c.Score(ctx, test)
	if err != nil {
		return err
	}
	took := time.Since(start)
	fixed := ""
	if c.Kernel.Fixed > 0 {
		fixed = fmt.Sprintf(" F=%d", c.Kernel.Fixed)
	}
	chosen := fmt.Sprintf("%s L=%d%s σ_b=%g C=%g", c.Kernel.Kind, c.Kernel.Depth, fixed, c.Kernel.BiasStd, c.C)
	cvAcc := math.NaN()
	if c.CV != nil {
		cvAcc = c.CV.Scores[c.CV.Chosen].Mean
	}
	r.Chosen, r.CVAcc = append(r.Chosen, chosen), append(r.CVAcc, cvAcc)
	r.TestAcc, r.Seconds = append(r.TestAcc, acc), append(r.Seconds, took.Seconds())
	return nil
}
