package svm

import (
	"math"
	"testing"
)

func TestLossValues(t *testing.T) {
	for _, tc := range []struct {
		loss       Loss
		z, y       float64
		val, deriv float64
	}{
		{Hinge, 0.5, 1, 0.5, -1},
		{Hinge, 1, 1, 0, 0}, // strict indicator at the margin
		{Hinge, 2, -1, 3, 1},
		{Hinge, 3, 1, 0, 0},
		{SquaredHinge, 0.5, 1, 0.25, -1},
		{SquaredHinge, -1, -1, 0, 0},
		{SquaredHinge, 1, -1, 4, 4},
		{Squared, 3, 1, 4, 4},
		{Squared, -1, 1, 4, -4},
		{EpsInsensitiveLoss(0.5), 2, 1, 0.5, 1},
		{EpsInsensitiveLoss(0.5), 0, 1, 0.5, -1},
		{EpsInsensitiveLoss(0.5), 1.2, 1, 0, 0},
		{Logistic, 0, 1, math.Ln2, -0.5},
		{Logistic, 0, -1, math.Ln2, 0.5},
		{Logistic, 1000, 1, 0, 0},      // e^{-1000} underflows cleanly
		{Logistic, -1000, 1, 1000, -1}, // no overflow
		{Logistic, 1000, -1, 1000, 1},
		{Logistic, 800, -1, 800, 1},
	} {
		v, d := tc.loss.Value(tc.z, tc.y), tc.loss.Deriv(tc.z, tc.y)
		if math.Abs(v-tc.val) > 1e-12*max(1, math.Abs(tc.val)) || math.Abs(d-tc.deriv) > 1e-12 {
			t.Errorf("%v at z=%g y=%g: value %g deriv %g, want %g %g", tc.loss, tc.z, tc.y, v, d, tc.val, tc.deriv)
		}
	}
}

// TestLossDerivFiniteDiff checks Deriv against central differences away
// from the kinks.
func TestLossDerivFiniteDiff(t *testing.T) {
	losses := []Loss{Hinge, SquaredHinge, Squared, EpsInsensitiveLoss(0.3), Logistic}
	for _, l := range losses {
		for _, y := range []float64{-1, 1} {
			for z := -3.0; z <= 3; z += 0.173 {
				const h = 1e-6
				fd := (l.Value(z+h, y) - l.Value(z-h, y)) / (2 * h)
				if d := l.Deriv(z, y); math.Abs(fd-d) > 1e-5 {
					t.Errorf("%v z=%g y=%g: Deriv %g, finite difference %g", l, z, y, d, fd)
				}
			}
		}
	}
}

func TestParseLoss(t *testing.T) {
	for _, name := range []string{"hinge", "squared-hinge", "squared", "eps-insensitive", "logistic"} {
		l, err := ParseLoss(name)
		if err != nil || l.Name() != name || !l.Valid() {
			t.Errorf("ParseLoss(%q) = %v, %v", name, l, err)
		}
	}
	for _, bad := range []string{"", "Hinge", "l2", "squared_hinge"} {
		if _, err := ParseLoss(bad); err == nil {
			t.Errorf("ParseLoss(%q) did not fail", bad)
		}
	}
	if (Loss{}).Valid() || EpsInsensitiveLoss(-1).Valid() {
		t.Error("invalid losses report Valid")
	}
}
