package output

import (
	"math"
	"strconv"
)

// Num is a float64 that is written to JSON as null when it is NaN or ±Inf
// (an accuracy of a regression loss, a test loss without test points), so
// that summaries stay valid JSON.
type Num float64

// MarshalJSON writes n as the shortest decimal that reads back exactly, or
// null.
func (n Num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON reads a number, or null as NaN.
func (n *Num) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Num(math.NaN())
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	*n = Num(f)
	return err
}

// MaxNum is the larger of a and b, ignoring a NaN b (a missing value, such
// as the gap on an empty test set) unless a is 0, its starting value; a
// NaN a gives way to b.
func MaxNum(a, b Num) Num {
	if math.IsNaN(float64(b)) {
		if a == 0 {
			return b
		}
		return a
	}
	if math.IsNaN(float64(a)) || b > a {
		return b
	}
	return a
}
