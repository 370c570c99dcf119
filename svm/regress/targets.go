package regress

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ntksvm/ntksvm/svm/dataset"
)

// MinDistinct is the detection rule's threshold: a label column of numbers
// with more distinct values than this is taken for a regression target
// (see Detect). Class labels written as numbers rarely have more than a
// score of classes; a measured quantity has about as many values as rows.
const MinDistinct = 20

// Targets returns the labels of d as numbers (d holds them as class names,
// see package dataset). A label that is not a number, NaN or infinite is
// an error naming its row (the 0-based data row of the source).
func Targets(d *dataset.Dataset) ([]float64, error) {
	vals := make([]float64, len(d.Classes))
	bad := make([]error, len(d.Classes))
	for c, name := range d.Classes {
		v, err := strconv.ParseFloat(strings.TrimSpace(name), 64)
		switch {
		case err != nil:
			bad[c] = fmt.Errorf("%q is not a number", name)
		case math.IsNaN(v) || math.IsInf(v, 0):
			bad[c] = fmt.Errorf("%q is not a finite number", name)
		}
		vals[c] = v
	}
	y := make([]float64, len(d.Y))
	for i, c := range d.Y {
		if bad[c] != nil {
			row := i
			if d.Rows != nil {
				row = d.Rows[i]
			}
			return nil, fmt.Errorf("%w: %s: data row %d: the regression target %v", dataset.ErrData, d.Source, row, bad[c])
		}
		y[i] = vals[c]
	}
	return y, nil
}

// Detect reports whether the labels of d look like a regression target:
// every label parses as a number and there are more than MinDistinct
// distinct ones. It returns the number of distinct labels too, for the
// message that says which way it went.
func Detect(d *dataset.Dataset) (regression bool, distinct int) {
	for _, name := range d.Classes {
		if _, err := strconv.ParseFloat(strings.TrimSpace(name), 64); err != nil {
			return false, len(d.Classes)
		}
	}
	return len(d.Classes) > MinDistinct, len(d.Classes)
}
