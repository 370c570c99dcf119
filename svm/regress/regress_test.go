package regress

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/classify"
	"github.com/ntksvm/ntksvm/svm/dataset"
)

// wave returns n examples of d features and the target
// 3 + 2·sin(x₀) + x₁² + noise·N(0, 1), deterministically.
func wave(n, d int, noise float64, seed uint64) (linalg.Matrix[float64], []float64) {
	g := ntk.NewNormal(seed)
	x := linalg.New[float64](n, d)
	y := make([]float64, n)
	for i := range n {
		row := x.Row(i)
		for j := range row {
			row[j] = g.Float64()
		}
		y[i] = 3 + 2*math.Sin(row[0]) + row[1]*row[1] + noise*g.Float64()
	}
	return x, y
}

// onePoint returns a grid of one point.
func onePoint(depth int, bs, c, eps float64) Grid {
	return Grid{Grid: classify.Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{depth}, BiasStds: []float64{bs}, Cs: []float64{c}},
		Epsilons: []float64{eps}}
}

// TestKRRIsCholesky checks the KRR regressor's predictions against a
// direct solve of (K + I/C)α = (y − ȳ)/s on the standardised inputs.
func TestKRRIsCholesky(t *testing.T) {
	ctx := context.Background()
	x, y := wave(60, 3, 0.1, 1)
	xt, _ := wave(17, 3, 0.1, 2)
	const c = 10.0
	r := New(Options{Machine: KRR, Grid: onePoint(2, 0.5, c, 0)})
	if err := r.Fit(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	got, err := r.Predict(ctx, xt)
	if err != nil {
		t.Fatal(err)
	}
	sc := dataset.FitScaler(x)
	xs, _ := sc.Apply(x)
	xts, _ := sc.Apply(xt)
	spec := ntk.Spec{Kind: ntk.KindNTK, Depth: 2, WeightStd: math.Sqrt2, BiasStd: 0.5}
	k, err := ntk.Gram(ctx, spec, xs, ntk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mean, std := classify.MeanStd(y)
	a := linalg.New[float64](len(y), len(y))
	b := linalg.New[float64](len(y), 1)
	for i := range len(y) {
		copy(a.Row(i), k.Row(i))
		a.Set(i, i, a.At(i, i)+1/c)
		b.Set(i, 0, (y[i]-mean)/std)
	}
	if err := linalg.SolveSPD(a, b); err != nil {
		t.Fatal(err)
	}
	kt, err := ntk.Cross(ctx, spec, xts, xs, ntk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range xt.Rows {
		var s float64
		for j := range len(y) {
			s += kt.At(i, j) * b.At(j, 0)
		}
		want := mean + std*s
		if math.Abs(got[i]-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("prediction %d = %.15g, direct solve %.15g", i, got[i], want)
		}
	}
	if r.SupportVectors() != len(y) {
		t.Errorf("KRR keeps %d of %d points", r.SupportVectors(), len(y))
	}
}

// TestSVRKKT checks the KKT conditions of the ε-SVR the regressor fits, on
// its own training outputs: residual inside the tube → α = 0, outside →
// |α| = C with the residual's sign, strictly inside the box → on the tube's
// edge; and Σα = 0 (the bias's constraint).
func TestSVRKKT(t *testing.T) {
	ctx := context.Background()
	x, y := wave(80, 3, 0.3, 3)
	const c, eps, tol = 3.0, 0.1, 1e-9
	r := New(Options{Machine: SVR, Grid: onePoint(1, 0, c, eps), Tol: tol})
	if err := r.Fit(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	g, err := r.Decision(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	// α of every training point: the model keeps the nonzero ones, in
	// training order, with their standardised inputs.
	xs, _ := dataset.FitScaler(x).Apply(x)
	alpha := make([]float64, len(y))
	next := 0
	for i := range xs.Rows {
		if next < r.sv.Rows && slicesEqual(xs.Row(i), r.sv.Row(next)) {
			alpha[i] = r.alpha[next]
			next++
		}
	}
	if next != r.sv.Rows {
		t.Fatalf("matched %d of %d support vectors", next, r.sv.Rows)
	}
	var sum float64
	free, bound := 0, 0
	for i, a := range alpha {
		sum += a
		res := (y[i]-r.Target.Mean)/r.Target.Scale - g[i]
		const slack = 1e-6
		switch {
		case math.Abs(res) < eps-slack && a != 0:
			t.Errorf("point %d: residual %g inside the tube but α = %g", i, res, a)
		case math.Abs(res) > eps+slack && math.Abs(math.Abs(a)-c) > 1e-9*c:
			t.Errorf("point %d: residual %g outside the tube but α = %g (C = %g)", i, res, a, c)
		case math.Abs(res) > eps+slack && a*res < 0:
			t.Errorf("point %d: residual %g, α = %g of the other sign", i, res, a)
		case a != 0 && math.Abs(a) < c*(1-1e-9) && math.Abs(math.Abs(res)-eps) > slack:
			t.Errorf("point %d: free α = %g but residual %g off the tube's edge ε = %g", i, a, res, eps)
		}
		if a != 0 && math.Abs(a) < c*(1-1e-9) {
			free++
		} else if a != 0 {
			bound++
		}
	}
	if math.Abs(sum) > 1e-9*c {
		t.Errorf("Σα = %g, want 0", sum)
	}
	if free == 0 || bound == 0 {
		t.Errorf("%d free and %d bound support vectors: the test wants both kinds", free, bound)
	}
}

func slicesEqual(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// TestCVMatchesDirectFolds checks the cross-validated squared errors of
// KRR against fits on each fold's training rows done directly.
func TestCVMatchesDirectFolds(t *testing.T) {
	ctx := context.Background()
	x, y := wave(45, 2, 0.2, 5)
	folds := make([]int, len(y))
	for i := range folds {
		folds[i] = (i * 7) % 3
	}
	g := onePoint(1, 0.5, 0.1, 0)
	g.Cs = []float64{10, 0.1} // walked in increasing C, reported in grid order
	g.Depths = []int{1, 3}
	r := New(Options{Machine: KRR, Grid: g, FoldOf: folds, NoStandardize: true, Select: classify.SelectBest})
	if err := r.Fit(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	if len(r.CV.Scores) != 4 {
		t.Fatalf("%d scores, want 4", len(r.CV.Scores))
	}
	for _, s := range r.CV.Scores {
		for f := range 3 {
			var tr, va []int
			for i, h := range folds {
				if h == f {
					va = append(va, i)
				} else {
					tr = append(tr, i)
				}
			}
			xtr, xva := rows(x, tr), rows(x, va)
			ytr := make([]float64, len(tr))
			for k, i := range tr {
				ytr[k] = y[i]
			}
			sub := New(Options{Machine: KRR, Grid: onePoint(s.Depth, s.BiasStd, s.C, 0), NoStandardize: true})
			// The CV scales the targets with all the training rows, the
			// direct fit with the fold's: fit the fold on the same scale.
			sub.opts.NoTargetScaling = true
			mean, std := classify.MeanStd(y)
			z := make([]float64, len(ytr))
			for k, v := range ytr {
				z[k] = (v - mean) / std
			}
			if err := sub.Fit(ctx, xtr, z); err != nil {
				t.Fatal(err)
			}
			p, err := sub.Predict(ctx, xva)
			if err != nil {
				t.Fatal(err)
			}
			var mse float64
			for k, i := range va {
				d := mean + std*p[k] - y[i]
				mse += d * d
			}
			mse /= float64(len(va))
			if math.Abs(s.Folds[f]-mse) > 1e-9*mse {
				t.Errorf("depth %d, C %g, fold %d: CV MSE %.12g, direct %.12g", s.Depth, s.C, f, s.Folds[f], mse)
			}
		}
	}
	best := 0
	for i, s := range r.CV.Scores {
		if s.Mean < r.CV.Scores[best].Mean {
			best = i
		}
	}
	if r.CV.Chosen != best {
		t.Errorf("chose %d, the lowest MSE is %d", r.CV.Chosen, best)
	}
}

func rows(x linalg.Matrix[float64], idx []int) linalg.Matrix[float64] {
	m := linalg.New[float64](len(idx), x.Cols)
	for k, i := range idx {
		copy(m.Row(k), x.Row(i))
	}
	return m
}

// TestFitPredictsWell checks, with the default grid trimmed, that both
// machines learn the wave: test R² well above 0.
func TestFitPredictsWell(t *testing.T) {
	ctx := context.Background()
	x, y := wave(120, 3, 0.1, 7)
	xt, yt := wave(60, 3, 0.1, 8)
	for _, m := range []Machine{KRR, SVR} {
		g := DefaultGrid()
		g.Depths, g.BiasStds = []int{1, 2}, []float64{0, 1}
		r := New(Options{Machine: m, Grid: g})
		if err := r.Fit(ctx, x, y); err != nil {
			t.Fatal(err)
		}
		met, err := r.Score(ctx, xt, yt)
		if err != nil {
			t.Fatal(err)
		}
		if met.R2 < 0.8 {
			t.Errorf("%s: test R² %.3f (RMSE %.3f), want ≥ 0.8", m, met.R2, met.RMSE)
		}
		if want := len(g.Points(m)); len(r.CV.Scores) != want {
			t.Errorf("%s: %d scores for %d grid points", m, len(r.CV.Scores), want)
		}
	}
}

func TestSaveLoad(t *testing.T) {
	ctx := context.Background()
	x, y := wave(50, 3, 0.2, 9)
	for _, m := range []Machine{KRR, SVR} {
		r := New(Options{Machine: m, Grid: onePoint(2, 1, 3, 0.1), UnitNorm: true})
		if err := r.Fit(ctx, x, y); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := r.Save(&buf); err != nil {
			t.Fatal(err)
		}
		raw := bytes.Clone(buf.Bytes())
		r2, err := Load(&buf)
		if err != nil {
			t.Fatal(err)
		}
		p1, _ := r.Predict(ctx, x)
		p2, err := r2.Predict(ctx, x)
		if err != nil {
			t.Fatal(err)
		}
		for i := range p1 {
			if p1[i] != p2[i] {
				t.Fatalf("%s: prediction %d %v after loading, %v before", m, i, p2[i], p1[i])
			}
		}
		if r2.Machine != m || r2.C != 3 || r2.Kernel != r.Kernel {
			t.Errorf("%s: loaded %s C=%g %v", m, r2.Machine, r2.C, r2.Kernel)
		}
		// A classifier refuses it, and the regressor refuses a classifier.
		mod, _ := svm.ReadModel(bytes.NewReader(raw))
		if _, err := classify.FromModel(mod); err == nil {
			t.Errorf("%s: classify.FromModel accepted a regression model", m)
		}
	}
	xc := linalg.New[float64](6, 1)
	labels := []string{"a", "b", "a", "b", "a", "b"}
	for i := range 6 {
		xc.Set(i, 0, float64(i%2)+0.1*float64(i))
	}
	c := classify.New(classify.Options{Grid: classify.Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{1}, BiasStds: []float64{0}, Cs: []float64{1}}})
	if err := c.Fit(ctx, xc, labels); err != nil {
		t.Fatal(err)
	}
	mc, _ := c.Model()
	if _, err := FromModel(mc); !errors.Is(err, svm.ErrModel) {
		t.Errorf("FromModel of a classifier: %v, want ErrModel", err)
	}
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	x, y := wave(30, 2, 0.1, 11)
	for _, tc := range []struct {
		name string
		edit func(y []float64, o *Options)
		want string
	}{
		{"NaN target", func(y []float64, o *Options) { y[4] = math.NaN() }, "example 4 is NaN"},
		{"Inf target", func(y []float64, o *Options) { y[7] = math.Inf(-1) }, "example 7 is -Inf"},
		{"constant", func(y []float64, o *Options) {
			for i := range y {
				y[i] = 2.5
			}
		}, "constant"},
		{"negative ε", func(y []float64, o *Options) { o.Grid = onePoint(1, 0, 1, -0.1) }, "ε -0.1"},
		{"no ε", func(y []float64, o *Options) { o.Grid = onePoint(1, 0, 1, 0); o.Grid.Epsilons = nil }, "no ε"},
		{"more folds than rows", func(y []float64, o *Options) {
			o.Folds = 31
			o.Grid = onePoint(1, 0, 1, 0.1)
			o.Grid.Cs = []float64{1, 2}
		}, "fewer than the 31 folds"},
		{"negative tolerance", func(y []float64, o *Options) { o.Tol = -1 }, "tolerance"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			yy := append([]float64(nil), y...)
			o := Options{Grid: onePoint(1, 0, 1, 0.1)}
			tc.edit(yy, &o)
			err := New(o).Fit(ctx, x, yy)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	r := New(Options{})
	if _, err := r.Predict(ctx, x); err == nil {
		t.Error("Predict on an unfitted regressor: no error")
	}
}

func TestTargetsAndDetect(t *testing.T) {
	x := linalg.New[float64](3, 1)
	for _, tc := range []struct {
		labels  []string
		detect  bool
		wantErr string
	}{
		{[]string{"1.5", "2", "-3e2"}, false, ""},
		{[]string{"1.5", "Inf", "2"}, false, `label "Inf" of example 1 is not a finite number (data row 1)`},
		{[]string{"1.5", "cat", "2"}, false, `label "cat" of example 1 is not a finite number (data row 1)`},
	} {
		d := dataset.FromLabels(x, tc.labels)
		y, err := d.Targets()
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, dataset.ErrData) {
				t.Errorf("%q: error %v, want %q", tc.labels, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range tc.labels {
			if want, _ := strconv.ParseFloat(l, 64); y[i] != want {
				t.Errorf("%q: target %d = %v", tc.labels, i, y[i])
			}
		}
		if reg, _ := Detect(d); reg != tc.detect {
			t.Errorf("%q: Detect %v", tc.labels, reg)
		}
	}
	// More than MinDistinct numbers is a regression; as many is not.
	for _, n := range []int{MinDistinct, MinDistinct + 1} {
		xs := linalg.New[float64](n, 1)
		labels := make([]string, n)
		for i := range labels {
			labels[i] = strings.Repeat("1", i+1)
		}
		reg, distinct := Detect(dataset.FromLabels(xs, labels))
		if reg != (n > MinDistinct) || distinct != n {
			t.Errorf("%d distinct numbers: Detect %v, %d", n, reg, distinct)
		}
	}
}

func TestEvaluate(t *testing.T) {
	m := Evaluate([]float64{1, 2, 4}, []float64{1, 3, 2})
	// Errors 0, −1, 2: MSE 5/3, MAE 1; ȳ = 2, SST = 2.
	if math.Abs(m.RMSE-math.Sqrt(5.0/3)) > 1e-15 || m.MAE != 1 || math.Abs(m.R2-(1-5.0/2)) > 1e-15 {
		t.Errorf("%+v", m)
	}
	if m := Evaluate([]float64{1, 2}, []float64{3, 3}); !math.IsNaN(m.R2) {
		t.Errorf("R² of a constant target %v, want NaN", m.R2)
	}
}

// TestMemoryBound checks that a cross-validation whose Gram and folds do
// not fit Options.MaxBytes is refused before it starts, and that one
// computed kernel by kernel (the Grams of every depth do not fit) scores
// as the one from the ladder.
func TestMemoryBound(t *testing.T) {
	ctx := context.Background()
	x, y := wave(40, 2, 0.1, 13)
	g := onePoint(1, 0, 1, 0.1)
	g.Depths, g.Cs = []int{1, 3}, []float64{0.1, 10}
	err := New(Options{Grid: g, MaxBytes: 10_000, Threads: 1}).Fit(ctx, x, y)
	if err == nil || !strings.Contains(err.Error(), "more than the") {
		t.Errorf("error %v, want the memory refusal", err)
	}
	a, b := New(Options{Grid: g, Threads: 1}), New(Options{Grid: g, Threads: 1, MaxBytes: 60_000})
	if err := a.Fit(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	if err := b.Fit(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	for i, s := range a.CV.Scores {
		if s.Mean != b.CV.Scores[i].Mean {
			t.Errorf("point %d: MSE %v from the ladder, %v kernel by kernel", i, s.Mean, b.CV.Scores[i].Mean)
		}
	}
}
