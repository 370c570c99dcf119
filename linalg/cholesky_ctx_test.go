package linalg

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestCholeskyContextCancelled: a cancelled context stops the
// factorisation before its first block and SolveSPDContext returns the
// context's error.
func TestCholeskyContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n := 300
	a := New[float64](n, n)
	for i := range n {
		a.Set(i, i, 1)
	}
	b := New[float64](n, 1)
	if err := SolveSPDContext(ctx, a, b); !errors.Is(err, context.Canceled) {
		t.Fatalf("SolveSPDContext with a cancelled context: %v", err)
	}
	if err := SolveSPDContext(context.Background(), a, b); err != nil {
		t.Fatal(err)
	}
}

// TestCholeskyContextBits: with a context that can be cancelled, the
// trailing updates run in strips that check it; the factor is still, bit
// for bit, that of Cholesky, for sizes around the block and strip edges.
func TestCholeskyContextBits(t *testing.T) {
	for _, n := range []int{1, 100, 257, 700} {
		for _, f32 := range []bool{false, true} {
			a := spdMatrix[float64](rand.New(rand.NewPCG(uint64(n), 1)), n, 1)
			want := a.Clone()
			if err := Cholesky(want); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			got := a.Clone()
			if f32 {
				w32, g32 := Convert[float32, float64](a), Convert[float32, float64](a)
				if err := Cholesky(w32); err != nil {
					t.Fatal(err)
				}
				if err := CholeskyContext(ctx, g32); err != nil {
					t.Fatal(err)
				}
				if bitsDiffer(g32.Data, w32.Data) {
					t.Errorf("n=%d float32: CholeskyContext's factor differs from Cholesky's", n)
				}
			} else {
				if err := CholeskyContext(ctx, got); err != nil {
					t.Fatal(err)
				}
				if bitsDiffer(got.Data, want.Data) {
					t.Errorf("n=%d: CholeskyContext's factor differs from Cholesky's", n)
				}
			}
			cancel()
		}
	}
}
