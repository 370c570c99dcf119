package classify

import (
	"bytes"
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/internal/membudget"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm/ondemand"
)

// scaleData is 4 overlapping classes of 90 points in 12 dimensions, and
// 200 test points from the same distribution.
func scaleData() (x linalg.Matrix[float64], labels []string, test linalg.Matrix[float64]) {
	x, labels = blobs(4, 90, 12, 7)
	test, _ = blobs(4, 50, 12, 8)
	return x, labels, test
}

// onePoint is a grid of one point.
func onePoint(c float64) Grid {
	return Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{2}, BiasStds: []float64{0.5}, Cs: []float64{c}}
}

// smallBudget returns a budget under which a fit of o on n points of d
// features cannot hold the dense Gram and caches at most maxRows rows of
// the on-demand one (PlanFit's accounting, inverted).
func smallBudget(t *testing.T, o Options, n, d, nclass, maxRows int) int64 {
	t.Helper()
	for b := int64(64 << 10); b < 1<<30; b += b / 16 {
		o.MemBudget = b
		p, err := o.PlanFit(n, d, nclass)
		if err != nil {
			continue
		}
		if p.Route == RouteDense {
			break
		}
		if p.Route == RouteOnDemand && p.Cache.CacheBytes/ondemand.RowBytes[float64](n) > int64(maxRows) {
			break
		}
		return b
	}
	t.Fatalf("no budget forces the on-demand route with at most %d cached rows", maxRows)
	return 0
}

// TestOnDemandMatchesDense fits one-vs-one and one-vs-rest SVMs and svm2
// with a budget that forces the on-demand Gram (a cache of under a
// quarter of the rows, so rows are evicted and recomputed) and compares
// them with the dense fit. Both run svm.SolveDual with the same
// configuration on Grams that agree to rounding (ntk.Prepared's rows
// against ntk.Gram, ~1e-15 relative), so SMO takes the same path unless a
// rounding difference flips a comparison of its working-set selection; on
// these data none does, and the decision values (of order 1) agree to
// about 1e-14. The test allows 1e-6: far above the rounding, far below
// what a different path to SMO's KKT tolerance of 1e-3 gives (about
// 1e-3), so it fails if the on-demand kernel or the views are wrong
// anywhere the solver reads. Predictions may differ only on test points
// whose dense decision is within that tolerance of a boundary. The fit is
// also run on 1 and 2 threads: the models are bit-identical.
func TestOnDemandMatchesDense(t *testing.T) {
	ctx := context.Background()
	x, labels, test := scaleData()
	for _, tc := range []struct {
		name     string
		m        Machine
		s        Scheme
		rowsOnly bool // else the one-vs-one pairs fit dense Grams of their own
	}{
		{"svm ovo pairs", SVM, OneVsOne, false},
		{"svm ovo rows", SVM, OneVsOne, true},
		{"svm ovr", SVM, OneVsRest, false},
		{"svm2 ovo pairs", SVM2, OneVsOne, false},
		{"svm2 ovo rows", SVM2, OneVsOne, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := Options{Machine: tc.m, Scheme: tc.s, Grid: onePoint(10), rowsOnly: tc.rowsOnly}
			dense := New(base)
			if err := dense.Fit(ctx, x, labels); err != nil {
				t.Fatal(err)
			}
			if dense.Plan.Route != RouteDense {
				t.Fatalf("no budget: route %v", dense.Plan.Route)
			}
			o := base
			o.MemBudget = smallBudget(t, o, x.Rows, x.Cols, 4, x.Rows/4)
			if !tc.rowsOnly && tc.s == OneVsOne {
				o.MemBudget = 4 << 20 // the pairs' Grams (~0.6 MB each) fit, the dense Gram and its solvers' caches not
			}
			var models [2][]byte
			var od *Classifier
			for k, threads := range []int{1, 2} {
				linalg.SetThreads(threads)
				o.Threads = threads
				var pairs, rows bool
				o.Progress = func(p ScaleProgress) {
					pairs = pairs || p.Detail == "pairs"
					rows = rows || p.Rows > 0
				}
				od = New(o)
				err := od.Fit(ctx, x, labels)
				linalg.SetThreads(0)
				if err != nil {
					t.Fatal(err)
				}
				if od.Plan.Route != RouteOnDemand {
					t.Fatalf("budget %d: route %v", o.MemBudget, od.Plan.Route)
				}
				if wantPairs := tc.s == OneVsOne && !tc.rowsOnly; pairs != wantPairs || rows == wantPairs {
					t.Fatalf("sub-problems on their own Grams: %v, on the shared Gram's rows: %v; want %v, %v", pairs, rows, wantPairs, !wantPairs)
				}
				var b bytes.Buffer
				if err := od.Save(&b); err != nil {
					t.Fatal(err)
				}
				models[k] = b.Bytes()
			}
			if !bytes.Equal(models[0], models[1]) {
				t.Error("the on-demand models on 1 and 2 threads differ")
			}
			compareDecisions(t, ctx, dense, od, test, 1e-6)
		})
	}
}

// compareDecisions checks that b's decision values on z are within tol of
// a's and that their predictions differ only where a's decisions are
// within tol of a boundary.
func compareDecisions(t *testing.T, ctx context.Context, a, b *Classifier, z linalg.Matrix[float64], tol float64) {
	t.Helper()
	da, err := a.Decision(ctx, z)
	if err != nil {
		t.Fatal(err)
	}
	db, err := b.Decision(ctx, z)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i := range da.Data {
		worst = max(worst, math.Abs(da.Data[i]-db.Data[i]))
	}
	if worst > tol {
		t.Errorf("decision values differ by up to %.3g, want ≤ %g", worst, tol)
	}
	pa, _ := a.PredictIndex(ctx, z)
	pb, _ := b.PredictIndex(ctx, z)
	for i := range pa {
		if pa[i] == pb[i] {
			continue
		}
		near := false
		for _, v := range da.Row(i) {
			near = near || math.Abs(v) <= tol
		}
		if a.mm.scheme == OneVsRest {
			near = near || math.Abs(da.At(i, pa[i])-da.At(i, pb[i])) <= 2*tol
		}
		if !near {
			t.Errorf("test point %d: class %d dense, %d on demand, decisions %v", i, pa[i], pb[i], da.Row(i))
		}
	}
	t.Logf("largest decision difference %.3g", worst)
}

// TestFalkonMatchesKRR fits KRR at scale with every point a centre: the
// Nyström KRR is then the exact KRR, and the decision values equal the
// dense fit's to 1e-8 (relative to their size; the CG stops at a relative
// residual of 1e-10). The model is the same on 1 and 2 threads, and a
// saved and loaded model predicts the same.
func TestFalkonMatchesKRR(t *testing.T) {
	ctx := context.Background()
	x, labels, test := scaleData()
	n := x.Rows
	base := Options{Machine: KRR, Grid: onePoint(10)}
	dense := New(base)
	if err := dense.Fit(ctx, x, labels); err != nil {
		t.Fatal(err)
	}
	o := base
	o.Centres, o.AtScale = n, true
	var models [2][]byte
	var fk *Classifier
	for k, threads := range []int{1, 2} {
		linalg.SetThreads(threads)
		fk = New(o)
		err := fk.Fit(ctx, x, labels)
		linalg.SetThreads(0)
		if err != nil {
			t.Fatal(err)
		}
		if fk.Plan.Route != RouteFalkon || fk.Plan.Centres != n {
			t.Fatalf("plan %+v, want Falkon with %d centres", fk.Plan, n)
		}
		var b bytes.Buffer
		if err := fk.Save(&b); err != nil {
			t.Fatal(err)
		}
		models[k] = b.Bytes()
	}
	if !bytes.Equal(models[0], models[1]) {
		t.Error("the Falkon models on 1 and 2 threads differ")
	}
	da, _ := dense.Decision(ctx, test)
	loaded, err := Load(bytes.NewReader(models[0]))
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := loaded.Model(); m.Solver != "falkon" {
		t.Errorf("solver %q, want falkon", m.Solver)
	}
	dl, err := loaded.Decision(ctx, test)
	if err != nil {
		t.Fatal(err)
	}
	scale, worst := 0.0, 0.0
	for i, v := range da.Data {
		scale = max(scale, math.Abs(v))
		worst = max(worst, math.Abs(v-dl.Data[i]))
	}
	t.Logf("largest decision difference %.3g (scale %.3g)", worst, scale)
	if worst > 1e-8*scale {
		t.Errorf("Falkon with M = n: decisions differ from the exact KRR by %.3g (scale %.3g), want ≤ 1e-8 relative", worst, scale)
	}
}

// TestFalkonFewCentres: with fewer centres than points Falkon still
// classifies the well-separated test data about as well as the exact KRR.
func TestFalkonFewCentres(t *testing.T) {
	ctx := context.Background()
	x, labels, test := scaleData()
	_, tl, _ := scaleData()
	truth := tl[:0:0]
	for c := range 4 {
		for range 50 {
			truth = append(truth, string(rune('a'+c)))
		}
	}
	for _, lev := range []bool{false, true} {
		c := New(Options{Machine: KRR, Grid: onePoint(10), Centres: 120, Leverage: lev, AtScale: true})
		if err := c.Fit(ctx, x, labels); err != nil {
			t.Fatal(err)
		}
		if c.SupportVectors() != 120 {
			t.Errorf("leverage %v: %d centres kept, want 120", lev, c.SupportVectors())
		}
		pred, err := c.Predict(ctx, test)
		if err != nil {
			t.Fatal(err)
		}
		right := 0
		for i, p := range pred {
			if p == truth[i] {
				right++
			}
		}
		if acc := float64(right) / float64(len(pred)); acc < 0.85 {
			t.Errorf("leverage %v: test accuracy %.3f with 120 centres", lev, acc)
		}
	}
}

// TestScaleRefusals: a budget that holds not even the smallest on-demand
// plan is refused before the fit with what it needs; a grid of several
// points past the dense Gram is refused with ErrGridTooLarge.
func TestScaleRefusals(t *testing.T) {
	ctx := context.Background()
	x, labels, _ := scaleData()
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"svm", Options{Grid: onePoint(1), MemBudget: 200 << 10}, "the SMO on an on-demand Gram of 360 points"},
		{"krr", Options{Machine: KRR, Grid: onePoint(1), MemBudget: 200 << 10}, "Falkon on 360 points with 4 outputs"},
		{"krr centres", Options{Machine: KRR, Grid: onePoint(1), Centres: 350, MemBudget: 1 << 20}, "Falkon with M = 350 centres on 360 points"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(tc.o)
			err := c.Fit(ctx, x, labels)
			var ne *membudget.NeedError
			if !errors.As(err, &ne) || !strings.Contains(err.Error(), tc.want) || ne.Need <= ne.Budget || ne.Budget != tc.o.MemBudget {
				t.Fatalf("err = %v, want a NeedError naming %q", err, tc.want)
			}
			// The need is what the plan asks for: with it as the budget the fit runs.
			o := tc.o
			o.MemBudget = ne.Need
			if _, err := o.PlanFit(x.Rows, x.Cols, 4); err != nil {
				t.Errorf("with the need %d as budget: %v", ne.Need, err)
			}
		})
	}
	c := New(Options{Grid: Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{1, 2}, BiasStds: []float64{0}, Cs: []float64{1}}, MemBudget: 1 << 20})
	if err := c.Fit(ctx, x, labels); !errors.Is(err, ErrGridTooLarge) || !strings.Contains(err.Error(), "one grid point") {
		t.Errorf("a grid of 2 points past the budget: %v", err)
	}
}

// TestScaleCancel: cancelling the context stops a fit at scale with the
// context's error.
func TestScaleCancel(t *testing.T) {
	x, labels, _ := scaleData()
	for _, m := range []Machine{SVM, KRR} {
		ctx, cancel := context.WithCancel(context.Background())
		o := Options{Machine: m, Grid: onePoint(10), Centres: 200, AtScale: true}
		o.Progress = func(p ScaleProgress) {
			if p.Done >= 1 {
				cancel()
			}
		}
		err := New(o).Fit(ctx, x, labels)
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%v: err = %v, want context.Canceled", m, err)
		}
	}
}

// TestHoldout chooses between two grid points at scale on a validation
// split: every point is scored once, on the held-out share, and the
// chosen one is refitted on all the data (its support vectors index the
// whole training set). A share outside (0, 1) is refused.
func TestHoldout(t *testing.T) {
	ctx := context.Background()
	x, labels, _ := scaleData()
	g := Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{1, 2}, BiasStds: []float64{0.5}, Cs: []float64{0.01, 10}}
	var stages []string
	o := Options{Grid: g, AtScale: true, Holdout: 0.25, Select: SelectBest, Progress: func(p ScaleProgress) {
		if p.Stage == "validation" {
			stages = append(stages, p.Detail)
		}
	}}
	c := New(o)
	if err := c.Fit(ctx, x, labels); err != nil {
		t.Fatal(err)
	}
	if c.CV == nil || len(c.CV.Scores) != 4 || c.CV.Folds != 1 || !strings.Contains(c.CV.Rule, "validation split") || len(stages) != 4 {
		t.Fatalf("CV = %+v, stages %q", c.CV, stages)
	}
	best := c.CV.Scores[c.CV.Chosen]
	for _, s := range c.CV.Scores {
		if s.Mean > best.Mean || len(s.Folds) != 1 || s.Mean <= 0 || s.Mean > 1 {
			t.Errorf("score %+v, chosen %+v", s, best)
		}
	}
	if c.Kernel.Depth != best.Depth || c.C != best.C || !strings.Contains(stages[0], "270 training and 90 validation") {
		t.Errorf("refit at depth %d, C %g; chose %+v; %q", c.Kernel.Depth, c.C, best, stages[0])
	}
	// The refit is the one-point fit at the chosen point on all the data.
	one := New(Options{Grid: Grid{Kinds: g.Kinds, Depths: []int{best.Depth}, BiasStds: g.BiasStds, Cs: []float64{best.C}}, AtScale: true})
	if err := one.Fit(ctx, x, labels); err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	c.Save(&a)
	one.Save(&b)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the refit differs from a one-point fit at the chosen point")
	}
	for _, h := range []float64{-0.1, 1, math.NaN()} {
		o.Holdout = h
		if err := New(o).Fit(ctx, x, labels); err == nil || !strings.Contains(err.Error(), "validation share") {
			t.Errorf("holdout %v: %v", h, err)
		}
	}
}

// TestPairsAndRows fits one-vs-one with unequal classes under a budget
// in which the pairs of small classes fit dense Grams of their own and
// the pairs with the large class do not: both routes run in one fit, and
// the model equals the dense fit's to rounding.
func TestPairsAndRows(t *testing.T) {
	ctx := context.Background()
	x, labels := blobs(4, 240, 12, 9)
	var keep []int
	for i, l := range labels {
		if l == "a" || i%240 < 60 {
			keep = append(keep, i)
		}
	}
	xs := linalg.New[float64](len(keep), x.Cols)
	ls := make([]string, len(keep))
	for r, i := range keep {
		copy(xs.Row(r), x.Row(i))
		ls[r] = labels[i]
	}
	test, _ := blobs(4, 30, 12, 10)
	base := Options{Grid: onePoint(10)}
	dense := New(base)
	if err := dense.Fit(ctx, xs, ls); err != nil {
		t.Fatal(err)
	}
	o := base
	var mixed bool
	for b := int64(256 << 10); b < 32<<20 && !mixed; b += b / 8 {
		o.MemBudget = b
		p, err := o.PlanFit(xs.Rows, xs.Cols, 4)
		if err != nil || p.Route != RouteOnDemand {
			continue
		}
		units, _ := binaryUnits(classIndex(t, ls), nil, OneVsOne)
		pairs, _ := splitPairs[float64](units, xs.Cols, p.PairBytes, 2)
		mixed = len(pairs) > 0 && len(pairs) < len(units)
	}
	if !mixed {
		t.Fatal("no budget fits some pairs' Grams but not all")
	}
	var pairs, rows bool
	o.Progress = func(p ScaleProgress) {
		pairs = pairs || p.Detail == "pairs"
		rows = rows || p.Rows > 0
	}
	od := New(o)
	if err := od.Fit(ctx, xs, ls); err != nil {
		t.Fatal(err)
	}
	if !pairs || !rows {
		t.Fatalf("pairs on their own Grams: %v, on the shared Gram's rows: %v; want both", pairs, rows)
	}
	compareDecisions(t, ctx, dense, od, test, 1e-6)
}

// classIndex returns the indices of each class of labels, classes in
// order of first appearance.
func classIndex(t *testing.T, labels []string) [][]int {
	t.Helper()
	pos := map[string]int{}
	var by [][]int
	for i, l := range labels {
		c, ok := pos[l]
		if !ok {
			c = len(by)
			pos[l] = c
			by = append(by, nil)
		}
		by[c] = append(by[c], i)
	}
	return by
}

// TestEigenProMatchesKRR fits KRR by EigenPro on all the points: after
// enough epochs its decision values are the dense fit's to 1e-4 (relative
// to their size), the model says so and predicts the same once saved and
// loaded, and the classes are the argmax of the outputs.
func TestEigenProMatchesKRR(t *testing.T) {
	ctx := context.Background()
	x, labels, test := scaleData()
	base := Options{Machine: KRR, Grid: onePoint(10), Float32: true}
	dense := New(base)
	if err := dense.Fit(ctx, x, labels); err != nil {
		t.Fatal(err)
	}
	o := base
	o.Solver, o.Epochs = SolverEigenPro, 60
	ep := New(o)
	if err := ep.Fit(ctx, x, labels); err != nil {
		t.Fatal(err)
	}
	if ep.Plan.Route != RouteEigenPro {
		t.Fatalf("plan %+v, want EigenPro", ep.Plan)
	}
	var b bytes.Buffer
	if err := ep.Save(&b); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(&b)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := loaded.Model(); m.Solver != "eigenpro" {
		t.Errorf("solver %q, want eigenpro", m.Solver)
	}
	da, err := dense.Decision(ctx, test)
	if err != nil {
		t.Fatal(err)
	}
	dl, err := loaded.Decision(ctx, test)
	if err != nil {
		t.Fatal(err)
	}
	scale, worst := 0.0, 0.0
	for i, v := range da.Data {
		scale = max(scale, math.Abs(v))
		worst = max(worst, math.Abs(v-dl.Data[i]))
	}
	t.Logf("largest decision difference %.3g (scale %.3g)", worst, scale)
	if worst > 1e-4*scale {
		t.Errorf("EigenPro's decision values differ from the dense KRR's by %.3g (scale %.3g)", worst, scale)
	}
	pd, err := dense.Predict(ctx, test)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := loaded.Predict(ctx, test)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pd, pl) {
		t.Error("EigenPro's classes differ from the dense KRR's")
	}
}
