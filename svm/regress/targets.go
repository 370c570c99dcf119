package regress

import (
	"strconv"
	"strings"

	"github.com/ntksvm/ntksvm/svm/dataset"
)

// MinDistinct is the detection rule's threshold: a label column of numbers
// with more distinct values than this is taken for a regression target
// (see Detect). Class labels written as numbers rarely have more than a
// score of classes; a measured quantity has about as many values as rows.
const MinDistinct = 20

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
