package dataset

import (
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// TestTargetsFirstBadRow checks that Targets names the first example, in
// row order, whose label is not a finite number (not the first such class
// in class order), with its data row in the source.
func TestTargetsFirstBadRow(t *testing.T) {
	d := FromLabels(linalg.New[float64](5, 1), []string{"1", "x", "2", "Inf", "NaN"})
	d.Rows = []int{0, 3, 4, 6, 7} // rows 1, 2 and 5 of the source were dropped
	_, err := d.Targets()
	if err == nil || !strings.Contains(err.Error(), `label "x" of example 1 is not a finite number (data row 3)`) {
		t.Errorf("error %v, want the label \"x\" of example 1, data row 3", err)
	}
}
