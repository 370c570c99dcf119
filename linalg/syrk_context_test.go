package linalg

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestSyrkLowerContext: the strip-wise product equals SyrkLower's lower
// triangle, and a cancelled context stops it.
func TestSyrkLowerContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{5, GramStrip, GramStrip*8 + 300} {
		a := New[float64](n, 37)
		for i := range a.Data {
			a.Data[i] = rng.Float64() - 0.5
		}
		want, got := New[float64](n, n), New[float64](n, n)
		if err := SyrkLower(1, a, 0, want); err != nil {
			t.Fatal(err)
		}
		if err := SyrkLowerContext(context.Background(), 1, a, 0, got); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			for j := 0; j <= i; j++ {
				if d := got.At(i, j) - want.At(i, j); d > 1e-12 || d < -1e-12 {
					t.Fatalf("n=%d: C[%d, %d] = %v, SyrkLower gives %v", n, i, j, got.At(i, j), want.At(i, j))
				}
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := SyrkLowerContext(ctx, 1, New[float32](3000, 2), 0, New[float32](3000, 3000)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestSyrkLowerRows: a band of rows starting on a multiple of GramStrip is
// bit for bit the same rows of SyrkLowerContext on the whole matrix, with
// one thread or several, for float64 and float32.
func TestSyrkLowerRows(t *testing.T) {
	testSyrkLowerRows[float64](t)
	testSyrkLowerRows[float32](t)
}

func testSyrkLowerRows[T Float](t *testing.T) {
	defer SetThreads(0)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct{ n, k int }{{5, 3}, {GramStrip, 17}, {3*GramStrip + 45, 300}, {700, 784}} {
		a := New[T](tc.n, tc.k)
		for i := range a.Data {
			a.Data[i] = T(rng.Float64() - 0.5)
		}
		SetThreads(0)
		want := New[T](tc.n, tc.n)
		if err := SyrkLowerContext(context.Background(), 1, a, 0, want); err != nil {
			t.Fatal(err)
		}
		for _, th := range []int{1, 3} {
			SetThreads(th)
			for r0 := 0; r0 < tc.n; r0 += GramStrip {
				for _, r1 := range []int{min(r0+GramStrip, tc.n), min(r0+GramStrip+7, tc.n), tc.n} {
					c := New[T](r1-r0, r1)
					if err := SyrkLowerRows(context.Background(), 1, a, r0, r1, 0, c); err != nil {
						t.Fatal(err)
					}
					for i := r0; i < r1; i++ {
						for j := 0; j <= i; j++ {
							if g, w := c.At(i-r0, j), want.At(i, j); g != w {
								t.Fatalf("n=%d rows [%d, %d) threads %d: C[%d, %d] = %v, whole %v", tc.n, r0, r1, th, i, j, g, w)
							}
						}
						for j := i + 1; j < r1; j++ {
							if c.At(i-r0, j) != 0 {
								t.Fatalf("n=%d rows [%d, %d): C[%d, %d] above the diagonal written", tc.n, r0, r1, i, j)
							}
						}
					}
				}
			}
		}
	}
	a := New[T](300, 4)
	for _, tc := range []struct{ r0, r1, rows, cols int }{
		{1, 10, 9, 10},                   // start off the strip grid
		{0, 301, 301, 301},               // past A
		{GramStrip, 200, 200, 200},       // C the wrong shape
		{GramStrip, GramStrip - 1, 0, 0}, // reversed
	} {
		if err := SyrkLowerRows(context.Background(), 1, a, tc.r0, tc.r1, 0, New[T](tc.rows, tc.cols)); !errors.Is(err, ErrShape) {
			t.Errorf("rows [%d, %d) into %d×%d: %v, want ErrShape", tc.r0, tc.r1, tc.rows, tc.cols, err)
		}
	}
}

// TestCrossGramContext: bands of rows of A starting on multiples of
// GramStrip give bit for bit the rows of the whole product, which equals
// CrossGram to rounding.
func TestCrossGramContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a, b := New[float64](2*GramStrip+33, 200), New[float64](150, 200)
	for _, m := range []Matrix[float64]{a, b} {
		for i := range m.Data {
			m.Data[i] = rng.Float64() - 0.5
		}
	}
	want, ref := New[float64](a.Rows, b.Rows), New[float64](a.Rows, b.Rows)
	if err := CrossGramContext(context.Background(), a, b, want); err != nil {
		t.Fatal(err)
	}
	if err := CrossGram(a, b, ref); err != nil {
		t.Fatal(err)
	}
	for i, v := range want.Data {
		if d := v - ref.Data[i]; d > 1e-12 || d < -1e-12 {
			t.Fatalf("element %d: %v, CrossGram %v", i, v, ref.Data[i])
		}
	}
	for r0 := 0; r0 < a.Rows; r0 += GramStrip {
		for _, r1 := range []int{min(r0+GramStrip, a.Rows), a.Rows} {
			c := New[float64](r1-r0, b.Rows)
			if err := CrossGramContext(context.Background(), a.Slice(r0, r1, 0, a.Cols), b, c); err != nil {
				t.Fatal(err)
			}
			for i := r0; i < r1; i++ {
				for j := range b.Rows {
					if c.At(i-r0, j) != want.At(i, j) {
						t.Fatalf("rows [%d, %d): C[%d, %d] = %v, whole %v", r0, r1, i, j, c.At(i-r0, j), want.At(i, j))
					}
				}
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := CrossGramContext(ctx, a, b, want); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
