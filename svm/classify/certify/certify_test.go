package certify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/ibp"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/classify"
)

// blobs returns n points of three classes in 2-D around three centres, in
// units of very different size (x about 10, y about 0.5), so that the
// model's standardisation matters for radii in these units.
func blobs(rng *rand.Rand, n int) (linalg.Matrix[float64], []string) {
	x, labels := linalg.New[float64](n, 2), make([]string, n)
	centres := [][2]float64{{0, 0}, {10, 0.2}, {5, 1}}
	for i := range n {
		c := i % 3
		x.Set(i, 0, centres[c][0]+3*rng.NormFloat64())
		x.Set(i, 1, centres[c][1]+0.15*rng.NormFloat64())
		labels[i] = []string{"a", "b", "c"}[c]
	}
	return x, labels
}

// fit fits a classifier on one grid point.
func fit(t *testing.T, mach classify.Machine, sch classify.Scheme, depth int, sb float64, unit bool) (*classify.Classifier, linalg.Matrix[float64]) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	x, labels := blobs(rng, 150)
	c := classify.New(classify.Options{Machine: mach, Scheme: sch, UnitNorm: unit,
		Grid: classify.Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{depth}, BiasStds: []float64{sb}, Cs: []float64{10}}})
	if err := c.Fit(context.Background(), x, labels); err != nil {
		t.Fatal(err)
	}
	test, _ := blobs(rng, 30)
	return c, test
}

// rays returns m directions of unit length in norm: the boundary of the
// unit square (ℓ∞) or circle (ℓ2), evenly spread.
func rays(norm ibp.Norm, m int) [][2]float64 {
	out := make([][2]float64, m)
	for k := range out {
		a := 2 * math.Pi * float64(k) / float64(m)
		p := [2]float64{math.Cos(a), math.Sin(a)}
		if norm == ibp.Linf {
			s := max(math.Abs(p[0]), math.Abs(p[1]))
			p[0], p[1] = p[0]/s, p[1]/s
		}
		out[k] = p
	}
	return out
}

// flipRadius searches densely for the nearest point around x0 (in norm)
// where c predicts another class than cls: along m rays, the first of the
// radii rmax·k/steps where the prediction changes, refined by bisection
// between it and the radius before (keeping a changed point at the upper
// end). The result is the distance of a point where the prediction has
// changed, so never below the true radius; Inf if none was found.
func flipRadius(t *testing.T, c *classify.Classifier, x0 []float64, cls int, norm ibp.Norm, rmax float64) float64 {
	t.Helper()
	const m, steps = 240, 200
	dirs := rays(norm, m)
	pts := linalg.New[float64](m*steps, 2)
	for k, p := range dirs {
		for s := range steps {
			r := rmax * float64(s+1) / steps
			pts.Set(k*steps+s, 0, x0[0]+r*p[0])
			pts.Set(k*steps+s, 1, x0[1]+r*p[1])
		}
	}
	pred, err := c.PredictIndex(context.Background(), pts)
	if err != nil {
		t.Fatal(err)
	}
	best := math.Inf(1)
	for k, p := range dirs {
		for s := range steps {
			if pred[k*steps+s] == cls {
				continue
			}
			lo, hi := rmax*float64(s)/steps, rmax*float64(s+1)/steps
			for range 30 {
				mid := (lo + hi) / 2
				q, _ := linalg.FromSlice(1, 2, []float64{x0[0] + mid*p[0], x0[1] + mid*p[1]})
				if pr, _ := c.PredictIndex(context.Background(), q); pr[0] == cls {
					lo = mid
				} else {
					hi = mid
				}
			}
			best = min(best, hi)
			break
		}
	}
	return best
}

// TestBruteForce2D compares certified radii with a dense search for the
// nearest change of prediction on a 2-D three-class problem: a certified
// radius is never above the distance of a point where the prediction
// changes, and not absurdly below it.
func TestBruteForce2D(t *testing.T) {
	if testing.Short() {
		t.Skip("dense search")
	}
	for _, tc := range []struct {
		mach  classify.Machine
		sch   classify.Scheme
		depth int
		sb    float64
		unit  bool
		tight bool
	}{
		{classify.SVM, classify.OneVsOne, 1, 0, false, false},
		{classify.SVM, classify.OneVsRest, 1, 0, false, false},
		{classify.SVM, classify.OneVsOne, 2, 0.5, false, false},
		{classify.SVM, classify.OneVsOne, 2, 0.5, false, true},
		{classify.KRR, classify.OneVsRest, 3, 1, false, false},
		{classify.SVM, classify.OneVsRest, 2, 0.5, true, false},
	} {
		name := fmt.Sprintf("%v/%v/L=%d,sb=%g,unit=%v,tight=%v", tc.mach, tc.sch, tc.depth, tc.sb, tc.unit, tc.tight)
		t.Run(name, func(t *testing.T) {
			c, test := fit(t, tc.mach, tc.sch, tc.depth, tc.sb, tc.unit)
			idx := []int{0, 1, 2, 3}
			rs, bad, err := Certify(context.Background(), c, test, idx, Options{Verify: 50, Tight: tc.tight})
			if err != nil {
				t.Fatal(err)
			}
			if len(bad) > 0 {
				t.Fatalf("%d violations, the first %+v", len(bad), bad[0])
			}
			lo, hi := math.Inf(1), 0.0
			for _, r := range rs {
				for ni, norm := range []ibp.Norm{ibp.Linf, ibp.L2} {
					found := flipRadius(t, c, test.Row(r.Index), r.Class, norm, 30)
					cert := r.Radius[ni]
					lo, hi = min(lo, cert/found), max(hi, cert/found)
					if cert > found {
						t.Errorf("point %d %v: certified %v beyond a change of prediction at %v", r.Index, norm, cert, found)
					}
					// The interval bounds are loose (each training point's
					// term bounded alone: the paper's MNIST radii are
					// 10⁻⁵–10⁻²), but not by more than three orders of
					// magnitude here.
					if !(cert > found/5000) {
						t.Errorf("point %d %v: certified %v (%s), the nearest change found %v", r.Index, norm, cert, r.Reason, found)
					}
				}
			}
			t.Logf("certified radius / distance of the nearest change found: %.3g … %.3g", lo, hi)
		})
	}
}

// constModel returns a one-vs-one (or one-vs-rest) classifier of k classes
// on 2 features whose machines are constants: the biases given, no
// support vector weights.
func constModel(t *testing.T, scheme string, outs []svm.Output, k int) *classify.Classifier {
	t.Helper()
	classes := make([]string, k)
	for c := range classes {
		classes[c] = fmt.Sprintf("k%d", c)
	}
	x, _ := linalg.FromSlice(1, 2, []float64{1, 1})
	m := &svm.Model{Machine: "svm", Loss: "hinge", Lambda: 1, Objective: "sum", Solver: "smo", HasBias: true,
		Classes: classes, Scheme: scheme, Outputs: outs,
		Kernel: ntk.Spec{Kind: ntk.KindNTK, Depth: 1, WeightStd: math.Sqrt2},
		Train:  svm.TrainRef{Source: "test", N: 1, D: 2, Embedded: true}, Fit: svm.FitInfo{C: 1},
		Alpha: make([]float64, len(outs)), X: x}
	c, err := classify.FromModel(m)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// tournament returns the one-vs-one outputs of k classes where wins[a][b]
// says a beats b.
func tournament(k int, beats func(a, b int) bool) []svm.Output {
	var outs []svm.Output
	for a := range k {
		for b := a + 1; b < k; b++ {
			bias := -1.0
			if beats(a, b) {
				bias = 1
			}
			outs = append(outs, svm.Output{Pos: a, Neg: b, Bias: bias})
		}
	}
	return outs
}

// TestReasons checks the points that get radius 0 and why: a vote tie, a
// vote cycle, an exact tie of one-vs-rest decisions; and that a class that
// wins every pair is certified (here at every radius the search reaches).
func TestReasons(t *testing.T) {
	x, _ := linalg.FromSlice(1, 2, []float64{0.3, -0.2})
	for _, tc := range []struct {
		name   string
		c      *classify.Classifier
		reason string // "" when certified
	}{
		// 0 beats 1, 1 beats 2, 2 beats 0: one vote each.
		{"tie", constModel(t, "ovo", tournament(3, func(a, b int) bool { return a == 0 && b == 1 || a == 1 && b == 2 }), 3), "vote tie: k0 and k1, k2 win 1 of 2 pairs each (class order breaks it)"},
		// 0 beats 1, 2, 3 and loses to 4; 1 > 2 > 3 > 1 and each beats 4:
		// votes 3, 2, 2, 2, 1.
		{"cycle", constModel(t, "ovo", tournament(5, func(a, b int) bool {
			switch {
			case a == 0:
				return b != 4
			case b == 4:
				return true
			}
			return a == 1 && b == 2 || a == 2 && b == 3 // and 3 beats 1
		}), 5), "vote cycle: no class wins all its pairs (k0 wins 3 of 4)"},
		{"winner", constModel(t, "ovo", tournament(4, func(a, b int) bool { return a == 2 || (b != 2 && a < b) }), 4), ""},
		{"ovr tie", constModel(t, "ovr", []svm.Output{{Pos: 0, Neg: -1, Bias: 1}, {Pos: 1, Neg: -1, Bias: 1}, {Pos: 2, Neg: -1, Bias: 0}}, 3), "no margin over class k1 at the point itself (0)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, bad, err := Certify(context.Background(), tc.c, x, nil, Options{Verify: 4})
			if err != nil {
				t.Fatal(err)
			}
			r := rs[0]
			if r.Reason != tc.reason {
				t.Errorf("reason %q, want %q", r.Reason, tc.reason)
			}
			if (tc.reason == "") != (r.Radius[0] > 0 && r.Radius[1] > 0) {
				t.Errorf("radii %v with reason %q", r.Radius, r.Reason)
			}
			if len(bad) > 0 {
				t.Errorf("violations %+v", bad)
			}
		})
	}
}

// TestCertifyConsistent checks, on a fitted three-class model, that the
// margins at the points are those of the classifier's own decisions, that
// the blocks of MaxBytes and the thread count change no result, and that
// progress counts every certificate.
func TestCertifyConsistent(t *testing.T) {
	for _, sch := range []classify.Scheme{classify.OneVsOne, classify.OneVsRest} {
		c, test := fit(t, classify.SVM, sch, 2, 0.5, false)
		var calls, last int
		o := Options{Threads: 1, Progress: func(done, total int) {
			calls++
			if done < last || total != 2*test.Rows {
				t.Errorf("progress %d of %d after %d", done, total, last)
			}
			last = done
		}}
		rs, _, err := Certify(context.Background(), c, test, nil, o)
		if err != nil {
			t.Fatal(err)
		}
		if last != 2*test.Rows {
			t.Errorf("progress ended at %d of %d", last, 2*test.Rows)
		}
		dec, err := c.Decision(context.Background(), test)
		if err != nil {
			t.Fatal(err)
		}
		r := &run{mc: must(newMachines(must(c.Model())))}
		for _, res := range rs {
			want := r.margin(res.Class, dec.Row(res.Index))
			if res.Reason == "" && math.Abs(res.Margin-want) > 1e-9*(1+math.Abs(want)) {
				t.Errorf("%v point %d: margin %v, the classifier's %v", sch, res.Index, res.Margin, want)
			}
		}
		small, _, err := Certify(context.Background(), c, test, nil, Options{MaxBytes: 1, Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		for k := range rs {
			a, b := rs[k], small[k]
			if a.Index != b.Index || a.Class != b.Class || a.Reason != b.Reason || a.Radius[0] != b.Radius[0] || a.Radius[1] != b.Radius[1] {
				t.Errorf("%v point %d: %+v in one block, %+v one point at a time", sch, k, a, b)
			}
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestCertifyErrors(t *testing.T) {
	c, test := fit(t, classify.SVM, classify.OneVsOne, 1, 0, false)
	wide := linalg.New[float64](2, 3)
	if _, _, err := Certify(context.Background(), c, wide, nil, Options{}); err == nil || !strings.Contains(err.Error(), "3 features, the model was trained on 2") {
		t.Errorf("3 features: %v", err)
	}
	if _, _, err := Certify(context.Background(), c, test, []int{test.Rows}, Options{}); err == nil {
		t.Error("a point out of range: no error")
	}
	if _, _, err := Certify(context.Background(), c, test, []int{}, Options{}); !errors.Is(err, ibp.ErrNoPoints) {
		t.Errorf("no points: %v", err)
	}
	if _, _, err := Certify(context.Background(), c, test, nil, Options{Verify: -1}); err == nil {
		t.Error("Verify −1: no error")
	}
	if _, _, err := Certify(context.Background(), c, test, nil, Options{Search: ibp.SearchOptions{Hi: -1}}); err == nil {
		t.Error("a bad search: no error")
	}
	for _, spec := range []ntk.Spec{
		{Kind: ntk.KindNNGP, Depth: 2, WeightStd: 1},
		{Kind: ntk.KindNTK, Depth: 2, Fixed: 1, WeightStd: 1},
		{Kind: ntk.KindNTK, Depth: 0, WeightStd: 1},
	} {
		m := *must(c.Model())
		m.Kernel = spec
		other := must(classify.FromModel(&m))
		if _, _, err := Certify(context.Background(), other, test, nil, Options{}); !errors.Is(err, ErrKernel) {
			t.Errorf("%v: %v", spec, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Certify(ctx, c, test, nil, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
