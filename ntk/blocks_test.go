package ntk

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// collectBlocks runs Blocks and assembles the blocks into one matrix,
// checking that they come in order and cover every row once.
func collectBlocks[T linalg.Float](t *testing.T, z *linalg.Matrix[T], x linalg.Matrix[T], s Spec, memCap int64) (linalg.Matrix[T], int) {
	t.Helper()
	rows := x.Rows
	if z != nil {
		rows = z.Rows
	}
	got := linalg.New[T](rows, x.Rows)
	next, progress := 0, 0
	err := Blocks(context.Background(), s, z, x, Options{Progress: func(d, _ int) { progress = d }}, memCap,
		func(i0 int, k linalg.Matrix[T]) error {
			if i0 != next || k.Cols != x.Rows || k.Rows < 1 {
				t.Fatalf("block at row %d of %d×%d, want row %d", i0, k.Rows, k.Cols, next)
			}
			for i := range k.Rows {
				copy(got.Row(i0+i), k.Row(i))
			}
			next += k.Rows
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if next != rows || progress != rows {
		t.Fatalf("blocks covered %d rows (progress %d), want %d", next, progress, rows)
	}
	return got, progress
}

// TestBlocks: the kernel computed in row blocks under a memory cap equals
// the in-memory one (to rounding: the blocks use the general GEMM, the
// in-memory Gram the symmetric one), for the Gram and the cross kernel.
func TestBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	x := randX(rng, 37, 9)
	z := randX(rng, 11, 9)
	ctx := context.Background()
	for _, kind := range []Kind{KindNTK, KindNNGP} {
		s := Spec{Kind: kind, Depth: 2, WeightStd: 1.2, BiasStd: 0.1}
		for _, zz := range []*linalg.Matrix[float64]{nil, &z} {
			var want linalg.Matrix[float64]
			var err error
			if zz == nil {
				want, err = Gram(ctx, s, x, Options{})
			} else {
				want, err = Cross(ctx, s, z, x, Options{})
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, memCap := range []int64{0, 37 * 8, 5 * 37 * 8, 1 << 30} {
				got, _ := collectBlocks(t, zz, x, s, memCap)
				for i := range want.Rows {
					for j := range want.Cols {
						if !relClose(got.At(i, j), want.At(i, j), 1e-12, 1e-12) {
							t.Fatalf("%v z=%v cap=%d (%d,%d): %v, in memory %v", kind, zz != nil, memCap, i, j, got.At(i, j), want.At(i, j))
						}
					}
				}
			}
		}
	}
}

// TestBlocksFloat32: the float32 kernel in row blocks equals the in-memory
// float32 kernel.
func TestBlocksFloat32(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	x := linalg.Convert[float32](randX(rng, 29, 5))
	s := DefaultSpec(3)
	want, err := Gram(context.Background(), s, x, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := collectBlocks(t, nil, x, s, 3*29*4)
	for i, v := range want.Data {
		if !relClose(float64(got.Data[i]), float64(v), 1e-6, 1e-6) {
			t.Fatalf("element %d: %v, in memory %v", i, got.Data[i], v)
		}
	}
}

// TestBlocksErrors: a cap below one row, bad parameters and an unknown
// kind fail before any block; an error of emit stops the computation.
func TestBlocksErrors(t *testing.T) {
	x := randX(rand.New(rand.NewPCG(8, 8)), 10, 3)
	ctx := context.Background()
	never := func(int, linalg.Matrix[float64]) error { t.Error("emit called"); return nil }
	for _, tc := range []struct {
		name   string
		s      Spec
		memCap int64
	}{
		{"cap below one row", DefaultSpec(1), 8},
		{"bad depth, blocks", Spec{Depth: -1, WeightStd: 1}, 80},
		{"bad depth, in memory", Spec{Depth: -1, WeightStd: 1}, 0},
		{"bad σ_w", Spec{Kind: KindNNGP, Depth: 1, WeightStd: 0}, 80},
		{"unknown kind", Spec{Kind: Kind(99), Depth: 1, WeightStd: 1}, 0},
	} {
		if err := Blocks(ctx, tc.s, nil, x, Options{}, tc.memCap, never); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	stop := errors.New("stop")
	calls := 0
	err := Blocks(ctx, Spec{Kind: KindNTK, Depth: 1, WeightStd: 1}, nil, x, Options{}, 3*10*8, func(int, linalg.Matrix[float64]) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("emit error: %v after %d calls, want stop after 1", err, calls)
	}
}

// TestBlocksCrossBitwise: a cross kernel in blocks of at least
// linalg.GramStrip rows is bit for bit the in-memory one.
func TestBlocksCrossBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	x, z := randX(rng, 40, 7), randX(rng, 2*linalg.GramStrip+50, 7)
	s := DefaultSpec(2)
	want, err := Cross(context.Background(), s, z, x, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := collectBlocks(t, &z, x, s, int64(linalg.GramStrip+60)*40*8)
	for i, v := range want.Data {
		if got.Data[i] != v {
			t.Fatalf("element %d: %v, in memory %v", i, got.Data[i], v)
		}
	}
}

// TestBlocksInputKernel: the input kernel (depth 0) in row blocks equals
// Gram and Cross of its Spec, and FillGramRows gives the Gram's rows bit
// for bit.
func TestBlocksInputKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	x := randX(rng, 37, 6)
	z := randX(rng, 13, 6)
	s := Spec{Kind: KindNNGP, Depth: 0, WeightStd: 1.3, BiasStd: 0.4}
	ctx := context.Background()
	gram, err := Gram(ctx, s, x, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cross, err := Cross(ctx, s, z, x, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		z    *linalg.Matrix[float64]
		want linalg.Matrix[float64]
	}{{"gram", nil, gram}, {"cross", &z, cross}} {
		for _, memCap := range []int64{0, 37 * 8, 4 * 37 * 8} {
			got, _ := collectBlocks(t, tc.z, x, s, memCap)
			for i, v := range tc.want.Data {
				if !relClose(got.Data[i], v, 1e-13, 1) {
					t.Fatalf("%s cap=%d element %d: %v, want %v", tc.name, memCap, i, got.Data[i], v)
				}
			}
		}
	}
	rows := linalg.New[float64](x.Rows, x.Rows)
	if err := FillGramRows(ctx, s, x, Options{}, 0, x.Rows, rows); err != nil {
		t.Fatal(err)
	}
	for i := range x.Rows {
		for j := 0; j <= i; j++ {
			if rows.At(i, j) != gram.At(i, j) {
				t.Fatalf("FillGramRows (%d,%d): %v, Gram %v", i, j, rows.At(i, j), gram.At(i, j))
			}
		}
	}
}

// TestFillSlots: FillGram and FillCross write the output of the Spec's
// kind, bit for bit that output of the pass that computes both.
func TestFillSlots(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	x := randX(rng, 21, 5)
	z := randX(rng, 7, 5)
	p := Spec{Depth: 2, WeightStd: 1.1, BiasStd: 0.2}
	ctx := context.Background()
	wantN, wantS := linalg.New[float64](21, 21), linalg.New[float64](21, 21)
	if err := gramBand(ctx, x, p, Options{}, 0, 21, wantN, wantS, true); err != nil {
		t.Fatal(err)
	}
	crossN, crossS := linalg.New[float64](7, 21), linalg.New[float64](7, 21)
	if err := crossInto(ctx, z, x, p, Options{}, crossN, crossS, -1); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kind        Kind
		gram, cross linalg.Matrix[float64]
	}{{KindNTK, wantN, crossN}, {KindNNGP, wantS, crossS}} {
		s := Spec{Kind: tc.kind, Depth: p.Depth, WeightStd: p.WeightStd, BiasStd: p.BiasStd}
		g, c := linalg.New[float64](21, 21), linalg.New[float64](7, 21)
		if err := FillGram(ctx, s, x, Options{}, g); err != nil {
			t.Fatal(err)
		}
		if err := FillCross(ctx, s, z, x, Options{}, c); err != nil {
			t.Fatal(err)
		}
		for _, m := range []struct{ got, want linalg.Matrix[float64] }{{g, tc.gram}, {c, tc.cross}} {
			for i, v := range m.want.Data {
				if m.got.Data[i] != v {
					t.Fatalf("%v element %d: %v, want %v", tc.kind, i, m.got.Data[i], v)
				}
			}
		}
	}
	if err := FillGram(ctx, Spec{Kind: KindNTK, Depth: 1, WeightStd: 1}, x, Options{}, linalg.New[float64](3, 3)); err == nil {
		t.Error("FillGram into a 3×3 matrix: no error")
	}
}
