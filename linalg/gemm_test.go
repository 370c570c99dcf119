package linalg

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/asm"
)

// sentinel fills the padding between rows (stride > cols) of test
// matrices: it must never be read into a result (it is NaN) nor
// overwritten.
var sentinel = math.NaN()

// randMatrix returns a rows×cols matrix with stride cols+pad whose
// elements are uniform in [-1, 1) and whose padding holds NaN.
func randMatrix[T Float](rng *rand.Rand, rows, cols, pad int) Matrix[T] {
	if rows == 0 || cols == 0 {
		return New[T](rows, cols) // Matrix.Row cannot index rows of an empty strided matrix
	}
	stride := cols + pad
	data := make([]T, max(minLen(rows, cols, stride), 0))
	for i := range data {
		data[i] = T(sentinel)
	}
	m, err := FromStrided(rows, cols, stride, data)
	if err != nil {
		panic(err)
	}
	for i := range rows {
		for j := range cols {
			m.Set(i, j, T(2*rng.Float64()-1))
		}
	}
	return m
}

// eps is the unit roundoff of T.
func eps[T Float]() float64 {
	var z T
	if _, ok := any(z).(float32); ok {
		return 0x1p-24
	}
	return 0x1p-53
}

// absProduct returns |alpha|·|op(A)|·|op(B)| + |beta|·|C|, the scale of the
// rounding error of each element of a product.
func absProduct[T Float](tA, tB bool, alpha T, a, b Matrix[T], beta T, c Matrix[T]) []float64 {
	abs := func(x Matrix[T]) Matrix[T] {
		y := x.Clone()
		for i := range y.Data {
			y.Data[i] = T(math.Abs(float64(y.Data[i])))
		}
		return y
	}
	ac := abs(c)
	if beta == 0 {
		clear(ac.Data)
	}
	gemmRef(tA, tB, T(math.Abs(float64(alpha))), abs(a), abs(b), T(math.Abs(float64(beta))), ac)
	out := make([]float64, len(ac.Data))
	for i, v := range ac.Data {
		out[i] = float64(v)
	}
	return out
}

// checkProduct compares got with the float64-accumulated reference want
// within 2·(k+2)·ε·scale per element, and checks that the padding of got
// is intact.
func checkProduct[T Float](t *testing.T, name string, k int, got, want Matrix[T], scale []float64) {
	t.Helper()
	tol := 2 * float64(k+2) * eps[T]()
	for i := range got.Rows {
		for j := range got.Cols {
			g, w := float64(got.At(i, j)), float64(want.At(i, j))
			if d := math.Abs(g - w); !(d <= tol*scale[i*got.Cols+j]+1e-300) {
				t.Fatalf("%s: C[%d,%d] = %g, want %g (|diff| %.3g > bound %.3g)",
					name, i, j, g, w, d, tol*scale[i*got.Cols+j])
			}
		}
		if i < got.Rows-1 {
			for j := got.Cols; j < got.Stride; j++ {
				if v := got.Data[i*got.Stride+j]; v == v {
					t.Fatalf("%s: padding C.Data[%d] overwritten with %g", name, i*got.Stride+j, v)
				}
			}
		}
	}
}

// opShape returns the stored shape of an operand that is rows×cols after op.
func opShape(trans bool, rows, cols int) (int, int) {
	if trans {
		return cols, rows
	}
	return rows, cols
}

// scalars are the (alpha, beta) pairs the tests cycle through; beta = 0
// runs with NaN in C, which must not propagate.
var scalars = [][2]float64{{1, 0}, {-0.5, 1}, {2, -1.5}, {0.75, 0}, {1, 1}}

// testGemmCase runs one product through gemmWith and the reference.
func testGemmCase[T Float](t *testing.T, rng *rand.Rand, cfg gemmConfig, tA, tB bool, m, n, k, pad, sc int) {
	t.Helper()
	alpha, beta := T(scalars[sc%len(scalars)][0]), T(scalars[sc%len(scalars)][1])
	ar, ac := opShape(tA, m, k)
	br, bc := opShape(tB, k, n)
	a := randMatrix[T](rng, ar, ac, pad)
	b := randMatrix[T](rng, br, bc, (pad+1)%3)
	c := randMatrix[T](rng, m, n, pad)
	if beta == 0 {
		for i := range m {
			for j := range n {
				c.Set(i, j, T(math.NaN()))
			}
		}
	}
	want := c.Clone()
	gemmRef(tA, tB, alpha, a, b, beta, want)
	scale := absProduct(tA, tB, alpha, a, b, beta, c)
	name := fmt.Sprintf("tA=%v tB=%v m=%d n=%d k=%d alpha=%g beta=%g", tA, tB, m, n, k, alpha, beta)
	if err := gemmWith(cfg, Op(tA), Op(tB), alpha, a, b, beta, c); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	checkProduct(t, name, k, c, want, scale)
}

// edges returns sizes around 1, q and the multiples of q up to 2·block+q.
func edges(q, block int, short bool) []int {
	s := []int{1, q - 1, q, q + 1, block + q - 1, 2*block + 1}
	if short {
		s = []int{1, q + 1, block + q - 1}
	}
	out := s[:0]
	seen := map[int]bool{}
	for _, v := range s {
		if v >= 1 && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// TestGemmEdges runs every kernel set, both element types and every
// transpose pair over sizes around the micro-tile and forced small block
// edges, on 3 threads, with strided operands.
func TestGemmEdges(t *testing.T) {
	for _, ks := range asm.Available() {
		t.Run(ks.Name()+"/float32", func(t *testing.T) { testGemmEdges[float32](t, ks) })
		t.Run(ks.Name()+"/float64", func(t *testing.T) { testGemmEdges[float64](t, ks) })
	}
}

func testGemmEdges[T Float](t *testing.T, ks *asm.Kernels) {
	mr, nr, _ := kernelFor[T](ks)
	blk := blocking{mc: 2 * mr, kc: 5, nc: 2 * nr}
	cfg := gemmConfig{kern: ks, threads: 3, blk: blk, noSmall: true, split: true}
	rng := rand.New(rand.NewPCG(1, 2))
	ks2 := []int{1, 4, 5, 6, 11}
	if testing.Short() {
		ks2 = []int{1, 6, 11}
	}
	sc := 0
	for _, tA := range []bool{false, true} {
		for _, tB := range []bool{false, true} {
			for _, m := range edges(mr, blk.mc, testing.Short()) {
				for _, n := range edges(nr, blk.nc, testing.Short()) {
					for _, k := range ks2 {
						sc++
						testGemmCase[T](t, rng, cfg, tA, tB, m, n, k, sc%3, sc)
					}
				}
			}
		}
	}
}

// TestGemmDefault runs the exported Gemm (default kernels, blocks and
// threads, small-matrix path included) on assorted shapes, the paper's
// skinny layer shape among them.
func TestGemmDefault(t *testing.T) {
	shapes := [][3]int{{0, 5, 3}, {5, 0, 3}, {4, 5, 0}, {1, 1, 1}, {3, 7, 2}, {16, 16, 16},
		{17, 15, 16}, {64, 64, 64}, {300, 200, 260}, {128, 1000, 784}}
	if testing.Short() {
		shapes = shapes[:8]
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i, s := range shapes {
		tA, tB := i%2 == 1, i%3 == 1
		testGemmCase[float32](t, rng, gemmConfig{}, tA, tB, s[0], s[1], s[2], i%2, i)
		testGemmCase[float64](t, rng, gemmConfig{}, tB, tA, s[0], s[1], s[2], 1-i%2, i+1)
	}
}

// TestGemmDeterministic checks that the result is bitwise the same for 1,
// 2, 3 and 8 threads, for Gemm and Gram, with the default and with small
// forced blocks.
func TestGemmDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m, n, k := 157, 203, 131
	if testing.Short() {
		m, n, k = 61, 83, 37
	}
	a := randMatrix[float32](rng, m, k, 0)
	b := randMatrix[float32](rng, k, n, 1)
	for _, blk := range []blocking{{}, {mc: 48, kc: 16, nc: 64}} {
		var ref0, ref1 Matrix[float32]
		for _, th := range []int{1, 2, 3, 8} {
			cfg := gemmConfig{threads: th, blk: blk, split: true}
			if blk.kc != 0 {
				mr, nr, _ := kernelFor[float32](asm.Active())
				cfg.blk = blocking{mc: roundUp(blk.mc, mr), kc: blk.kc, nc: roundUp(blk.nc, nr)}
			}
			c := New[float32](m, n)
			if err := gemmWith(cfg, NoTrans, NoTrans, 1.5, a, b, 0, c); err != nil {
				t.Fatal(err)
			}
			g := New[float32](m, m)
			if err := gramWith(cfg, a, g); err != nil {
				t.Fatal(err)
			}
			if th == 1 {
				ref0, ref1 = c, g
				continue
			}
			for i := range c.Data {
				if math.Float32bits(c.Data[i]) != math.Float32bits(ref0.Data[i]) {
					t.Fatalf("blocks %+v: Gemm on %d threads differs from 1 thread at %d", blk, th, i)
				}
			}
			for i := range g.Data {
				if math.Float32bits(g.Data[i]) != math.Float32bits(ref1.Data[i]) {
					t.Fatalf("blocks %+v: Gram on %d threads differs from 1 thread at %d", blk, th, i)
				}
			}
		}
	}
}

// TestGemmSpecial checks the BLAS conventions for alpha = 0, k = 0 and
// beta = 0.
func TestGemmSpecial(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	tests := []struct {
		name        string
		m, n, k     int
		fillA       float32
		cIn         float32
		alpha, beta float32
		want        float32
	}{
		{"beta=0 ignores NaN in C", 40, 40, 40, 1, nan, 1, 0, 40},
		{"alpha=0 scales C only", 40, 40, 40, inf, 2, 0, 3, 6},
		{"alpha=0 beta=0 zeroes C", 40, 40, 40, nan, nan, 0, 0, 0},
		{"k=0 scales C", 40, 40, 0, 1, 2, 1, -1, -2},
		{"beta=1 accumulates", 3, 3, 3, 1, 1, 2, 1, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b, c := New[float32](tc.m, tc.k), New[float32](tc.k, tc.n), New[float32](tc.m, tc.n)
			for i := range a.Data {
				a.Data[i] = tc.fillA
			}
			for i := range b.Data {
				b.Data[i] = 1
			}
			for i := range c.Data {
				c.Data[i] = tc.cIn
			}
			if err := Gemm(NoTrans, NoTrans, tc.alpha, a, b, tc.beta, c); err != nil {
				t.Fatal(err)
			}
			for i, v := range c.Data {
				if v != tc.want {
					t.Fatalf("C.Data[%d] = %g, want %g", i, v, tc.want)
				}
			}
		})
	}
}

// TestGemmErrors checks that bad shapes and aliasing are errors.
func TestGemmErrors(t *testing.T) {
	a := New[float64](4, 3)
	big := New[float64](10, 10)
	tests := []struct {
		name     string
		opA, opB Op
		a, b, c  Matrix[float64]
		shape    bool // the error wraps ErrShape
	}{
		{"inner mismatch", NoTrans, NoTrans, a, New[float64](4, 5), New[float64](4, 5), true},
		{"C rows", NoTrans, NoTrans, a, New[float64](3, 5), New[float64](3, 5), true},
		{"C cols", NoTrans, Trans, a, New[float64](5, 3), New[float64](4, 4), true},
		{"transposed A", Trans, NoTrans, a, New[float64](3, 2), New[float64](3, 2), true},
		{"short data", NoTrans, NoTrans, Matrix[float64]{Rows: 4, Cols: 3, Stride: 3, Data: make([]float64, 11)},
			New[float64](3, 2), New[float64](4, 2), true},
		{"bad stride", NoTrans, NoTrans, Matrix[float64]{Rows: 4, Cols: 3, Stride: 2, Data: make([]float64, 12)},
			New[float64](3, 2), New[float64](4, 2), true},
		{"C aliases A", NoTrans, NoTrans, big.Slice(0, 4, 0, 3), New[float64](3, 4), big.Slice(2, 6, 4, 8), false},
		{"C aliases B", NoTrans, NoTrans, a, big.Slice(0, 3, 0, 4), big.Slice(2, 6, 0, 4), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Gemm(tc.opA, tc.opB, 1, tc.a, tc.b, 0, tc.c)
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, ErrShape) != tc.shape {
				t.Fatalf("error %q: wraps ErrShape = %v, want %v", err, !tc.shape, tc.shape)
			}
		})
	}
	// Disjoint views of one matrix are fine.
	if err := Gemm(NoTrans, NoTrans, 1, big.Slice(0, 3, 0, 3), big.Slice(3, 6, 0, 4), 0, big.Slice(6, 9, 0, 4)); err != nil {
		t.Fatalf("disjoint views of one matrix: %v", err)
	}
}
