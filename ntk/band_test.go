package ntk

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// TestFillGramRows: every band of rows starting on the strip grid is, bit
// for bit, the same rows of the Gram (NTK, NNGP or both in one pass;
// depth 0 and deeper; float64 and float32; one thread or several), and
// nothing above the diagonal is written.
func TestFillGramRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	x := randX(rng, 2*linalg.GramStrip+gramRows+19, 23)
	for _, s := range []Spec{DefaultSpec(1), {Depth: 3, WeightStd: 1.3, BiasStd: 0.2}, {Depth: 0, WeightStd: 1.3, BiasStd: 0.2}} {
		testGramRows(t, x, s)
		testGramRows(t, linalg.Convert[float32](x), s)
	}
}

func testGramRows[T linalg.Float](t *testing.T, x linalg.Matrix[T], s Spec) {
	ctx := context.Background()
	wantN, err := Gram(ctx, s, x, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantS, err := Gram(ctx, nngpOf(s), x, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := x.Rows
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
					var err error
					switch which {
					case "ntk":
						err = FillGramRows(ctx, s, x, o, r0, r1, kn)
					case "nngp":
						err = FillGramRows(ctx, nngpOf(s), x, o, r0, r1, ks)
					default: // both outputs of one pass
						err = gramBand(ctx, x, s, o, r0, r1, kn, ks, false)
					}
					if err != nil {
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
									t.Fatalf("%T %v threads %d rows [%d, %d) %s: (%d, %d) = %v, Gram %v",
										g, s, o.Threads, r0, r1, which, i, j, g, w)
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

// TestFillGramRowsErrors: ranges off the strip grid or past x, outputs of
// the wrong shape and bad parameters are errors, not panics.
func TestFillGramRowsErrors(t *testing.T) {
	x := randX(rand.New(rand.NewPCG(9, 9)), 300, 4)
	ctx := context.Background()
	for _, tc := range []struct {
		name         string
		r0, r1, r, c int
		s            Spec
	}{
		{"off grid", 3, 10, 7, 10, DefaultSpec(1)},
		{"past x", 0, 301, 301, 301, DefaultSpec(1)},
		{"reversed", linalg.GramStrip, 1, 0, 0, DefaultSpec(1)},
		{"shape", linalg.GramStrip, 200, 72, 199, DefaultSpec(1)},
		{"shape, depth 0", linalg.GramStrip, 200, 72, 199, DefaultSpec(0)},
		{"params", 0, 10, 10, 10, Spec{Depth: -1, WeightStd: 1}},
	} {
		err := FillGramRows(ctx, tc.s, x, Options{}, tc.r0, tc.r1, linalg.New[float64](tc.r, tc.c))
		if err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	err := FillGramRows(ctx, DefaultSpec(1), x, Options{}, 0, 300, linalg.New[float64](300, 300))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestCrossBands: the cross kernel of a band of z starting on the strip
// grid is, bit for bit, the same rows of the whole cross kernel.
func TestCrossBands(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	x, z := randX(rng, 90, 31), randX(rng, 2*linalg.GramStrip+40, 31)
	s := Spec{Depth: 2, WeightStd: 1, BiasStd: 0.3}
	ctx := context.Background()
	want, err := Cross(ctx, s, z, x, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for r0 := 0; r0 < z.Rows; r0 += linalg.GramStrip {
		r1 := min(r0+linalg.GramStrip, z.Rows)
		got, err := Cross(ctx, s, z.Slice(r0, r1, 0, z.Cols), x, Options{})
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
