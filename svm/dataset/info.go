package dataset

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/ntksvm/ntksvm/linalg"
)

// Info summarises a dataset for a person deciding how to use it.
type Info struct {
	Source   string       `json:"source"`
	Rows     int          `json:"rows"`
	Features int          `json:"features"`
	Classes  []ClassCount `json:"classes"`
	Dropped  int          `json:"dropped_missing"` // rows dropped for missing values
	// Constant lists the features (by name, or as "#j", 1-based) that take
	// one value in every row: they carry no information.
	Constant []string `json:"constant"`
}

// ClassCount is one class and its number of examples.
type ClassCount struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// Info returns the summary of d.
func (d *Dataset) Info() Info {
	in := Info{Source: d.Source, Rows: d.N(), Features: d.D(), Dropped: d.Dropped, Constant: []string{}}
	for c, k := range d.Counts() {
		in.Classes = append(in.Classes, ClassCount{d.Classes[c], k})
	}
	for j := range d.D() {
		first, constant := d.X.At(0, j), true
		for i := 1; i < d.N() && constant; i++ {
			constant = d.X.At(i, j) == first
		}
		if constant {
			in.Constant = append(in.Constant, d.featureName(j))
		}
	}
	return in
}

func (d *Dataset) featureName(j int) string {
	if d.Features != nil {
		return d.Features[j]
	}
	return fmt.Sprintf("#%d", j+1)
}

// Scaler standardises features: x ↦ (x − Mean)/Scale per column, with the
// mean and the population standard deviation of the data it was fitted on
// (a constant column gets Scale 1), as scikit-learn's StandardScaler does.
// A Scaler with no Mean and Scale leaves the features as they are.
//
// With UnitNorm it then scales every row x to the Euclidean norm √d (d
// features), so that ‖x‖²/d = 1 for every example: with no bias (σ_b = 0)
// the NTK and NNGP of such rows depend only on the angles between examples,
// as for inputs on the sphere in the NTK's theory. A row of zeros stays
// zero.
type Scaler struct {
	Mean     []float64 `json:"mean"`
	Scale    []float64 `json:"scale"`
	UnitNorm bool      `json:"unit_norm,omitempty"`
}

// FitScaler returns the Scaler of the rows of x.
func FitScaler(x linalg.Matrix[float64]) *Scaler {
	s := &Scaler{Mean: make([]float64, x.Cols), Scale: make([]float64, x.Cols)}
	n := float64(x.Rows)
	for i := range x.Rows {
		for j, v := range x.Row(i) {
			s.Mean[j] += v
		}
	}
	for j := range s.Mean {
		s.Mean[j] /= n
	}
	for i := range x.Rows {
		for j, v := range x.Row(i) {
			d := v - s.Mean[j]
			s.Scale[j] += d * d
		}
	}
	for j, v := range s.Scale {
		sd := math.Sqrt(v / n)
		if sd < 10*math.SmallestNonzeroFloat64 || sd <= 1e-12*math.Abs(s.Mean[j]) {
			sd = 1
		}
		s.Scale[j] = sd
	}
	return s
}

// Apply returns the standardised (and with UnitNorm, row-normalised) copy
// of x. It fails if x has another number of columns than the data the
// Scaler was fitted on.
func (s *Scaler) Apply(x linalg.Matrix[float64]) (linalg.Matrix[float64], error) {
	if s.Mean != nil && x.Cols != len(s.Mean) {
		return linalg.Matrix[float64]{}, fmt.Errorf("%w: %d features, the model was trained on %d", ErrData, x.Cols, len(s.Mean))
	}
	y := linalg.New[float64](x.Rows, x.Cols)
	for i := range x.Rows {
		out := y.Row(i)
		copy(out, x.Row(i))
		if s.Mean != nil {
			for j, v := range out {
				out[j] = (v - s.Mean[j]) / s.Scale[j]
			}
		}
		if s.UnitNorm {
			linalg.ScaleToRootLen(out)
		}
	}
	return y, nil
}

// Validate checks that a Scaler read from a file is usable.
func (s *Scaler) Validate() error {
	if len(s.Mean) != len(s.Scale) {
		return fmt.Errorf("%w: scaler has %d means and %d scales", ErrData, len(s.Mean), len(s.Scale))
	}
	for j := range s.Mean {
		if math.IsNaN(s.Mean[j]) || math.IsInf(s.Mean[j], 0) || !(s.Scale[j] > 0) || math.IsInf(s.Scale[j], 0) {
			return fmt.Errorf("%w: scaler column %d has mean %v and scale %v", ErrData, j, s.Mean[j], s.Scale[j])
		}
	}
	return nil
}

// Split is one train/test split of a dataset, by source row, with an
// optional cross-validation fold for each training row.
type Split struct {
	Seed   int   `json:"seed"`
	Train  []int `json:"train"`
	Test   []int `json:"test"`
	CVFold []int `json:"cv_fold,omitempty"`
}

// Splits are the fixed splits of a benchmark dataset (NAME.splits.json):
// 0-based data rows of the source files, concatenated in Files order.
type Splits struct {
	Dataset string   `json:"dataset"`
	Files   []string `json:"files"`
	NRows   int      `json:"n_rows"`
	Dropped []int    `json:"dropped_rows"`
	Splits  []Split  `json:"splits"`
}

// ReadSplits reads and checks a splits file.
func ReadSplits(r io.Reader, name string) (*Splits, error) {
	var s Splits
	if err := json.NewDecoder(r).Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrData, name, err)
	}
	if len(s.Files) == 0 || len(s.Splits) == 0 || s.NRows <= 0 {
		return nil, fmt.Errorf("%w: %s: want files, n_rows and at least one split", ErrData, name)
	}
	for k, sp := range s.Splits {
		if len(sp.Train) == 0 || len(sp.Test) == 0 {
			return nil, fmt.Errorf("%w: %s: split %d has an empty train or test set", ErrData, name, k)
		}
		if sp.CVFold != nil && len(sp.CVFold) != len(sp.Train) {
			return nil, fmt.Errorf("%w: %s: split %d has %d folds for %d training rows", ErrData, name, k, len(sp.CVFold), len(sp.Train))
		}
		for _, r := range slices.Concat(sp.Train, sp.Test) {
			if r < 0 || r >= s.NRows {
				return nil, fmt.Errorf("%w: %s: split %d names row %d of %d", ErrData, name, k, r, s.NRows)
			}
		}
	}
	return &s, nil
}

// Indices maps source rows to example indices of d (whose Rows are source
// rows), failing on a row d does not hold (dropped, or out of range).
func (d *Dataset) Indices(rows []int) ([]int, error) {
	at := make(map[int]int, len(d.Rows))
	for i, r := range d.Rows {
		at[r] = i
	}
	idx := make([]int, len(rows))
	for k, r := range rows {
		i, ok := at[r]
		if !ok {
			return nil, fmt.Errorf("%w: %s: row %d is not in the data (dropped for a missing value?)", ErrData, d.Source, r)
		}
		idx[k] = i
	}
	return idx, nil
}

// Concat appends the examples of e to d (same features; classes merged by
// name and re-ordered), numbering e's rows after d's: a benchmark whose
// data comes as two files (segment-train, segment-test) is one Dataset.
func Concat(d, e *Dataset) (*Dataset, error) {
	if d.D() != e.D() {
		return nil, fmt.Errorf("%w: %s has %d features, %s has %d", ErrData, d.Source, d.D(), e.Source, e.D())
	}
	labels := make([]string, 0, d.N()+e.N())
	for _, y := range d.Y {
		labels = append(labels, d.Classes[y])
	}
	for _, y := range e.Y {
		labels = append(labels, e.Classes[y])
	}
	nd := d.N() + d.Dropped
	t := &table{source: d.Source + "+" + e.Source, features: d.Features, cols: d.D(),
		data: slices.Concat(d.X.Data[:d.N()*d.D()], e.X.Data[:e.N()*e.D()]), labels: labels,
		dropped: d.Dropped + e.Dropped}
	t.rows = slices.Clone(d.Rows)
	for _, r := range e.Rows {
		t.rows = append(t.rows, nd+r)
	}
	return t.dataset()
}

// LoadBenchmark reads the dataset NAME of a benchmark folder: the files its
// NAME.splits.json lists (concatenated in that order) and the splits.
func LoadBenchmark(dir, name string, o Options) (*Dataset, *Splits, error) {
	f, err := os.Open(filepath.Join(dir, name+".splits.json"))
	if err != nil {
		return nil, nil, fmt.Errorf("dataset: %w", err)
	}
	defer f.Close()
	sp, err := ReadSplits(f, f.Name())
	if err != nil {
		return nil, nil, err
	}
	var d *Dataset
	for _, file := range sp.Files {
		if file != filepath.Base(file) {
			return nil, nil, fmt.Errorf("%w: %s: file %q is not a name in the folder", ErrData, f.Name(), file)
		}
		e, err := Load(filepath.Join(dir, file), o)
		if err != nil {
			return nil, nil, err
		}
		if d == nil {
			d = e
		} else if d, err = Concat(d, e); err != nil {
			return nil, nil, err
		}
	}
	if n := d.N() + d.Dropped; n != sp.NRows {
		return nil, nil, fmt.Errorf("%w: %s: the splits count %d rows, the data has %d", ErrData, f.Name(), sp.NRows, n)
	}
	return d, sp, nil
}
