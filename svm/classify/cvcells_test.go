package classify

import (
	"bytes"
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm/dataset"
)

// overlapping returns k classes of n points each in d dimensions whose
// centres are close enough that cross-validation makes mistakes (so that
// a wrong count of votes shows in the scores).
func overlapping(k, n, d int, seed uint64) *dataset.Dataset {
	x, labels := blobs(k, n, d, seed)
	for i := range x.Data {
		x.Data[i] *= 1.8
	}
	return dataset.FromLabels(x, labels)
}

// TestTaskSplit: for every task count, the tasks' cell ranges are
// consecutive, cover every cell once and differ in size by at most one.
func TestTaskSplit(t *testing.T) {
	d := overlapping(4, 10, 3, 1)
	c := New(Options{Grid: Grid{Kinds: []ntk.Kind{ntk.KindNTK, ntk.KindNNGP}, Depths: []int{1, 2, 3}, BiasStds: []float64{0}, Cs: []float64{1, 10}}, Folds: 3})
	p, err := c.PlanCV(d)
	if err != nil {
		t.Fatal(err)
	}
	if want := 6 * 3 * 6; len(p.Cells) != want { // kernels × folds × class pairs
		t.Fatalf("%d cells, want %d", len(p.Cells), want)
	}
	for _, n := range []int{1, 2, 3, 5, 7, 17, 64, len(p.Cells) - 1, len(p.Cells)} {
		next, small, large := 0, len(p.Cells), 0
		for i := range n {
			lo, hi := p.Task(i, n)
			if lo != next || hi < lo {
				t.Fatalf("n=%d: task %d holds cells %d…%d after %d", n, i, lo, hi-1, next)
			}
			small, large, next = min(small, hi-lo), max(large, hi-lo), hi
		}
		if next != len(p.Cells) || large-small > 1 {
			t.Errorf("n=%d: tasks cover %d of %d cells, sizes %d…%d", n, next, len(p.Cells), small, large)
		}
	}
}

// TestFitCellsEqualsFit: cells evaluated in any number of tasks, their
// results combined in any order, give Fit's table, chosen point and
// model file, bit for bit.
func TestFitCellsEqualsFit(t *testing.T) {
	grid := Grid{Kinds: []ntk.Kind{ntk.KindNTK, ntk.KindNNGP}, Depths: []int{1, 3}, BiasStds: []float64{0, 0.5}, Cs: []float64{10, 0.1, 1}}
	three, two := overlapping(3, 14, 4, 2), overlapping(2, 15, 4, 3)
	weighted, named := grid, grid
	weighted.ClassWeights = []ClassWeight{NoClassWeight, Balanced}
	named.ClassWeights = []ClassWeight{"a=3,c=0.5", Balanced}
	for _, tc := range []struct {
		name string
		d    *dataset.Dataset
		o    Options
	}{
		{"svm ovo 3 classes (class pairs)", three, Options{Grid: grid, Folds: 3}},
		{"svm2 ovo 3 classes, best", three, Options{Grid: grid, Folds: 3, Machine: SVM2, Select: SelectBest}},
		{"svm ovr 3 classes", three, Options{Grid: grid, Folds: 3, Scheme: OneVsRest}},
		{"krr", three, Options{Grid: grid, Folds: 4, Machine: KRR}},
		{"svm 2 classes, 2 repeats", two, Options{Grid: grid, Folds: 3, Repeats: 2, Seed: 7}},
		{"svm ovo float32, raw features", three, Options{Grid: grid, Folds: 3, Float32: true, NoStandardize: true}},
		{"explicit folds", two, Options{Grid: grid, FoldOf: foldsOf(two.N(), 3)}},
		{"svm ovo, class weights none and balanced, probabilities", three, Options{Grid: weighted, Folds: 3, Probability: true}},
		{"svm2 ovr, named class weights", three, Options{Grid: named, Folds: 3, Machine: SVM2, Scheme: OneVsRest}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			ref := New(tc.o)
			if err := ref.FitDataset(ctx, tc.d); err != nil {
				t.Fatal(err)
			}
			want := modelFile(t, ref)
			c := New(tc.o)
			p, err := c.PlanCV(tc.d)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []int{1, 3, len(p.Cells)} {
				var all []CVCellResult
				for i := range n {
					lo, hi := p.Task(i, n)
					o := tc.o
					o.Threads = 1 + i%3
					res, err := New(o).EvaluateCells(ctx, tc.d, p, lo, hi)
					if err != nil {
						t.Fatal(err)
					}
					all = append(all, res...)
				}
				rand.New(rand.NewPCG(uint64(n), 1)).Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
				got := New(tc.o)
				if err := got.FitCells(ctx, tc.d, p, all); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got.CV, ref.CV) {
					t.Fatalf("%d tasks: the table differs:\n%+v\nFit:\n%+v", n, got.CV, ref.CV)
				}
				if !bytes.Equal(modelFile(t, got), want) {
					t.Fatalf("%d tasks: the model file differs from Fit's", n)
				}
			}
			if tc.d == three && tc.o.Machine == SVM && tc.o.Scheme == OneVsOne && ref.CV.Scores[0].Mean == 1 && ref.CV.Scores[len(ref.CV.Scores)-1].Mean == 1 {
				t.Fatal("every point scores 100 %: the data do not test the vote counting")
			}
		})
	}
}

func foldsOf(n, k int) []int {
	f := make([]int, n)
	for i := range f {
		f[i] = (i * 7) % k
	}
	return f
}

func modelFile(t *testing.T, c *Classifier) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := c.Save(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCombineRefuses: a missing, repeated or malformed cell is refused
// with a message naming it, and a plan of other options or data is
// refused.
func TestCombineRefuses(t *testing.T) {
	ctx := context.Background()
	d := overlapping(3, 8, 3, 4)
	o := Options{Grid: Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{1, 2}, BiasStds: []float64{0}, Cs: []float64{1, 10}}, Folds: 2}
	c := New(o)
	p, err := c.PlanCV(d)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.EvaluateCells(ctx, d, p, 0, len(p.Cells))
	if err != nil {
		t.Fatal(err)
	}
	clone := func() []CVCellResult {
		out := make([]CVCellResult, len(res))
		for i, r := range res {
			out[i] = CVCellResult{Cell: r.Cell, Accuracy: append([]float64(nil), r.Accuracy...), Wins: append([]string(nil), r.Wins...)}
			if r.Accuracy == nil {
				out[i].Accuracy = nil
			}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		edit func([]CVCellResult) []CVCellResult
		want string
	}{
		{"missing", func(r []CVCellResult) []CVCellResult { return append(r[:4], r[5:]...) }, "no result for cell 4"},
		{"twice", func(r []CVCellResult) []CVCellResult { return append(r, r[2]) }, "cell 2 appears twice"},
		{"out of range", func(r []CVCellResult) []CVCellResult { r[1].Cell = 99; return r }, "cell 99"},
		{"short votes", func(r []CVCellResult) []CVCellResult { r[3].Wins[1] = r[3].Wins[1][1:]; return r }, "cell 3: want one 0 or 1"},
		{"bad votes", func(r []CVCellResult) []CVCellResult { r[3].Wins[0] = strings.Repeat("x", len(r[3].Wins[0])); return r }, "cell 3"},
		{"one C short", func(r []CVCellResult) []CVCellResult { r[0].Wins = r[0].Wins[:1]; return r }, "cell 0: want 2 vote strings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := New(o).Combine(p, tc.edit(clone())); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Combine: %v, want an error with %q", err, tc.want)
			}
		})
	}
	other := o
	other.Seed = 1
	if err := New(other).FitCells(ctx, d, p, res); err == nil || !strings.Contains(err.Error(), "other options") {
		t.Errorf("FitCells with another seed: %v", err)
	}
	if _, err := New(o).EvaluateCells(ctx, overlapping(3, 8, 3, 5), p, 0, 1); err == nil || !strings.Contains(err.Error(), "another dataset") {
		t.Errorf("EvaluateCells on other data: %v", err)
	}
	if _, err := New(o).EvaluateCells(ctx, d, p, 0, len(p.Cells)+1); err == nil {
		t.Error("EvaluateCells past the last cell: no error")
	}
	one := o
	one.Grid.Depths, one.Grid.Cs = []int{1}, []float64{1}
	if _, err := New(one).PlanCV(d); err == nil || !strings.Contains(err.Error(), "nothing to cross-validate") {
		t.Errorf("PlanCV of one grid point: %v", err)
	}
}
