// Package dataset is the one data layer of ntksvm: a Dataset holds the
// feature matrix, each example's class as an index into the class names
// (none for inputs without labels), optional feature names and where the
// data came from. Open reads every source by its specification — CSV,
// ARFF and LIBSVM files, .npy inputs with or without a label file, and
// MNIST (ten digits, or the paper's 0 against 1) — with the first-n,
// memory and MNIST options of Options; the package reports on data (Info),
// standardises it (Scaler, with unit-norm rows), turns classes into the
// ±1 labels of a binary task (PositiveClass, Binary, KeepClasses) or
// regression targets (Targets), and reads the fixed train/test splits of
// a benchmark folder (Splits).
//
// Readers are strict: a ragged row, a cell that is not a number, a label
// column that does not exist, duplicate column names or an empty file is an
// error that names the line, the column and the value.
// Missing values (an empty cell, "?", "NA", "N/A", "NaN") are an error that
// names the first of them, unless Options.Missing is DropMissing, which
// drops every row that has one and reports how many (Dataset.Dropped).
//
// Class names are kept as written; they are ordered numerically when every
// name is a number and lexicographically otherwise, so that class indices
// do not depend on the order of the rows (scikit-learn's order).
//
// Every text reader bounds a line by the same rule (a fifth of
// Options.MaxBytes) and checks the memory a file implies against MaxBytes
// before allocating it. A new format goes in a file of its own with a
// Read function that returns a *Dataset, a Kind and a case in Open.
package dataset

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/ntksvm/ntksvm/linalg"
)

// ErrData is wrapped by every error about malformed or unusable data.
var ErrData = errors.New("dataset: bad data")

// Dataset is a labelled set of examples.
type Dataset struct {
	X        linalg.Matrix[float64] // one row per example
	Y        []int                  // class of each example, an index into Classes
	Classes  []string               // class names, in their canonical order
	Features []string               // feature names, or nil when the file has none
	// Rows holds, for each example, its 0-based data row in the source
	// (header excluded), so that split files that index the source still
	// apply after rows with missing values were dropped.
	Rows    []int
	Source  string // the file or files read
	Dropped int    // rows dropped for missing values (DropMissing)
	// Name names the data in messages: the file of the inputs, or the
	// MNIST specification.
	Name string
	// Ref is the specification that Open reads these inputs from again
	// (with the same First, Dim and pixel scaling), with absolute paths: what
	// a model records to reload its training inputs. It is "" when no
	// specification gives them alone (a table, whose reading depends on
	// its options; rows dropped or selected).
	Ref string
}

// what names d in messages: Name, else Source.
func (d *Dataset) what() string {
	if d.Name != "" {
		return d.Name
	}
	return d.Source
}

// Labelled reports whether d has labels (a source without labels, X.npy
// alone, has none: Y and Classes are nil).
func (d *Dataset) Labelled() bool { return d.Y != nil }

// N returns the number of examples.
func (d *Dataset) N() int { return d.X.Rows }

// D returns the number of features.
func (d *Dataset) D() int { return d.X.Cols }

// Labels returns the class name of every example.
func (d *Dataset) Labels() []string {
	out := make([]string, len(d.Y))
	for i, c := range d.Y {
		out[i] = d.Classes[c]
	}
	return out
}

// SourceRow returns the 0-based data row in the source of example i.
func (d *Dataset) SourceRow(i int) int {
	if d.Rows != nil {
		return d.Rows[i]
	}
	return i
}

// Counts returns the number of examples of each class.
func (d *Dataset) Counts() []int {
	c := make([]int, len(d.Classes))
	for _, y := range d.Y {
		c[y]++
	}
	return c
}

// Validate checks that the parts of d agree and that every feature is
// finite.
func (d *Dataset) Validate() error {
	switch {
	case d.X.Rows == 0:
		return fmt.Errorf("%w: %s: no examples", ErrData, d.what())
	case d.X.Cols == 0:
		return fmt.Errorf("%w: %s: no features", ErrData, d.Source)
	case d.Y == nil && d.Classes == nil:
		// inputs without labels
	case len(d.Y) != d.X.Rows:
		return fmt.Errorf("%w: %s: %d labels for %d examples", ErrData, d.Source, len(d.Y), d.X.Rows)
	case d.Rows != nil && len(d.Rows) != d.X.Rows:
		return fmt.Errorf("%w: %s: %d row numbers for %d examples", ErrData, d.Source, len(d.Rows), d.X.Rows)
	case d.Features != nil && len(d.Features) != d.X.Cols:
		return fmt.Errorf("%w: %s: %d feature names for %d features", ErrData, d.Source, len(d.Features), d.X.Cols)
	}
	for i, y := range d.Y {
		if y < 0 || y >= len(d.Classes) {
			return fmt.Errorf("%w: %s: example %d has class %d of %d", ErrData, d.Source, i, y, len(d.Classes))
		}
	}
	for i := range d.X.Rows {
		for j, v := range d.X.Row(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: %s: row %d, column %d is %v; inputs must be finite", ErrData, d.what(), i, j, v)
			}
		}
	}
	return nil
}

// Subset returns the examples idx of d, in that order, as a new Dataset
// with its own copy of the features and the same classes.
func (d *Dataset) Subset(idx []int) *Dataset {
	s := &Dataset{X: linalg.New[float64](len(idx), d.X.Cols), Classes: d.Classes, Features: d.Features, Source: d.Source, Name: d.Name}
	if d.Y != nil {
		s.Y = make([]int, len(idx))
	}
	if d.Rows != nil {
		s.Rows = make([]int, len(idx))
	}
	for k, i := range idx {
		copy(s.X.Row(k), d.X.Row(i))
		if d.Y != nil {
			s.Y[k] = d.Y[i]
		}
		if d.Rows != nil {
			s.Rows[k] = d.Rows[i]
		}
	}
	return s
}

// MissingPolicy says what a reader does with a missing value.
type MissingPolicy uint8

const (
	// RefuseMissing makes a missing value an error naming its line and
	// column.
	RefuseMissing MissingPolicy = iota
	// DropMissing drops every row with a missing value and counts them in
	// Dataset.Dropped.
	DropMissing
)

// ParseMissing parses "error" or "drop".
func ParseMissing(s string) (MissingPolicy, error) {
	switch s {
	case "error", "":
		return RefuseMissing, nil
	case "drop":
		return DropMissing, nil
	}
	return 0, fmt.Errorf("dataset: missing-value policy %q: want error or drop", s)
}

// isMissing reports whether a cell is a missing value.
func isMissing(s string) bool {
	switch s {
	case "", "?", "NA", "N/A", "NaN", "nan":
		return true
	}
	return false
}

// classIndex orders the distinct names of labels (numerically when all are
// numbers, lexicographically otherwise) and returns them with each label's
// index.
func classIndex(labels []string) (classes []string, y []int) {
	seen := map[string]bool{}
	for _, l := range labels {
		if !seen[l] {
			seen[l] = true
			classes = append(classes, l)
		}
	}
	numeric := true
	vals := map[string]float64{}
	for _, c := range classes {
		v, err := strconv.ParseFloat(c, 64)
		if err != nil || math.IsNaN(v) {
			numeric = false
			break
		}
		vals[c] = v
	}
	slices.SortFunc(classes, func(a, b string) int {
		if numeric && vals[a] != vals[b] {
			if vals[a] < vals[b] {
				return -1
			}
			return 1
		}
		if a < b {
			return -1
		} else if a > b {
			return 1
		}
		return 0
	})
	index := make(map[string]int, len(classes))
	for i, c := range classes {
		index[c] = i
	}
	y = make([]int, len(labels))
	for i, l := range labels {
		y[i] = index[l]
	}
	return classes, y
}

// table is what the text readers collect before building a Dataset: the
// rows kept, their labels and source rows.
type table struct {
	source   string
	name     string // Dataset.Name, when not source
	features []string
	data     []float64 // row-major, cols per row
	cols     int
	labels   []string
	rows     []int
	dropped  int
}

// dataset builds the Dataset of t, refusing an empty set or a single class.
func (t *table) dataset() (*Dataset, error) {
	n := len(t.labels)
	if n == 0 {
		if t.dropped > 0 {
			return nil, fmt.Errorf("%w: %s: every one of the %d rows has a missing value", ErrData, t.source, t.dropped)
		}
		return nil, fmt.Errorf("%w: %s: no data rows", ErrData, t.source)
	}
	if t.cols == 0 {
		return nil, fmt.Errorf("%w: %s: no feature columns besides the label", ErrData, t.source)
	}
	x, err := linalg.FromSlice(n, t.cols, t.data)
	if err != nil {
		return nil, err
	}
	classes, y := classIndex(t.labels)
	d := &Dataset{X: x, Y: y, Classes: classes, Features: t.features, Rows: t.rows, Source: t.source, Dropped: t.dropped, Name: t.name}
	if d.Name == "" {
		d.Name = t.source
	}
	return d, d.Validate()
}

// FromLabels returns the Dataset of the rows of x with class labels given
// as names (ordered as the readers order them). It shares x.
func FromLabels(x linalg.Matrix[float64], labels []string) *Dataset {
	classes, y := classIndex(labels)
	rows := make([]int, len(labels))
	for i := range rows {
		rows[i] = i
	}
	return &Dataset{X: x, Y: y, Classes: classes, Rows: rows, Source: "memory"}
}
