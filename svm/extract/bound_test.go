package extract

import (
	"math"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// TestConfidenceTerm is Lemma B.2's constant 3c√(ln(2/δ)/(2n)) at the
// authors' δ = 0.99 and the stated δ = 0.01, and the union-bound version
// with δ/41 (the default grid's 41 levels).
func TestConfidenceTerm(t *testing.T) {
	for _, c := range []struct {
		n           int
		delta, want float64
	}{
		{1000, 0.99, 0.05625},
		{1000, 0.01, 0.15441},
		{128, 0.99, 0.15723},
		{128, 0.01, 0.43159},
		{1000, 0.01 / 41, 3 * math.Sqrt(math.Log(2*41/0.01)/2000)},
	} {
		if got := ConfidenceTerm(1, c.delta, c.n); math.Abs(got-c.want) > 5e-6 {
			t.Errorf("n = %d, δ = %g: %.6f, want %.5f", c.n, c.delta, got, c.want)
		}
	}
	// The union bound's added cost at n = 1000, δ = 0.01:
	// 3(√((ln 200 + ln 41)/2000) − √(ln 200/2000)) = 0.04697.
	got := ConfidenceTerm(1, 0.01/41, 1000) - ConfidenceTerm(1, 0.01, 1000)
	if math.Abs(got-0.04697) > 5e-5 {
		t.Errorf("union-bound increment %.5f, want 0.04697", got)
	}
}

func TestGridNorm(t *testing.T) {
	for _, c := range []struct{ b, want float64 }{
		{0, 0.25}, {0.25, 0.25}, {0.26, 0.5}, {3, 4}, {4, 4}, {4.01, math.Inf(1)},
	} {
		if got := GridNorm(c.b, 0.25, 5); got != c.want {
			t.Errorf("GridNorm(%g): %g, want %g", c.b, got, c.want)
		}
	}
}

// TestGeneralizationBound checks the arithmetic on a 4×4 kernel by hand.
func TestGeneralizationBound(t *testing.T) {
	k, _ := linalg.FromSlice(4, 4, []float64{
		2, 0, 0, 1, // asymmetric: only (K+Kᵀ)/2 enters aᵀKa
		0, 2, 0, 0,
		0, 0, 2, 0,
		-1, 0, 0, 2,
	})
	a := []float64{1, -1, 1, -1}
	y := []float64{1, -1, 1, -1}
	out := []float64{2, -0.5, 0, 3} // hinge 0, 0.5, 1, 4 → ramp 0, 0.5, 1, 1
	g, err := GeneralizationBound(k, a, out, y, BoundConfig{GridMin: 1, GridLevels: 3})
	if err != nil {
		t.Fatal(err)
	}
	B := math.Sqrt(8)
	R := B / 4 * math.Sqrt(8)
	conf := 3 * math.Sqrt(math.Log(2/0.01)/8)
	gconf := 3 * math.Sqrt(math.Log(2*3/0.01)/8)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"QuadForm", g.QuadForm, 8}, {"B", g.RKHSNorm, B}, {"Trace", g.Trace, 8},
		{"Rademacher", g.Rademacher, R}, {"Loss", g.Loss, 2.5 / 4}, {"Confidence", g.Confidence, conf},
		{"Value", g.Value, 2.5/4 + 2*R + conf},
		{"GridB", g.GridB, 4}, {"GridConfidence", g.GridConfidence, gconf},
		{"GridValue", g.GridValue, 2.5/4 + 2*(4.0/4*math.Sqrt(8)) + gconf},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", c.name, c.got, c.want)
		}
	}
	// Authors' code: unclipped hinge, δ = 0.99, asymmetric K_auth = g_j K⁰
	// with K⁰ = K/s, s = 1/4.
	ga, err := GeneralizationBound(k, a, out, y, BoundConfig{AuthorsCode: true})
	if err != nil {
		t.Fatal(err)
	}
	var q, tr float64
	for i := range 4 {
		tr += -a[i] * k.At(i, i) * 4
		for j := range 4 {
			q += -a[j] * k.At(i, j) * 4 / 16
		}
	}
	want := 5.5/4 + 2*math.Sqrt(q)*math.Sqrt(tr)/4 + ConfidenceTerm(1, 0.99, 4)
	if !(math.IsNaN(want) && math.IsNaN(ga.Value)) && math.Abs(ga.Value-want) > 1e-12 {
		t.Errorf("authors' bound %g, want %g (q = %g, tr = %g)", ga.Value, want, q, tr)
	}
	// Indefinite symmetric part: reported, bound NaN.
	kn, _ := linalg.FromSlice(2, 2, []float64{1, 0, 0, -1})
	gi, err := GeneralizationBound(kn, []float64{0, 1}, []float64{0, 0}, []float64{1, 1}, BoundConfig{})
	if err != nil || !gi.Indefinite || !math.IsNaN(gi.Value) {
		t.Errorf("indefinite kernel: %+v, %v", gi, err)
	}
	// Rounding below zero is clamped.
	kr, _ := linalg.FromSlice(2, 2, []float64{1, 1, 1, 1 - 1e-15})
	gr, err := GeneralizationBound(kr, []float64{1, -1}, []float64{0, 0}, []float64{1, 1}, BoundConfig{})
	if err != nil || gr.Indefinite || gr.RKHSNorm != 0 {
		t.Errorf("rounding: %+v, %v", gr, err)
	}
	for _, bad := range []BoundConfig{{Delta: 1}, {Delta: -0.1}, {Clip: -1}, {GridLevels: -1}, {GridMin: math.Inf(1)}} {
		if _, err := GeneralizationBound(k, a, out, y, bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if _, err := GeneralizationBound(k, a[:3], out, y, BoundConfig{}); err == nil {
		t.Error("short a: no error")
	}
}
