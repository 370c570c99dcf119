package classify

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
)

// blobs returns n points per class around k well-separated centres in d
// dimensions, with a little overlap, deterministically.
func blobs(k, n, d int, seed uint64) (linalg.Matrix[float64], []string) {
	g := ntk.NewNormal(seed)
	x := linalg.New[float64](k*n, d)
	var labels []string
	for c := range k {
		for i := range n {
			row := x.Row(c*n + i)
			for j := range row {
				row[j] = g.Float64()
				if j == c%d {
					row[j] += 3
				}
			}
			labels = append(labels, string(rune('a'+c)))
		}
	}
	return x, labels
}

func TestViewMatchesDense(t *testing.T) {
	x, _ := blobs(3, 10, 4, 1)
	k, err := ntk.Gram(context.Background(), ntk.Spec{Depth: 2, WeightStd: 1}, x, ntk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	idx := []int{3, 0, 17, 29, 8}
	v := &view[float64]{k: k, rows: idx, cols: idx}
	sub := linalg.New[float64](len(idx), len(idx))
	for r, i := range idx {
		for c, j := range idx {
			sub.Set(r, c, k.At(i, j))
		}
	}
	d := svm.NewDense(sub)
	xv := []float64{0.5, 0, -2, 0, 1}
	got, want := make([]float64, 5), make([]float64, 5)
	v.MulVec(got, xv)
	d.MulVec(want, xv)
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
			t.Errorf("MulVec[%d] = %v, dense %v", i, got[i], want[i])
		}
	}
	clear(got)
	clear(want)
	v.AddRows(got, []int{1, 4}, []float64{2, -1})
	d.AddRows(want, []int{1, 4}, []float64{2, -1})
	v.RowTo(xv, 2)
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) || xv[i] != sub.At(2, i) || v.At(2, i) != sub.At(2, i) {
			t.Errorf("AddRows/RowTo/At differ at %d", i)
		}
	}
}

func TestVoting(t *testing.T) {
	mm := &multi{scheme: OneVsOne, classes: 3, units: []unit{{pos: 0, neg: 1}, {pos: 0, neg: 2}, {pos: 1, neg: 2}}}
	votes := make([]int, 3)
	for _, tc := range []struct {
		dec  []float64
		want int
	}{
		{[]float64{1, 1, 1}, 0},
		{[]float64{-1, 1, 1}, 1},
		{[]float64{-1, -1, -1}, 2},
		{[]float64{1, -1, 1}, 0}, // one vote each: the first class wins, as in libsvm
		{[]float64{0, 0, 0}, 2},  // a zero decision votes for the second class
	} {
		if got := mm.class(tc.dec, votes); got != tc.want {
			t.Errorf("decisions %v: class %d, want %d", tc.dec, got, tc.want)
		}
	}
	ovr := &multi{scheme: OneVsRest, classes: 3, units: []unit{{pos: 0, neg: -1}, {pos: 1, neg: -1}, {pos: 2, neg: -1}}}
	if got := ovr.class([]float64{0.5, 2, 2}, votes); got != 1 {
		t.Errorf("one-vs-rest tie: class %d, want 1", got)
	}
}

func TestStratifiedFolds(t *testing.T) {
	y := []int{0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2}
	f, err := StratifiedFolds(y, 3, 4, 7)
	if err != nil {
		t.Fatal(err)
	}
	for c := range 3 {
		count := make([]int, 4)
		for i, yi := range y {
			if yi == c {
				count[f[i]]++
			}
		}
		if slices.Max(count)-slices.Min(count) > 1 {
			t.Errorf("class %d spread over folds as %v", c, count)
		}
	}
	// Classes smaller than the folds are placed as they can be: each of
	// their examples in a fold of its own.
	small := []int{0, 0, 0, 0, 1, 1, 2}
	f, err = StratifiedFolds(small, 3, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f[4] == f[5] {
		t.Errorf("the two examples of class 1 share fold %d", f[4])
	}
	w := SmallClasses(small, 3, 3, []string{"x", "y", "z"})
	want := []string{`class "y" has 2 examples, fewer than the 3 folds`, `class "z" has 1 example, fewer than the 3 folds`}
	if len(w) != len(want) {
		t.Fatalf("warnings %q, want %q", w, want)
	}
	for i := range w {
		if !strings.HasPrefix(w[i], want[i]) {
			t.Errorf("warning %q, want %q…", w[i], want[i])
		}
	}
}

// TestSmallClasses: a class with fewer examples than folds (two, one)
// is warned of by name and count and the cross-validation goes on, for
// every machine and scheme; a fit whose training part lacks a class
// never predicts it (its validation examples count as errors), and the
// units with the class's side empty decide for the other side.
func TestSmallClasses(t *testing.T) {
	x, labels := blobs(3, 20, 4, 21)
	xs := linalg.New[float64](x.Rows+3, x.Cols)
	copy(xs.Data, x.Data)
	for i := x.Rows; i < xs.Rows; i++ {
		copy(xs.Row(i), x.Row(i-x.Rows)) // near class a's points
	}
	labels = append(labels, "d", "d", "e")
	grid := Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{1}, BiasStds: []float64{0}, Cs: []float64{1, 10}}
	for _, o := range []Options{{Grid: grid}, {Grid: grid, Scheme: OneVsRest}, {Grid: grid, Machine: KRR}, {Grid: grid, Machine: SVM2}} {
		var warned []string
		o.Warn = func(s string) { warned = append(warned, s) }
		c := New(o)
		if err := c.Fit(context.Background(), xs, labels); err != nil {
			t.Fatalf("%v %v: %v", o.Machine, o.Scheme, err)
		}
		if len(warned) != 2 || !strings.Contains(warned[0], `class "d" has 2 examples, fewer than the 4 folds`) ||
			!strings.Contains(warned[1], `class "e" has 1 example, fewer than the 4 folds`) {
			t.Errorf("%v %v: warnings %q", o.Machine, o.Scheme, warned)
		}
	}
	// A fold without class e (4) and d (3) in its training part.
	k, err := ntk.Gram(context.Background(), ntk.Spec{Depth: 1, WeightStd: 1}, xs, ntk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	y := make([]int, len(labels))
	for i, l := range labels {
		y[i] = int(l[0] - 'a')
	}
	train := identity(x.Rows)
	val := []int{0, 20, 40, x.Rows, x.Rows + 1, x.Rows + 2}
	for _, m := range []struct {
		m Machine
		s Scheme
	}{{SVM, OneVsOne}, {SVM, OneVsRest}, {KRR, OneVsRest}} {
		mm, err := fitMulti(context.Background(), k, train, y, 5, m.m, m.s, 1, 1, nil, 0, nil, nil)
		if err != nil {
			t.Fatalf("%v %v: %v", m.m, m.s, err)
		}
		dec, votes := make([]float64, len(mm.units)), make([]int, 5)
		for _, i := range val {
			decide(mm, dec, k.Row(i))
			if got := mm.class(dec, votes); got >= 3 {
				t.Errorf("%v %v: point %d predicted as class %d, which the training part lacks", m.m, m.s, i, got)
			}
		}
		if acc := accuracy(mm, k, val, y, 5, linalg.Matrix[float64]{}); acc > 0.5+1e-12 {
			t.Errorf("%v %v: accuracy %g on 3 points of the classes seen and 3 of the classes missing, want ≤ 0.5", m.m, m.s, acc)
		}
	}
}

func TestFitPredictSaveLoad(t *testing.T) {
	x, labels := blobs(4, 25, 5, 3)
	xt, lt := blobs(4, 25, 5, 4)
	for _, o := range []Options{
		{},
		{Scheme: OneVsRest, Select: SelectBest},
		{Machine: SVM2, Grid: Grid{Kinds: []ntk.Kind{ntk.KindNNGP}, Depths: []int{0, 2}, BiasStds: []float64{0, 0.5}, Cs: []float64{0.1, 10}}},
		{Machine: KRR, Grid: Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{3}, BiasStds: []float64{0}, Cs: []float64{1}}},
		{UnitNorm: true, Select: SelectBest},
		{NoStandardize: true, UnitNorm: true, Grid: Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{2}, BiasStds: []float64{0.5}, Cs: []float64{10}}},
	} {
		c := New(o)
		if err := c.Fit(context.Background(), x, labels); err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		pred, err := c.Predict(context.Background(), xt)
		if err != nil {
			t.Fatal(err)
		}
		right := 0
		for i := range pred {
			if pred[i] == lt[i] {
				right++
			}
		}
		if acc := float64(right) / float64(len(pred)); acc < 0.9 {
			t.Errorf("%+v: test accuracy %.2f on separated blobs", o, acc)
		}
		var buf bytes.Buffer
		if err := c.Save(&buf); err != nil {
			t.Fatal(err)
		}
		c2, err := Load(&buf)
		if err != nil {
			t.Fatal(err)
		}
		d1, _ := c.Decision(context.Background(), xt)
		d2, err := c2.Decision(context.Background(), xt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d1.Data, d2.Data) || c2.Kernel != c.Kernel || !slices.Equal(c2.Classes, c.Classes) {
			t.Errorf("%+v: the loaded model decides differently", o)
		}
		if _, err := c2.Predict(context.Background(), linalg.New[float64](2, 4)); err == nil || !strings.Contains(err.Error(), "4 features, the model was trained on 5") {
			t.Errorf("wrong width: %v", err)
		}
	}
}

// TestUnitNorm checks that UnitNorm fits the examples scaled to the norm
// √d, at training and at prediction: the fit equals a fit on rows
// normalised beforehand, and rescaling test rows changes nothing.
func TestUnitNorm(t *testing.T) {
	x, labels := blobs(3, 20, 4, 5)
	xt, _ := blobs(3, 10, 4, 6)
	norm := func(m linalg.Matrix[float64], by func(i int) float64) linalg.Matrix[float64] {
		out := linalg.New[float64](m.Rows, m.Cols)
		for i := range m.Rows {
			ss := 0.0
			for _, v := range m.Row(i) {
				ss += v * v
			}
			for j, v := range m.Row(i) {
				out.Set(i, j, v*by(i)/math.Sqrt(ss))
			}
		}
		return out
	}
	two := func(int) float64 { return 2 }                    // norm 2 = √4
	odd := func(i int) float64 { return 0.3 + float64(i%7) } // any positive scale per row
	grid := Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{2}, BiasStds: []float64{0}, Cs: []float64{3}}
	ctx := context.Background()
	c := New(Options{NoStandardize: true, UnitNorm: true, Grid: grid})
	if err := c.Fit(ctx, x, labels); err != nil {
		t.Fatal(err)
	}
	ref := New(Options{NoStandardize: true, Grid: grid})
	if err := ref.Fit(ctx, norm(x, two), labels); err != nil {
		t.Fatal(err)
	}
	d, err := c.Decision(ctx, xt)
	if err != nil {
		t.Fatal(err)
	}
	dref, _ := ref.Decision(ctx, norm(xt, two))
	dodd, _ := c.Decision(ctx, norm(xt, odd))
	draw, _ := ref.Decision(ctx, xt)
	far := 0.0
	for i := range d.Data {
		if e := math.Abs(d.Data[i] - dref.Data[i]); e > 1e-9*max(1, math.Abs(dref.Data[i])) {
			t.Fatalf("decision %d: %v with UnitNorm, %v on rows normalised first", i, d.Data[i], dref.Data[i])
		}
		if e := math.Abs(d.Data[i] - dodd.Data[i]); e > 1e-9*max(1, math.Abs(d.Data[i])) {
			t.Fatalf("decision %d: %v, %v on the rows rescaled", i, d.Data[i], dodd.Data[i])
		}
		far = max(far, math.Abs(d.Data[i]-draw.Data[i]))
	}
	if far < 1e-3 {
		t.Errorf("the reference decides the raw rows as the normalised ones (%v): the test cannot tell", far)
	}
}

func TestDeterministicAcrossThreads(t *testing.T) {
	x, labels := blobs(3, 20, 4, 5)
	var first *CVResult
	var firstDec []float64
	for _, th := range []int{1, 2, 5} {
		c := New(Options{Threads: th, Grid: Grid{Kinds: []ntk.Kind{ntk.KindNTK, ntk.KindNNGP}, Depths: []int{1, 2}, BiasStds: []float64{0}, Cs: []float64{0.1, 1, 10}}})
		if err := c.Fit(context.Background(), x, labels); err != nil {
			t.Fatal(err)
		}
		d, _ := c.Decision(context.Background(), x)
		if first == nil {
			first, firstDec = c.CV, d.Data
			continue
		}
		for i, s := range c.CV.Scores {
			if !slices.Equal(s.Folds, first.Scores[i].Folds) {
				t.Fatalf("threads %d: CV scores differ at %d", th, i)
			}
		}
		if !slices.Equal(d.Data, firstDec) {
			t.Fatalf("threads %d: decisions differ", th)
		}
	}
}

func TestFitErrors(t *testing.T) {
	x, labels := blobs(2, 6, 3, 9)
	one := make([]string, len(labels))
	for i := range one {
		one[i] = "z"
	}
	for _, tc := range []struct {
		name   string
		labels []string
		o      Options
		want   string
	}{
		{"one class", one, Options{}, "needs two or more"},
		{"fewer examples than folds", labels, Options{Folds: 13}, "12 examples, fewer than the 13 folds"},
		{"bad grid", labels, Options{Grid: Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{1}, BiasStds: []float64{0}, Cs: []float64{-1}}}, "C -1"},
		{"label count", labels[:3], Options{}, "3 labels for 12 examples"},
	} {
		err := New(tc.o).Fit(context.Background(), x, tc.labels)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestParseGridValues(t *testing.T) {
	d, err := ParseDepths("0,2-4")
	if err != nil || !slices.Equal(d, []int{0, 2, 3, 4}) {
		t.Errorf("depths: %v %v", d, err)
	}
	v, err := ParseValues("1e-2:1e4:7", false)
	if err != nil || !slices.Equal(v, []float64{0.01, 0.1, 1, 10, 100, 1000, 10000}) {
		t.Errorf("log grid: %v %v", v, err)
	}
	for _, bad := range []string{"1-", "5-2", "x", "-1"} {
		if _, err := ParseDepths(bad); err == nil {
			t.Errorf("depths %q accepted", bad)
		}
	}
	for _, bad := range []string{"0", "1:0.1:3", "1,NaN", "1:10:0"} {
		if _, err := ParseValues(bad, false); err == nil {
			t.Errorf("values %q accepted", bad)
		}
	}
}

func TestRepeatsPoolFolds(t *testing.T) {
	x, labels := blobs(3, 12, 3, 11)
	grid := Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{1}, BiasStds: []float64{0}, Cs: []float64{0.1, 1}}
	c := New(Options{Grid: grid, Repeats: 3, Folds: 3})
	if err := c.Fit(context.Background(), x, labels); err != nil {
		t.Fatal(err)
	}
	one := New(Options{Grid: grid, Folds: 3})
	if err := one.Fit(context.Background(), x, labels); err != nil {
		t.Fatal(err)
	}
	if c.CV.Folds != 9 || len(c.CV.Scores[0].Folds) != 9 || !slices.Equal(c.CV.Scores[0].Folds[:3], one.CV.Scores[0].Folds) {
		t.Errorf("repeated CV: %d folds, scores %v (one run %v)", c.CV.Folds, c.CV.Scores[0].Folds, one.CV.Scores[0].Folds)
	}
}
