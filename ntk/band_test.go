package ntk

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// TestGramRowsInto: every band of rows starting on the strip grid is, bit
// for bit, the same rows of GramInto's Gram (NTK, NNGP or both; float64
// and float32; one thread or several), and nothing above the diagonal is
// written.
func TestGramRowsInto(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	x := randX(rng, 2*linalg.GramStrip+gramRows+19, 23)
	for _, p := range []Params{DefaultParams(1), {Depth: 3, WeightStd: 1.3, BiasStd: 0.2}} {
		testGramRows(t, x, p)
		testGramRows(t, linalg.Convert[float32](x), p)
	}
}

func testGramRows[T linalg.Float](t *testing.T, x linalg.Matrix[T], p Params) {
	n := x.Rows
	wantN, wantS := linalg.New[T](n, n), linalg.New[T](n, n)
	if err := GramInto(context.Background(), x, p, Options{}, wantN, wantS); err != nil {
		t.Fatal(err)
	}
	const canary = -7
	for _, o := range []Options{{}, {Threads: 1}, {Threads: 3}} {
		for r0 := 0; r0 < n; r0 += linalg.GramStrip {
			for _, r1 := range []int{min(r0+linalg.GramStrip, n), min(r0+3*linalg.GramStrip+5, n), n} {
				for _, which := range []string{"ntk", "nngp", "both"} {
					var kn, ks linalg.Matrix[T]
					if which != "nngp" {
						kn = filled[T](r1-r0, r1, canary)
					}
					if which != "ntk" {
						ks = filled[T](r1-r0, r1, canary)
					}
					if err := GramRowsInto(context.Background(), x, p, o, r0, r1, kn, ks); err != nil {
						t.Fatal(err)
					}
					for _, c := range []struct {
						got, want linalg.Matrix[T]
					}{{kn, wantN}, {ks, wantS}} {
						if c.got.Data == nil {
							continue
						}
						for i := r0; i < r1; i++ {
							for j := range r1 {
								g, w := c.got.At(i-r0, j), c.want.At(i, j)
								if j > i {
									w = canary
								}
								if g != w {
									t.Fatalf("%T %+v threads %d rows [%d, %d) %s: (%d, %d) = %v, GramInto %v",
										g, p, o.Threads, r0, r1, which, i, j, g, w)
								}
							}
						}
					}
				}
			}
		}
	}
}

func filled[T linalg.Float](r, c int, v T) linalg.Matrix[T] {
	m := linalg.New[T](r, c)
	for i := range m.Data {
		m.Data[i] = v
	}
	return m
}

// TestGramRowsIntoErrors: ranges off the strip grid or past x, outputs of
// the wrong shape and bad parameters are errors, not panics.
func TestGramRowsIntoErrors(t *testing.T) {
	x := randX(rand.New(rand.NewPCG(9, 9)), 300, 4)
	ctx := context.Background()
	for _, tc := range []struct {
		name         string
		r0, r1, r, c int
		p            Params
	}{
		{"off grid", 3, 10, 7, 10, DefaultParams(1)},
		{"past x", 0, 301, 301, 301, DefaultParams(1)},
		{"reversed", linalg.GramStrip, 1, 0, 0, DefaultParams(1)},
		{"shape", linalg.GramStrip, 200, 72, 199, DefaultParams(1)},
		{"params", 0, 10, 10, 10, Params{Depth: 0, WeightStd: 1}},
	} {
		err := GramRowsInto(ctx, x, tc.p, Options{}, tc.r0, tc.r1, linalg.New[float64](tc.r, tc.c), linalg.Matrix[float64]{})
		if err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	err := GramRowsInto(ctx, x, DefaultParams(1), Options{}, 0, 300, linalg.New[float64](300, 300), linalg.Matrix[float64]{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestCrossIntoBands: the cross kernel of a band of z starting on the strip
// grid is, bit for bit, the same rows of the whole cross kernel.
func TestCrossIntoBands(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	x, z := randX(rng, 90, 31), randX(rng, 2*linalg.GramStrip+40, 31)
	p := Params{Depth: 2, WeightStd: 1, BiasStd: 0.3}
	want, err := CrossNTK(z, x, p)
	if err != nil {
		t.Fatal(err)
	}
	for r0 := 0; r0 < z.Rows; r0 += linalg.GramStrip {
		r1 := min(r0+linalg.GramStrip, z.Rows)
		got, err := CrossNTK(z.Slice(r0, r1, 0, z.Cols), x, p)
		if err != nil {
			t.Fatal(err)
		}
		for i := r0; i < r1; i++ {
			for j := range x.Rows {
				if got.At(i-r0, j) != want.At(i, j) {
					t.Fatalf("rows [%d, %d): (%d, %d) = %v, whole %v", r0, r1, i, j, got.At(i-r0, j), want.At(i, j))
				}
			}
		}
	}
}
