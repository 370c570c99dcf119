package ntk

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// TestPreparedInto checks Prepared's values against the cross kernel (the
// same values off the marked pairs), the marked pairs against Diag, that
// Into writes its Spec's kind, and that a row's values do not depend on
// the block it is computed in.
func TestPreparedInto(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name    string
		n, d, L int
	}{{"input kernel", 9, 5, 0}, {"small", 9, 5, 1}, {"wide", 300, 784, 2}, {"deep", 40, 17, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			x := randX(rng, tc.n, tc.d)
			p := DefaultSpec(tc.L)
			c, err := Prepare(x, p)
			if err != nil {
				t.Fatal(err)
			}
			rows := []int{tc.n - 1, 0, 2, 1, tc.n / 2}
			z := linalg.New[float64](len(rows), tc.d)
			for i, r := range rows {
				copy(z.Row(i), x.Row(r))
			}
			th, sg := linalg.New[float64](len(rows), tc.n), linalg.New[float64](len(rows), tc.n)
			if err := c.into(context.Background(), z, rows, Options{}, th, sg); err != nil {
				t.Fatal(err)
			}
			wth, wsg := linalg.New[float64](len(rows), tc.n), linalg.New[float64](len(rows), tc.n)
			if err := crossInto(context.Background(), z, x, p, Options{}, wth, wsg, -1); err != nil {
				t.Fatal(err)
			}
			dth, dsg, _ := diags(x, p)
			for i, r := range rows {
				for j := range tc.n {
					wantT, wantS := wth.At(i, j), wsg.At(i, j)
					if j == r {
						wantT, wantS = dth[r], dsg[r]
					}
					if th.At(i, j) != wantT || sg.At(i, j) != wantS {
						t.Fatalf("row %d col %d: got (%v, %v), want (%v, %v)", r, j, th.At(i, j), sg.At(i, j), wantT, wantS)
					}
				}
				one := linalg.New[float64](1, tc.n)
				if err := c.Into(context.Background(), z.Slice(i, i+1, 0, tc.d), rows[i:i+1], Options{Threads: 1}, one); err != nil {
					t.Fatal(err)
				}
				for j, v := range one.Row(0) {
					if v != th.At(i, j) && !(math.IsNaN(v) && math.IsNaN(th.At(i, j))) {
						t.Fatalf("row %d alone differs at column %d: %v, in a block %v", r, j, v, th.At(i, j))
					}
				}
			}
			cg, err := Prepare(x, nngpOf(p))
			if err != nil {
				t.Fatal(err)
			}
			g := linalg.New[float64](len(rows), tc.n)
			if err := cg.Into(context.Background(), z, rows, Options{}, g); err != nil {
				t.Fatal(err)
			}
			for i, v := range g.Data {
				if v != sg.Data[i] {
					t.Fatalf("NNGP element %d: %v, want %v", i, v, sg.Data[i])
				}
			}
			for i, v := range cg.Diag() {
				if v != dsg[i] || c.Diag()[i] != dth[i] {
					t.Fatalf("diagonal %d: %v %v, Diag %v %v", i, c.Diag()[i], v, dth[i], dsg[i])
				}
			}
		})
	}
}

func TestPreparedErrors(t *testing.T) {
	x := linalg.New[float64](4, 3)
	c, err := Prepare(x, DefaultSpec(1))
	if err != nil {
		t.Fatal(err)
	}
	bad := x.Clone()
	bad.Set(2, 1, math.NaN())
	if _, err := Prepare(bad, DefaultSpec(1)); err == nil || !strings.Contains(err.Error(), "row 2") {
		t.Errorf("NaN X: %v", err)
	}
	if _, err := Prepare(x, Spec{}); err == nil {
		t.Error("zero params accepted")
	}
	ctx := context.Background()
	out := linalg.New[float64](2, 4)
	for _, tc := range []struct {
		name string
		z    linalg.Matrix[float64]
		same []int
		out  linalg.Matrix[float64]
		want string
	}{
		{"features", linalg.New[float64](2, 2), nil, out, "features"},
		{"same length", linalg.New[float64](2, 3), []int{0}, out, "entries of same"},
		{"same range", linalg.New[float64](2, 3), []int{0, 4}, out, "same[1]"},
		{"output shape", linalg.New[float64](2, 3), nil, linalg.New[float64](2, 3), "want 2×4"},
		{"no output", linalg.New[float64](2, 3), nil, linalg.Matrix[float64]{}, "no output"},
		{"aliased", x.Slice(0, 2, 0, 3), nil, linalg.Matrix[float64]{Rows: 2, Cols: 4, Stride: 4, Data: x.Data[:8]}, "shares storage"},
	} {
		if err := c.Into(ctx, tc.z, tc.same, Options{}, tc.out); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to mention %q", tc.name, err, tc.want)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.Into(cctx, linalg.New[float64](2, 3), nil, Options{}, out); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}
