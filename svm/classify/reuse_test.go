package classify

import (
	"context"
	"math"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

func TestAtBound(t *testing.T) {
	for _, tc := range []struct {
		dual []float64
		c    float64
		want bool
	}{
		{[]float64{0, 0.3, 0.99}, 1, false},
		{[]float64{0, 1, 0.2}, 1, true},
		{[]float64{}, 1, false},
		{[]float64{0, 0}, 1e-2, false},
		{[]float64{1e-2}, 1e-2, true},
	} {
		if got := atBound(tc.dual, tc.c, nil); got != tc.want {
			t.Errorf("atBound(%v, %v) = %v, want %v", tc.dual, tc.c, got, tc.want)
		}
	}
}

// TestReuseAlongC checks that the C path of cross-validation, which reuses
// a solution with no variable at its bound for every larger C, predicts
// what a fresh solve at that C predicts, and that reuse happened.
func TestReuseAlongC(t *testing.T) {
	ctx := context.Background()
	x, labels := blobs(3, 25, 5, 7)
	y := make([]int, len(labels))
	for i, l := range labels {
		y[i] = int(l[0] - 'a')
	}
	k, err := ntk.Gram(ctx, ntk.Spec{Depth: 2, WeightStd: math.Sqrt2}, x, ntk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var train, val []int
	for i := range y {
		if i%4 == 0 {
			val = append(val, i)
		} else {
			train = append(train, i)
		}
	}
	var prev *multi
	prevC, reused := 0.0, 0
	for _, c := range LogGrid(1e-2, 1e4, 7) {
		mm, err := fitMulti(ctx, k, train, y, 3, SVM, OneVsOne, c, 2, prev, prevC, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := fitMulti(ctx, k, train, y, 3, SVM, OneVsOne, c, 1, nil, 0, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for ui := range mm.units {
			if prev != nil && &mm.units[ui].dual[0] == &prev.units[ui].dual[0] {
				reused++
			}
		}
		dm, df := make([]float64, len(mm.units)), make([]float64, len(fresh.units))
		for _, i := range append(train, val...) {
			decide(mm, dm, k.Row(i))
			decide(fresh, df, k.Row(i))
			for u := range dm {
				if (dm[u] > 0) != (df[u] > 0) && math.Abs(dm[u]-df[u]) > 1e-2 {
					t.Errorf("C = %v, point %d, unit %d: decision %v along the path, %v fresh", c, i, u, dm[u], df[u])
				}
			}
		}
		prev, prevC = mm, c
	}
	if reused == 0 {
		t.Errorf("no solution was reused along the C path of a separable problem")
	}
}

// TestViewCache checks that cached rows equal the gathered ones, that the
// cache stops at its room, and that AddRows gives the same bits with and
// without cached rows.
func TestViewCache(t *testing.T) {
	x, _ := blobs(2, 20, 3, 3)
	k, err := ntk.Gram(context.Background(), ntk.Spec{Depth: 1, WeightStd: 1}, x, ntk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	idx := []int{5, 1, 33, 12, 0, 39, 20}
	cached := newView(k, idx, idx)
	cached.room = 3
	plain := &view[float64]{k: k, rows: idx, cols: idx}
	buf := make([]float64, len(idx))
	for i := range idx {
		r := cached.CachedRow(i)
		if (r == nil) != (i >= 3) {
			t.Fatalf("row %d cached = %v with room for 3", i, r != nil)
		}
		if r == nil {
			continue
		}
		plain.RowTo(buf, i)
		for j := range buf {
			if r[j] != buf[j] {
				t.Fatalf("cached row %d col %d = %v, gathered %v", i, j, r[j], buf[j])
			}
		}
	}
	rows, w := []int{0, 4, 2, 6}, []float64{0.5, -1.25, 3, 1e-3}
	a, b := make([]float64, len(idx)), make([]float64, len(idx))
	cached.AddRows(a, rows, w)
	plain.AddRows(b, rows, w)
	for j := range a {
		if a[j] != b[j] {
			t.Errorf("AddRows[%d] = %v with the cache, %v without", j, a[j], b[j])
		}
	}
	// MulVec through the cached rows agrees with the gathered product.
	xv := []float64{0.5, 0, -2, 0, 1, 0, 3}
	full := newView(k, idx, idx)
	got, want := make([]float64, len(idx)), make([]float64, len(idx))
	full.MulVec(got, xv)
	if full.cache == nil {
		t.Errorf("MulVec on a square view with room did not use the cache")
	}
	plain.MulVec(want, xv)
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
			t.Errorf("MulVec[%d] = %v through the cache, %v gathered", i, got[i], want[i])
		}
	}
	var f32 linalg.Matrix[float32] = linalg.Convert[float32](k)
	v32 := newView(f32, idx, idx)
	if r := v32.CachedRow(2); r[0] != float64(f32.At(idx[2], idx[0])) {
		t.Errorf("float32 view: cached row widened wrongly")
	}
}
