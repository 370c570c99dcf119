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
	for _, n := range []int{5, syrkStrip, syrkStrip + 300} {
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
