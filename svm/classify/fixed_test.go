package classify

import (
	"bytes"
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/ntk"
)

// TestGridKernels: the grid's kernels in order, with Fixed adding F =
// 1…L−1 for every depth, and the grid's size.
func TestGridKernels(t *testing.T) {
	ntkK, nngpK := ntk.KindNTK, ntk.KindNNGP
	for _, tc := range []struct {
		name string
		g    Grid
		want []GridKernel
	}{
		{"kinds", Grid{Kinds: []ntk.Kind{ntkK, nngpK}, Depths: []int{0, 2}},
			[]GridKernel{{ntkK, 0, 0}, {ntkK, 2, 0}, {nngpK, 0, 0}, {nngpK, 2, 0}}},
		{"fixed", Grid{Kinds: []ntk.Kind{ntkK}, Depths: []int{1, 3, 2}, Fixed: true},
			[]GridKernel{{ntkK, 1, 0}, {ntkK, 3, 0}, {ntkK, 2, 0}, {ntkK, 3, 1}, {ntkK, 3, 2}, {ntkK, 2, 1}}},
		{"fixed only", Grid{Depths: []int{0, 1, 3}, Fixed: true}, []GridKernel{{ntkK, 3, 1}, {ntkK, 3, 2}}},
		{"fixed, no depth ≥ 2", Grid{Depths: []int{0, 1}, Fixed: true}, nil},
	} {
		g := tc.g
		g.BiasStds, g.Cs = []float64{0, 1}, []float64{1, 10, 100}
		if got := g.Kernels(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: kernels %v, want %v", tc.name, got, tc.want)
		}
		if g.Size() != len(tc.want)*6 {
			t.Errorf("%s: size %d, want %d", tc.name, g.Size(), len(tc.want)*6)
		}
		if err := g.Validate(); (err == nil) != (len(tc.want) > 0) {
			t.Errorf("%s: Validate: %v", tc.name, err)
		} else if err != nil && !strings.Contains(err.Error(), "fixed layers need a depth ≥ 2") {
			t.Errorf("%s: Validate: %v does not say why", tc.name, err)
		}
	}
	if g := (&Options{Grid: Grid{Fixed: true}}).grid(); !g.Fixed || g.Size() != DefaultGrid().Size()*3 {
		t.Errorf("Grid{Fixed: true}: %+v, want the default grid with the fixed layers (3× its size)", g)
	}
}

func TestParseKernels(t *testing.T) {
	for _, tc := range []struct {
		in    string
		kinds []ntk.Kind
		fixed bool
	}{
		{"ntk", []ntk.Kind{ntk.KindNTK}, false},
		{"ntk,nngp,fixed", []ntk.Kind{ntk.KindNTK, ntk.KindNNGP}, true},
		{"fixed, nngp", []ntk.Kind{ntk.KindNNGP}, true},
		{"fixed", nil, true},
	} {
		k, f, err := ParseKernels(tc.in)
		if err != nil || !slices.Equal(k, tc.kinds) || f != tc.fixed {
			t.Errorf("%q: %v %v %v", tc.in, k, f, err)
		}
	}
	for _, bad := range []string{"rbf", "ntk,", "fixed2"} {
		if _, _, err := ParseKernels(bad); err == nil || !strings.Contains(err.Error(), "want ntk, nngp or fixed") {
			t.Errorf("%q: error %v", bad, err)
		}
	}
}

// TestFixedGridSearch: a grid with the fixed-layer NTKs scores them from
// one recursion pass per σ_b and F exactly as from their own Grams (the
// ladder against the kernel-by-kernel path), its table and chosen point
// carry F, the refitted model holds the fixed kernel, and the model read
// back decides as the fitted one.
func TestFixedGridSearch(t *testing.T) {
	ctx := context.Background()
	d := overlapping(3, 14, 4, 5)
	grid := Grid{Kinds: []ntk.Kind{ntk.KindNTK, ntk.KindNNGP}, Depths: []int{1, 3, 4}, BiasStds: []float64{0, 0.5}, Cs: []float64{0.1, 1, 10}, Fixed: true}
	ladder := New(Options{Grid: grid, Folds: 3})
	if err := ladder.FitDataset(ctx, d); err != nil {
		t.Fatal(err)
	}
	// MaxBytes below the ladder's and above one Gram's: each kernel's Gram
	// on its own.
	n := int64(d.N())
	single := New(Options{Grid: grid, Folds: 3, MaxBytes: 2 * n * n * 8})
	if err := single.FitDataset(ctx, d); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ladder.CV, single.CV) {
		t.Fatalf("the ladder's table differs from the kernels' own Grams:\n%+v\n%+v", ladder.CV, single.CV)
	}
	if want := 2 * (6 + 2 + 3) * 3; len(ladder.CV.Scores) != want {
		t.Fatalf("%d scores, want %d", len(ladder.CV.Scores), want)
	}
	fixed := 0
	for _, s := range ladder.CV.Scores {
		if s.Fixed > 0 {
			if s.Kind != ntk.KindNTK || s.Fixed >= s.Depth {
				t.Fatalf("score %+v: not a fixed-layer NTK of the grid", s)
			}
			fixed++
		}
	}
	if fixed != 2*(2+3)*3 {
		t.Fatalf("%d fixed-layer scores", fixed)
	}
	// Only fixed-layer kernels: the chosen model has F > 0 and keeps it.
	only := Grid{Depths: []int{3}, BiasStds: []float64{0.5}, Cs: []float64{1, 10}, Fixed: true}
	c := New(Options{Grid: only, Folds: 3, Select: SelectBest})
	if err := c.FitDataset(ctx, d); err != nil {
		t.Fatal(err)
	}
	ch := c.CV.Scores[c.CV.Chosen]
	if c.Kernel.Fixed != ch.Fixed || ch.Fixed == 0 || c.Kernel.Depth != 3 || c.C != ch.C {
		t.Fatalf("chosen %+v, model kernel %v C %g", ch.Point, c.Kernel, c.C)
	}
	var buf bytes.Buffer
	if err := c.Save(&buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte(`"fixed":`)) {
		t.Error("the model file does not name the fixed layers")
	}
	c2, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := c.Decision(ctx, d.X)
	d2, err := c2.Decision(ctx, d.X)
	if err != nil || c2.Kernel != c.Kernel || !slices.Equal(d1.Data, d2.Data) {
		t.Fatalf("loaded: kernel %v (fitted %v), %v", c2.Kernel, c.Kernel, err)
	}
	// The same point without fixed layers decides otherwise (the fixed
	// kernel is the one applied).
	plain := New(Options{Grid: Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{3}, BiasStds: []float64{0.5}, Cs: []float64{c.C}}})
	if err := plain.FitDataset(ctx, d); err != nil {
		t.Fatal(err)
	}
	if d3, _ := plain.Decision(ctx, d.X); slices.Equal(d1.Data, d3.Data) {
		t.Error("the fixed-layer model decides as the NTK")
	}
}

// TestFixedPlan: the tiled cross-validation of a grid with fixed layers
// gives Fit's table and model, and its fingerprint tells it from the grid
// without them.
func TestFixedPlan(t *testing.T) {
	ctx := context.Background()
	d := overlapping(3, 12, 4, 6)
	grid := Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{1, 3}, BiasStds: []float64{0.5}, Cs: []float64{0.1, 10}, Fixed: true}
	o := Options{Grid: grid, Folds: 3}
	ref := New(o)
	if err := ref.FitDataset(ctx, d); err != nil {
		t.Fatal(err)
	}
	p, err := New(o).PlanCV(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Kernels) != 4 || p.Kernels[2].Fixed != 1 || p.Kernels[3].Fixed != 2 || !slices.Equal(p.Spec.Kinds, []string{"ntk", "fixed"}) {
		t.Fatalf("plan kernels %v, kinds %v", p.Kernels, p.Spec.Kinds)
	}
	res, err := New(o).EvaluateCells(ctx, d, p, 0, len(p.Cells))
	if err != nil {
		t.Fatal(err)
	}
	got := New(o)
	if err := got.FitCells(ctx, d, p, res); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.CV, ref.CV) || !bytes.Equal(modelFile(t, got), modelFile(t, ref)) {
		t.Fatal("the cells' table or model differs from Fit's")
	}
	o.Grid.Fixed = false
	q, err := New(o).PlanCV(d)
	if err != nil {
		t.Fatal(err)
	}
	if q.Spec.Equal(&p.Spec) {
		t.Fatal("the plans with and without fixed layers have the same fingerprint")
	}
	if _, err := New(o).EvaluateCells(ctx, d, p, 0, 1); err == nil {
		t.Fatal("cells of the fixed-layer plan evaluated with options without them")
	}
}
