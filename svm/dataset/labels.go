package dataset

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrNoLabels is the error of a labelled use of data without labels.
var ErrNoLabels = errors.New("dataset: the data has no labels")

// Targets returns every example's label read as a number: the targets of
// regression, or the ±1 labels of a binary machine given as numbers. It
// fails on data without labels (ErrNoLabels) and names the first example,
// in row order, whose label is not a finite number, with its data row in
// the source.
func (d *Dataset) Targets() ([]float64, error) {
	if !d.Labelled() {
		return nil, fmt.Errorf("%w: %s", ErrNoLabels, d.Name)
	}
	vals := make([]float64, len(d.Classes))
	ok := make([]bool, len(d.Classes))
	for c, name := range d.Classes {
		v, err := strconv.ParseFloat(name, 64)
		vals[c], ok[c] = v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
	}
	y := make([]float64, len(d.Y))
	for i, c := range d.Y {
		if !ok[c] {
			return nil, fmt.Errorf("%w: %s: label %q of example %d is not a finite number (data row %d)", ErrData, d.what(), d.Classes[c], i, d.SourceRow(i))
		}
		y[i] = vals[c]
	}
	return y, nil
}

// SameClass reports whether two class names name the same class: equal,
// or numbers of equal value ("1", "+1" and "1.0" are one class, as
// LIBSVM files spell it either way).
func SameClass(a, b string) bool {
	if a == b {
		return true
	}
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	return err1 == nil && err2 == nil && x == y
}

// ClassIndex returns the index in d.Classes of the class name (SameClass),
// or −1.
func (d *Dataset) ClassIndex(name string) int {
	for c, n := range d.Classes {
		if SameClass(n, name) {
			return c
		}
	}
	return -1
}

// ClassesError is the error of a binary task asked of data whose classes
// do not say which is positive: more than two, or one that is not −1, 0
// or 1. The caller names its way to choose.
type ClassesError struct {
	Name    string
	Classes []string
}

func (e *ClassesError) Error() string {
	return fmt.Sprintf("%v: %s has %d classes (%s): a binary task needs a positive class", ErrData, e.Name, len(e.Classes), quoteList(e.Classes, 6))
}

// Unwrap returns ErrData.
func (e *ClassesError) Unwrap() error { return ErrData }

// PositiveClass returns the class a binary task labels +1. A positive
// given must be a class of d. Without one, of two classes it is the
// second in the canonical order (the larger number of −1/1 and 0/1, as
// the ±1 labels of the paper's data read); data of one class that is a
// number −1, 0 or 1 (a few test points) has the positive class "1". Other
// data is a *ClassesError.
func (d *Dataset) PositiveClass(positive string) (string, error) {
	if !d.Labelled() {
		return "", fmt.Errorf("%w: %s", ErrNoLabels, d.Name)
	}
	if positive != "" {
		if d.ClassIndex(positive) < 0 {
			return "", fmt.Errorf("%w: %s has no class %q (its classes: %s)", ErrData, d.Name, positive, quoteList(d.Classes, 20))
		}
		return positive, nil
	}
	switch len(d.Classes) {
	case 2:
		return d.Classes[1], nil
	case 1:
		if v, err := strconv.ParseFloat(d.Classes[0], 64); err == nil && (v == -1 || v == 0 || v == 1) {
			return "1", nil
		}
	}
	return "", &ClassesError{d.Name, d.Classes}
}

// Binary returns the ±1 labels of the task "class positive against the
// rest": +1 for the examples of positive (SameClass), −1 for the others.
func (d *Dataset) Binary(positive string) []float64 {
	pos := make([]bool, len(d.Classes))
	for c, n := range d.Classes {
		pos[c] = SameClass(n, positive)
	}
	y := make([]float64, len(d.Y))
	for i, c := range d.Y {
		y[i] = -1
		if pos[c] {
			y[i] = 1
		}
	}
	return y
}

// KeepClasses returns the examples of d whose class is one of names
// (SameClass), in their order, with only those classes; a name that is not
// a class of d is an error.
func (d *Dataset) KeepClasses(names []string) (*Dataset, error) {
	if !d.Labelled() {
		return nil, fmt.Errorf("%w: %s", ErrNoLabels, d.Name)
	}
	keep := make([]bool, len(d.Classes))
	for _, n := range names {
		c := d.ClassIndex(n)
		if c < 0 {
			return nil, fmt.Errorf("%w: %s has no class %q (its classes: %s)", ErrData, d.Name, n, quoteList(d.Classes, 20))
		}
		keep[c] = true
	}
	var idx []int
	labels := []string{}
	for i, c := range d.Y {
		if keep[c] {
			idx = append(idx, i)
			labels = append(labels, d.Classes[c])
		}
	}
	if len(idx) == 0 {
		return nil, fmt.Errorf("%w: %s has no example of the classes %s", ErrData, d.Name, quoteList(names, 20))
	}
	s := d.Subset(idx)
	s.Classes, s.Y = classIndex(labels)
	return s, nil
}

// quoteList returns up to max names quoted and comma-separated, and how
// many more there are.
func quoteList(names []string, max int) string {
	var b strings.Builder
	for i, n := range names {
		if i == max {
			fmt.Fprintf(&b, ", … %d more", len(names)-max)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(n))
	}
	return b.String()
}
