package linalg

import (
	"context"
	"errors"
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
