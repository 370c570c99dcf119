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
func collectBlocks[T linalg.Float](t *testing.T, z *linalg.Matrix[T], x linalg.Matrix[T], p Params, kind Kind, memCap int64) (linalg.Matrix[T], int) {
	t.Helper()
	rows := x.Rows
	if z != nil {
		rows = z.Rows
	}
	got := linalg.New[T](rows, x.Rows)
	next, progress := 0, 0
	err := Blocks(context.Background(), z, x, p, kind, Options{Progress: func(d, _ int) { progress = d }}, memCap,
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
	p := Params{Depth: 2, WeightStd: 1.2, BiasStd: 0.1}
	for _, kind := range []Kind{KindNTK, KindNNGP} {
		for _, zz := range []*linalg.Matrix[float64]{nil, &z} {
			var want linalg.Matrix[float64]
			var err error
			switch {
			case zz == nil && kind == KindNTK:
				want, err = NTK(x, p)
			case zz == nil:
				want, err = NNGP(x, p)
			case kind == KindNTK:
				want, err = CrossNTK(z, x, p)
			default:
				want, err = CrossNNGP(z, x, p)
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, memCap := range []int64{0, 37 * 8, 5 * 37 * 8, 1 << 30} {
				got, _ := collectBlocks(t, zz, x, p, kind, memCap)
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
	p := DefaultParams(3)
	want, err := NTK(x, p)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := collectBlocks(t, nil, x, p, KindNTK, 3*29*4)
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
		p      Params
		kind   Kind
		memCap int64
	}{
		{"cap below one row", DefaultParams(1), KindNTK, 8},
		{"bad depth, blocks", Params{Depth: 0, WeightStd: 1}, KindNTK, 80},
		{"bad depth, in memory", Params{Depth: 0, WeightStd: 1}, KindNTK, 0},
		{"unknown kind", DefaultParams(1), Kind(99), 0},
	} {
		if err := Blocks(ctx, nil, x, tc.p, tc.kind, Options{}, tc.memCap, never); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	stop := errors.New("stop")
	calls := 0
	err := Blocks(ctx, nil, x, DefaultParams(1), KindNTK, Options{}, 3*10*8, func(int, linalg.Matrix[float64]) error {
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
	p := DefaultParams(2)
	want, err := CrossNTK(z, x, p)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := collectBlocks(t, &z, x, p, KindNTK, int64(linalg.GramStrip+60)*40*8)
	for i, v := range want.Data {
		if got.Data[i] != v {
			t.Fatalf("element %d: %v, in memory %v", i, got.Data[i], v)
		}
	}
}
