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
	"github.com/ntksvm/ntksvm/svm/dataset"
)

func TestParseClassWeights(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []ClassWeight
		bad  string
	}{
		{in: "none", want: []ClassWeight{NoClassWeight}},
		{in: "balanced", want: []ClassWeight{Balanced}},
		{in: "none,balanced", want: []ClassWeight{NoClassWeight, Balanced}},
		{in: "a=2, b = 0.5", want: []ClassWeight{"a=2,b=0.5"}},
		{in: "none,a=2,b=1e1,balanced", want: []ClassWeight{NoClassWeight, "a=2,b=10", Balanced}},
		{in: "x=y=3", want: []ClassWeight{"x=y=3"}},
		{in: "heavy", bad: "want none, balanced"},
		{in: "a=0", bad: "finite weight > 0"},
		{in: "a=-1", bad: "finite weight > 0"},
		{in: "a=NaN", bad: "finite weight > 0"},
		{in: "a=inf", bad: "finite weight > 0"},
		{in: "=2", bad: "CLASS=WEIGHT"},
		{in: "a=1,a=2", bad: "two weights"},
		{in: "none,none", bad: "listed twice"},
	} {
		got, err := ParseClassWeights(tc.in)
		if tc.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("%q: error %v, want one saying %q", tc.in, err, tc.bad)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q %v, want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestClassWeightValues: balanced is n/(k·n_c) over the training examples
// given; named weights go to their classes, the others weigh 1; a name
// that is not a class is an error naming it.
func TestClassWeightValues(t *testing.T) {
	classes := []string{"a", "b", "c"}
	y := []int{0, 0, 0, 0, 0, 0, 1, 1, 1, 2}
	all := identity(len(y))
	got, err := Balanced.weights(classes, y, all)
	if want := []float64{10.0 / 18, 10.0 / 9, 10.0 / 3}; err != nil || !slices.Equal(got, want) {
		t.Errorf("balanced: %v %v, want %v", got, err, want)
	}
	got, _ = Balanced.weights(classes, y, []int{0, 1, 6, 9}) // a training fold
	if want := []float64{4.0 / 6, 4.0 / 3, 4.0 / 3}; !slices.Equal(got, want) {
		t.Errorf("balanced on a fold: %v, want %v", got, want)
	}
	got, _ = ClassWeight("c=2.5").weights(classes, y, all)
	if want := []float64{1, 1, 2.5}; !slices.Equal(got, want) {
		t.Errorf("c=2.5: %v, want %v", got, want)
	}
	if got, err := NoClassWeight.weights(classes, y, all); got != nil || err != nil {
		t.Errorf("none: %v %v, want nil", got, err)
	}
	_, err = ClassWeight("a=1,zebra=2").weights(classes, y, all)
	if err == nil || !strings.Contains(err.Error(), `"zebra"`) {
		t.Errorf("unknown class: error %v, want one naming zebra", err)
	}
}

// TestClassWeightsRefused: Fit refuses, before any work, a weight for a
// class the data do not have and class weights for krr.
func TestClassWeightsRefused(t *testing.T) {
	d := overlapping(3, 10, 3, 4)
	one := Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{1}, BiasStds: []float64{0}, Cs: []float64{1}}
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Grid: withWeights(one, "a=2,q=1")}, `no class "q"`},
		{Options{Grid: withWeights(one, Balanced), Machine: KRR}, "not krr"},
	} {
		err := New(tc.o).FitDataset(context.Background(), d)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.o.Grid.ClassWeights, err, tc.want)
		}
		if _, err := New(tc.o).PlanCV(d); err == nil {
			t.Errorf("%+v: PlanCV accepted it", tc.o.Grid.ClassWeights)
		}
	}
}

func withWeights(g Grid, ws ...ClassWeight) Grid {
	g.ClassWeights = ws
	return g
}

// imbalanced returns three overlapping classes of 60, 12 and 6 examples
// in 3 dimensions: unit Gaussians whose means are 1 apart.
func imbalanced(seed uint64) *dataset.Dataset {
	g := ntk.NewNormal(seed)
	sizes := []int{60, 12, 6}
	x := linalg.New[float64](78, 3)
	var labels []string
	r := 0
	for c, n := range sizes {
		for range n {
			row := x.Row(r)
			for j := range row {
				row[j] = g.Float64()
			}
			row[c] += 1
			labels = append(labels, string(rune('a'+c)))
			r++
		}
	}
	return dataset.FromLabels(x, labels)
}

// TestBalancedRaisesMinorityRecall: on imbalanced overlapping classes the
// balanced weights classify more of the small classes' training examples
// as theirs than no weights do, and the model records the weights.
func TestBalancedRaisesMinorityRecall(t *testing.T) {
	ctx := context.Background()
	d := imbalanced(5)
	recall := func(w ClassWeight) (float64, *Classifier) {
		c := New(Options{Grid: Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{1}, BiasStds: []float64{0}, Cs: []float64{1}, ClassWeights: []ClassWeight{w}}})
		if err := c.FitDataset(ctx, d); err != nil {
			t.Fatal(err)
		}
		pred, err := c.PredictIndex(ctx, d.X)
		if err != nil {
			t.Fatal(err)
		}
		right, n := 0, 0
		for i, y := range d.Y {
			if y != 0 {
				n++
				if pred[i] == y {
					right++
				}
			}
		}
		return float64(right) / float64(n), c
	}
	plain, _ := recall(NoClassWeight)
	bal, c := recall(Balanced)
	if !(bal > plain) {
		t.Errorf("recall of the small classes: %.3f balanced, %.3f unweighted; want higher", bal, plain)
	}
	m, err := c.Model()
	if err != nil {
		t.Fatal(err)
	}
	n := float64(d.N())
	if want := []float64{n / (3 * 60), n / (3 * 12), n / (3 * 6)}; !slices.Equal(m.ClassWeights, want) || m.ClassWeight != "balanced" {
		t.Errorf("model class weights %v %q, want %v balanced", m.ClassWeights, m.ClassWeight, want)
	}
	var buf bytes.Buffer
	if err := c.Save(&buf); err != nil {
		t.Fatal(err)
	}
	l, err := Load(&buf)
	if err != nil || l.ClassWeight != Balanced {
		t.Fatalf("loaded: %v %q", err, l.ClassWeight)
	}
}

// TestClassWeightGridAxis: a grid with two weightings scores every kernel
// and C under each, in grid order, and each fold's score is that of the
// machine fitted on the fold's training examples with that fold's
// balanced weights.
func TestClassWeightGridAxis(t *testing.T) {
	ctx := context.Background()
	d := imbalanced(6)
	folds := foldsOf(d.N(), 3)
	g := Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{1, 2}, BiasStds: []float64{0}, Cs: []float64{1}, ClassWeights: []ClassWeight{NoClassWeight, Balanced}}
	c := New(Options{Grid: g, FoldOf: folds, NoStandardize: true, Select: SelectBest})
	if err := c.FitDataset(ctx, d); err != nil {
		t.Fatal(err)
	}
	if len(c.CV.Scores) != 4 {
		t.Fatalf("%d scores, want 2 depths × 2 weightings", len(c.CV.Scores))
	}
	var train, val []int
	for i, f := range folds {
		if f == 0 {
			val = append(val, i)
		} else {
			train = append(train, i)
		}
	}
	k, err := ntk.Gram(ctx, ntk.Spec{Kind: ntk.KindNTK, Depth: 1, WeightStd: math.Sqrt2}, d.X, ntk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var accs []float64
	for i, s := range c.CV.Scores[:2] {
		if s.ClassWeight != g.ClassWeights[i] || s.Depth != 1 {
			t.Fatalf("score %d: depth %d, class weight %q", i, s.Depth, s.ClassWeight)
		}
		cw, err := s.ClassWeight.weights(d.Classes, d.Y, train)
		if err != nil {
			t.Fatal(err)
		}
		mm, err := fitMulti(ctx, k, train, d.Y, 3, SVM, OneVsOne, 1, 1, nil, 0, nil, cw)
		if err != nil {
			t.Fatal(err)
		}
		acc := accuracy(mm, k, val, d.Y, 3, linalg.Matrix[float64]{})
		if s.Folds[0] != acc {
			t.Errorf("%s: fold 0 scores %v, the machine fitted with its weights %v", s.ClassWeight, s.Folds[0], acc)
		}
		accs = append(accs, acc)
	}
	if accs[0] == accs[1] {
		t.Error("the weightings score alike on fold 0: the data do not test the weights")
	}
	if ch := c.CV.Scores[c.CV.Chosen]; ch.ClassWeight != c.ClassWeight {
		t.Errorf("chose %q, the classifier has %q", ch.ClassWeight, c.ClassWeight)
	}
}

// TestWeightedDualAtBounds: in the refitted SVMs every support vector's
// coefficient is within its class's bound w_c·C, and each class reaches
// its own bound (overlapping data): the weights reach the solver.
func TestWeightedDualAtBounds(t *testing.T) {
	d := imbalanced(7)
	const C = 0.5
	c := New(Options{Grid: Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{1}, BiasStds: []float64{0}, Cs: []float64{C}, ClassWeights: []ClassWeight{"a=0.5,b=2,c=4"}}})
	if err := c.FitDataset(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	w := []float64{0.5, 2, 4}
	m, _ := c.Model()
	nu := len(m.Outputs)
	reached := make([]bool, 3)
	for j := range m.Train.N {
		// The class of support vector j: the row of the training inputs.
		cls := classOfRow(t, d, m.X.Row(j), c)
		for ui := range nu {
			a := math.Abs(m.Alpha[j*nu+ui])
			if a > w[cls]*C*(1+1e-12) {
				t.Fatalf("support vector %d of class %d: |α| = %g > w·C = %g", j, cls, a, w[cls]*C)
			}
			if a == w[cls]*C {
				reached[cls] = true
			}
		}
	}
	if !slices.Equal(reached, []bool{true, true, true}) {
		t.Errorf("classes reaching their bound: %v", reached)
	}
}

// classOfRow finds the class of the training example whose standardised
// inputs are row.
func classOfRow(t *testing.T, d *dataset.Dataset, row []float64, c *Classifier) int {
	xs, err := c.scaler.Apply(d.X)
	if err != nil {
		t.Fatal(err)
	}
	for i := range xs.Rows {
		if slices.Equal(xs.Row(i), row) {
			return d.Y[i]
		}
	}
	t.Fatal("support vector not found among the training examples")
	return -1
}
