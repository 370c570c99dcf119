package linalg

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

// TestGemmContext checks that GemmContext with a live context gives Gemm's
// bits on the blocked, transposed and small paths, and that a cancelled
// context ends a large product early with ctx's error.
func TestGemmContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	fill := func(r, c int) Matrix[float32] {
		m := New[float32](r, c)
		for i := range m.Data {
			m.Data[i] = float32(rng.NormFloat64())
		}
		return m
	}
	cases := []struct {
		name     string
		opA, opB Op
		m, n, k  int
		beta     float32
	}{
		{"forward A·Wᵀ", NoTrans, Trans, 64, 1500, 700, 0},
		{"backward g·W", NoTrans, NoTrans, 64, 1500, 1500, 0},
		{"update βW − gᵀA", Trans, NoTrans, 900, 700, 64, 0.5},
		{"small", NoTrans, NoTrans, 20, 30, 10, 1},
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, c := range cases {
		a := fill(c.m, c.k)
		if c.opA {
			a = fill(c.k, c.m)
		}
		b := fill(c.k, c.n)
		if c.opB {
			b = fill(c.n, c.k)
		}
		c0 := fill(c.m, c.n)
		want, got := c0.Clone(), c0.Clone()
		if err := Gemm(c.opA, c.opB, 0.7, a, b, c.beta, want); err != nil {
			t.Fatal(err)
		}
		if err := GemmContext(ctx, c.opA, c.opB, 0.7, a, b, c.beta, got); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i := range want.Data {
			if want.Data[i] != got.Data[i] {
				t.Fatalf("%s: element %d is %v, Gemm gives %v", c.name, i, got.Data[i], want.Data[i])
			}
		}
	}
	// A product of about 1.3·10¹⁰ flops, cancelled 20 ms in.
	a, w, z := fill(256, 5000), fill(5000, 5000), New[float32](256, 5000)
	t0 := time.Now()
	ctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel2()
	err := GemmContext(ctx2, NoTrans, Trans, 1, a, w, 0, z)
	el := time.Since(t0)
	t.Logf("cancelled after %v", el)
	if !errors.Is(err, context.DeadlineExceeded) || el > 500*time.Millisecond {
		t.Errorf("cancelled product: %v after %v, want the deadline's error within 0.5 s", err, el)
	}
	if err := GemmContext(ctx2, NoTrans, Trans, 1, a, w, 0, z); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("product on a done context: %v", err)
	}
}
