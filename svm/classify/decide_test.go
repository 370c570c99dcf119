package classify

import (
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// TestDecideBlock checks that the decision values summed one support
// vector at a time over a block of Gram columns equal, bit for bit, those
// summed point by point (decideAt) and by decide, for sizes around the
// vector width and validation points in any order.
func TestDecideBlock(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct{ n, sv, val int }{{1, 1, 1}, {9, 4, 3}, {40, 13, 7}, {97, 50, 33}, {200, 1, 64}} {
		k := linalg.New[float64](tc.n, tc.n)
		for i := range tc.n {
			for j := range i + 1 {
				v := rng.NormFloat64()
				k.Set(i, j, v)
				k.Set(j, i, v)
			}
		}
		u := unit{bias: rng.NormFloat64()}
		for _, j := range rng.Perm(tc.n)[:tc.sv] {
			u.idx, u.alpha = append(u.idx, j), append(u.alpha, rng.NormFloat64()*10)
		}
		val := rng.Perm(tc.n)[:tc.val]
		b := valBlock(k, val, 2)
		if b.Rows != tc.n || b.Cols != tc.val {
			t.Fatalf("n=%d: block is %d×%d", tc.n, b.Rows, b.Cols)
		}
		got, want := make([]float64, len(val)), make([]float64, len(val))
		decideBlock(&u, got, b)
		decideAt(&u, want, k, val)
		mm := &multi{units: []unit{u}}
		one := make([]float64, 1)
		for p, i := range val {
			decide(mm, one, k.Row(i))
			if got[p] != want[p] || got[p] != one[0] {
				t.Fatalf("n=%d point %d: block %v, gather %v, decide %v", tc.n, i, got[p], want[p], one[0])
			}
		}
	}
	if b := valBlock(linalg.New[float32](5, 5), []int{1, 2}, 1); b.Rows != 0 {
		t.Errorf("float32 Gram: block is %d×%d, want none", b.Rows, b.Cols)
	}
	// 64 MiB shared by 2 walks: 4096 rows × 1024 points is 32 MiB, one more
	// point is past the share.
	big := linalg.Matrix[float64]{Rows: 4096, Cols: 4096, Stride: 4096}
	if b := valBlock(big, make([]int, 1025), 2); b.Rows != 0 {
		t.Errorf("a block past its share of valBlockBytes was built: %d×%d", b.Rows, b.Cols)
	}
}

// TestRowArena checks that the rows an arena hands out do not overlap
// (writing one, even through append, leaves the others as they were) and
// that a row larger than a chunk still comes back whole.
func TestRowArena(t *testing.T) {
	a := new(rowArena)
	var rows [][]float64
	for i, m := range []int{3, arenaChunk - 2, 5, arenaChunk + 1, 1, 7} {
		r := a.take(m)
		if len(r) != m || cap(r) != m {
			t.Fatalf("take(%d): len %d cap %d", m, len(r), cap(r))
		}
		for j := range r {
			r[j] = float64(i)
		}
		rows = append(rows, r)
	}
	_ = append(rows[0], -1) // cap = len: a copy, never the next row
	for i, r := range rows {
		for j, v := range r {
			if v != float64(i) {
				t.Fatalf("row %d element %d = %v, want %d", i, j, v, i)
			}
		}
	}
	a.reset()
	if r := a.take(3); &r[0] != &rows[0][0] {
		t.Errorf("after reset the arena does not start again at its first row")
	}
}

// TestViewDiag checks the view's cached diagonal against At, on its first
// call and on a later one.
func TestViewDiag(t *testing.T) {
	k := linalg.New[float64](6, 6)
	for i := range k.Data {
		k.Data[i] = float64(i)
	}
	idx := []int{5, 1, 3}
	v := newView(k, idx, idx)
	for range 2 {
		d := make([]float64, len(idx))
		v.DiagTo(d)
		for i := range d {
			if d[i] != v.At(i, i) {
				t.Fatalf("diagonal %d = %v, At gives %v", i, d[i], v.At(i, i))
			}
		}
	}
}
