package ntk

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
)

// TestWriteNpyTiled: the kernel written in row blocks under a memory cap
// equals the in-memory one (to rounding: the blocks use the general GEMM,
// the in-memory Gram the symmetric one), for the Gram and the cross kernel.
func TestWriteNpyTiled(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	x := randX(rng, 37, 9)
	z := randX(rng, 11, 9)
	dir := t.TempDir()
	p := Params{Depth: 2, WeightStd: 1.2, BiasStd: 0.1}
	ctx := context.Background()
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
			for _, cap := range []int64{0, 37 * 8, 5 * 37 * 8, 1 << 30} {
				path := filepath.Join(dir, "k.npy")
				var rows int
				err := WriteNpy(ctx, path, zz, x, p, kind, Options{Progress: func(d, n int) { rows = d }}, cap)
				if err != nil {
					t.Fatal(err)
				}
				got, err := npy.Read[float64](path)
				if err != nil {
					t.Fatal(err)
				}
				if got.Rows != want.Rows || got.Cols != want.Cols || rows != want.Rows {
					t.Fatalf("shape %d×%d (progress %d), want %d×%d", got.Rows, got.Cols, rows, want.Rows, want.Cols)
				}
				for i := range want.Rows {
					for j := range want.Cols {
						if !relClose(got.At(i, j), want.At(i, j), 1e-12, 1e-12) {
							t.Fatalf("%v z=%v cap=%d (%d,%d): %v, in memory %v", kind, zz != nil, cap, i, j, got.At(i, j), want.At(i, j))
						}
					}
				}
			}
		}
	}
	if err := WriteNpy(ctx, filepath.Join(dir, "small.npy"), nil, x, p, KindNTK, Options{}, 8); err == nil {
		t.Error("cap below one row: no error")
	}
}

// TestWriteNpyTiled32: the float32 kernel in row blocks equals the
// in-memory float32 kernel and is written as float32.
func TestWriteNpyTiled32(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	x64 := randX(rng, 29, 5)
	x := linalg.New[float32](29, 5)
	for i, v := range x64.Data {
		x.Data[i] = float32(v)
	}
	p := DefaultParams(3)
	want, err := NTK(x, p)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "k32.npy")
	if err := WriteNpy(context.Background(), path, nil, x, p, KindNTK, Options{}, 3*29*4); err != nil {
		t.Fatal(err)
	}
	h, err := npy.ReadHeader(path)
	if err != nil {
		t.Fatal(err)
	}
	if h.Dtype != npy.Float32 {
		t.Fatalf("dtype %v, want float32", h.Dtype)
	}
	got, err := npy.Read[float32](path)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range want.Data {
		if !relClose(float64(got.Data[i]), float64(v), 1e-6, 1e-6) {
			t.Fatalf("element %d: %v, in memory %v", i, got.Data[i], v)
		}
	}
}

// TestWriteNpyCrossBitwise: a cross kernel written in blocks of at least
// linalg.GramStrip rows is bit for bit the in-memory one.
func TestWriteNpyCrossBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	x, z := randX(rng, 40, 7), randX(rng, 2*linalg.GramStrip+50, 7)
	p := DefaultParams(2)
	want, err := CrossNTK(z, x, p)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "k.npy")
	if err := WriteNpy(context.Background(), path, &z, x, p, KindNTK, Options{}, int64(linalg.GramStrip+60)*40*8); err != nil {
		t.Fatal(err)
	}
	got, err := npy.Read[float64](path)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range want.Data {
		if got.Data[i] != v {
			t.Fatalf("element %d: %v, in memory %v", i, got.Data[i], v)
		}
	}
}
