package linalg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// spdMatrix returns G·Gᵀ/n + shift·I for a random n×n G: symmetric positive
// definite with eigenvalues in about [shift, 4+shift].
func spdMatrix[T Float](rng *rand.Rand, n int, shift float64) Matrix[T] {
	g := New[float64](n, n)
	for i := range g.Data {
		g.Data[i] = rng.NormFloat64()
	}
	a := New[float64](n, n)
	gemmRef(false, true, 1/float64(max(n, 1)), g, g, 0, a)
	for i := range n {
		a.Data[i*n+i] += shift
	}
	for i := range n { // exact symmetry
		for j := range i {
			a.Data[j*n+i] = a.Data[i*n+j]
		}
	}
	return convertMatrix[T](a)
}

func convertMatrix[T, S Float](a Matrix[S]) Matrix[T] {
	c := New[T](a.Rows, a.Cols)
	for i := range a.Rows {
		for j, v := range a.Row(i) {
			c.Data[i*c.Stride+j] = T(v)
		}
	}
	return c
}

// lowerOf returns the lower triangle of a, zeros above, in float64.
func lowerOf[T Float](a Matrix[T]) Matrix[float64] {
	l := New[float64](a.Rows, a.Cols)
	for i := range a.Rows {
		for j := 0; j <= i && j < a.Cols; j++ {
			l.Data[i*l.Stride+j] = float64(a.At(i, j))
		}
	}
	return l
}

// frobRel returns ‖x − y‖_F / ‖y‖_F.
func frobRel(x, y Matrix[float64]) float64 {
	var d, s float64
	for i := range y.Rows {
		for j := range y.Cols {
			d += (x.At(i, j) - y.At(i, j)) * (x.At(i, j) - y.At(i, j))
			s += y.At(i, j) * y.At(i, j)
		}
	}
	if s == 0 {
		return math.Sqrt(d)
	}
	return math.Sqrt(d / s)
}

func unitRoundoff[T Float]() float64 {
	var zero T
	if unsafe.Sizeof(zero) == 4 {
		return 0x1p-24
	}
	return 0x1p-53
}

// choleskyResidual checks ‖L·Lᵀ − A‖_F/‖A‖_F ≤ c·n·u for a fresh random SPD
// matrix factored with block size nb, inside a larger strided matrix whose
// strict upper triangle and surroundings must stay untouched.
func choleskyResidual[T Float](t *testing.T, rng *rand.Rand, n, nb int) {
	a := spdMatrix[T](rng, n, 0.05)
	big := New[T](n+3, n+5)
	for i := range big.Data {
		big.Data[i] = 7777
	}
	view := big.Slice(1, n+1, 2, n+2)
	for i := range n {
		copy(view.Row(i)[:i+1], a.Row(i)[:i+1])
	}
	if err := choleskyBlocked(view, nb, max(nb/4, 4)); err != nil {
		t.Fatalf("n=%d nb=%d: %v", n, nb, err)
	}
	for i := range big.Rows {
		for j := range big.Cols {
			inside := i >= 1 && i <= n && j >= 2 && j <= n+1 && j-2 <= i-1
			if !inside && big.At(i, j) != 7777 {
				t.Fatalf("n=%d nb=%d: element (%d, %d) outside the lower triangle changed", n, nb, i, j)
			}
		}
	}
	l := lowerOf(view)
	llt := New[float64](n, n)
	gemmRef(false, true, 1, l, l, 0, llt)
	res := frobRel(llt, convertMatrix[float64](a))
	if tol := 4 * float64(n+1) * unitRoundoff[T](); res > tol {
		t.Fatalf("n=%d nb=%d: ‖LLᵀ−A‖/‖A‖ = %.3g > %.3g", n, nb, res, tol)
	}
}

func TestCholeskyResidual(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	sizes := []int{0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 48, 100}
	if !testing.Short() {
		sizes = append(sizes, 255, 256, 257, 300)
	}
	for _, nb := range []int{8, 16, 32, cholBlock} {
		for _, n := range sizes {
			t.Run(fmt.Sprintf("float64/nb=%d/n=%d", nb, n), func(t *testing.T) { choleskyResidual[float64](t, rng, n, nb) })
			t.Run(fmt.Sprintf("float32/nb=%d/n=%d", nb, n), func(t *testing.T) { choleskyResidual[float32](t, rng, n, nb) })
		}
	}
}

func TestCholeskyHilbert(t *testing.T) {
	for _, n := range []int{8, 12, 14} {
		h := New[float64](n, n)
		for i := range n {
			for j := range n {
				h.Set(i, j, 1/float64(i+j+1))
			}
		}
		l := h.Clone()
		err := Cholesky(l)
		var nse *NotSPDError
		switch {
		case err == nil:
			ll := lowerOf(l)
			llt := New[float64](n, n)
			gemmRef(false, true, 1, ll, ll, 0, llt)
			if res := frobRel(llt, h); res > 1e-15*float64(n) {
				t.Fatalf("Hilbert %d: succeeded with backward error %.3g", n, res)
			}
			t.Logf("Hilbert %d: factored, backward error %.2g", n, frobRel(llt, h))
		case errors.As(err, &nse):
			if nse.Index < 0 || nse.Index >= n || nse.Pivot > nse.Threshold {
				t.Fatalf("Hilbert %d: inconsistent error %+v", n, nse)
			}
			t.Logf("Hilbert %d: %v", n, err)
		default:
			t.Fatalf("Hilbert %d: unexpected error %v", n, err)
		}
		if n == 8 && err != nil {
			t.Fatalf("Hilbert 8 (condition 1.5e10) must factor in float64: %v", err)
		}
	}
}

// TestCholeskyNotSPD: rank-deficient PSD matrices (exact integer X·Xᵀ of
// rank r) and indefinite ones must give a *NotSPDError at the right pivot,
// never NaN. The leading r×r block of X·Xᵀ is kept well conditioned: without
// pivoting, rounding errors in the pivots of a rank-deficient matrix grow
// with the conditioning of its leading block, and no threshold can then
// tell a zero pivot from a small one.
func TestCholeskyNotSPD(t *testing.T) {
	seeds := 10
	if testing.Short() {
		seeds = 3
	}
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(13, seed))
		for _, tc := range []struct{ n, r, nb int }{{6, 3, 256}, {40, 20, 8}, {100, 50, 16}, {100, 99, 32}, {300, 200, 64}} {
			if testing.Short() && tc.n > 100 {
				continue
			}
			x := New[float64](tc.n, tc.r)
			for i := range tc.n {
				for j := range tc.r {
					x.Set(i, j, float64(rng.IntN(5)-2))
				}
				if i < tc.r {
					x.Set(i, i, float64(3*tc.r))
				}
			}
			a := New[float64](tc.n, tc.n)
			gemmRef(false, true, 1, x, x, 0, a) // exact: small integers
			for _, f32 := range []bool{false, true} {
				var err error
				if f32 {
					err = choleskyBlocked(convertMatrix[float32](a), tc.nb, max(tc.nb/4, 4))
				} else {
					err = choleskyBlocked(a.Clone(), tc.nb, max(tc.nb/4, 4))
				}
				var nse *NotSPDError
				if !errors.As(err, &nse) {
					t.Fatalf("seed %d n=%d rank %d float32=%v: got %v, want *NotSPDError", seed, tc.n, tc.r, f32, err)
				}
				// The first r rows of X are independent, so pivot r is the
				// first that is zero in exact arithmetic.
				if nse.Index != tc.r || math.IsNaN(nse.Pivot) {
					t.Errorf("seed %d n=%d rank %d float32=%v: failed at pivot %d (%g), want pivot %d",
						seed, tc.n, tc.r, f32, nse.Index, nse.Pivot, tc.r)
				}
			}
		}
	}
	tests := []struct {
		name  string
		a     []float64
		index int
		pivot float64
	}{
		{"indefinite", []float64{1, 2, 2, 1}, 1, -3},
		{"negative diagonal", []float64{-1, 0, 0, 1}, 0, -1},
		{"zero", []float64{0, 0, 0, 0}, 0, 0},
		{"zero second", []float64{4, 0, 2, 1}, 1, 0},
	}
	for _, tt := range tests {
		a, _ := FromSlice(2, 2, tt.a)
		err := Cholesky(a)
		var nse *NotSPDError
		if !errors.As(err, &nse) || nse.Index != tt.index || nse.Pivot != tt.pivot {
			t.Errorf("%s: got %v, want pivot %d = %g", tt.name, err, tt.index, tt.pivot)
		}
		if err != nil && !strings.Contains(err.Error(), "pivot "+strconv.Itoa(tt.index)) {
			t.Errorf("%s: message %q does not name the pivot", tt.name, err)
		}
	}
}

func TestCholeskyBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name string
		a    Matrix[float64]
		want string
	}{
		{"NaN", Matrix[float64]{Rows: 2, Cols: 2, Stride: 2, Data: []float64{1, 0, nan, 1}}, "A[1, 0] is NaN"},
		{"Inf diagonal", Matrix[float64]{Rows: 2, Cols: 2, Stride: 2, Data: []float64{1, 0, 0, inf}}, "A[1, 1] is +Inf"},
		{"not square", New[float64](2, 3), "not square"},
		{"short data", Matrix[float64]{Rows: 3, Cols: 3, Stride: 3, Data: make([]float64, 5)}, "elements"},
	}
	for _, tt := range tests {
		if err := Cholesky(tt.a); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	// NaN above the diagonal is not read.
	a := Matrix[float64]{Rows: 2, Cols: 2, Stride: 2, Data: []float64{4, nan, 2, 5}}
	if err := Cholesky(a); err != nil || a.At(1, 1) != 2 || a.At(1, 0) != 1 || a.At(0, 0) != 2 {
		t.Fatalf("NaN in the upper triangle: %v, L = %v", err, a.Data)
	}
}

// triangularMatrix returns a well-conditioned random n×n matrix whose
// triangle (lower or upper) is the operand and whose other triangle holds
// garbage that the solves must not read.
func triangularMatrix(rng *rand.Rand, n int, lower bool) (stored, clean Matrix[float64]) {
	stored, clean = New[float64](n, n), New[float64](n, n)
	for i := range n {
		for j := range n {
			if i == j {
				v := (1 + rng.Float64()) * float64(1-2*rng.IntN(2))
				stored.Set(i, j, v)
				clean.Set(i, j, v)
			} else if (i > j) == lower {
				v := rng.NormFloat64() / math.Sqrt(float64(n))
				stored.Set(i, j, v)
				clean.Set(i, j, v)
			} else {
				stored.Set(i, j, math.NaN())
			}
		}
	}
	return stored, clean
}

func TestSolveTriangular(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, lower := range []bool{true, false} {
		for _, op := range []Op{NoTrans, Trans} {
			for _, n := range []int{0, 1, 5, 16, 17, 33, 100} {
				for _, r := range []int{1, 7} {
					name := fmt.Sprintf("lower=%v/op=%v/n=%d/r=%d", lower, op, n, r)
					stored, clean := triangularMatrix(rng, n, lower)
					bigB := New[float64](n+1, r+3)
					for i := range bigB.Data {
						bigB.Data[i] = rng.NormFloat64()
					}
					b := bigB.Slice(1, n+1, 1, r+1)
					b0 := b.Clone()
					var err error
					if lower {
						err = SolveLower(op, stored, b)
					} else {
						err = SolveUpper(op, stored, b)
					}
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					// Residual ‖op(T)·X − B‖ / (‖T‖·‖X‖).
					got := New[float64](n, r)
					gemmRef(bool(op), false, 1, clean, b, 0, got)
					res := frobRel(got, b0)
					if res > 1e-13 {
						t.Fatalf("%s: relative residual %.3g", name, res)
					}
				}
			}
		}
	}
}

func TestSolveErrors(t *testing.T) {
	l := New[float64](3, 3)
	l.Set(0, 0, 1)
	l.Set(1, 1, 1)
	if err := SolveLower(NoTrans, l, New[float64](3, 2)); err == nil || !strings.Contains(err.Error(), "diagonal element 2") {
		t.Errorf("singular L: %v", err)
	}
	l.Set(2, 2, 1)
	if err := SolveUpper(Trans, l, New[float64](4, 2)); !errors.Is(err, ErrShape) {
		t.Errorf("shape: %v", err)
	}
	if err := SolveLower(NoTrans, l, l.Slice(0, 3, 1, 2)); err == nil || !strings.Contains(err.Error(), "shares storage") {
		t.Errorf("aliasing: %v", err)
	}
	if err := SolveSPD(New[float64](3, 3), New[float64](2, 1)); !errors.Is(err, ErrShape) {
		t.Errorf("SolveSPD shape: %v", err)
	}
}

func TestCholeskySolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, n := range []int{1, 17, 70, 150} {
		for _, r := range []int{1, 5} {
			a := spdMatrix[float64](rng, n, 0.1)
			b := New[float64](n, r)
			for i := range b.Data {
				b.Data[i] = rng.NormFloat64()
			}
			x := b.Clone()
			f := a.Clone()
			if err := SolveSPD(f, x); err != nil {
				t.Fatal(err)
			}
			ax := New[float64](n, r)
			gemmRef(false, false, 1, a, x, 0, ax)
			if res := frobRel(ax, b); res > 1e-12 {
				t.Fatalf("n=%d r=%d: ‖AX−B‖/‖B‖ = %.3g", n, r, res)
			}
			// float32 through CholeskySolve on the float32 factor.
			a32, x32 := convertMatrix[float32](a), convertMatrix[float32](b)
			if err := Cholesky(a32); err != nil {
				t.Fatal(err)
			}
			if err := CholeskySolve(a32, x32); err != nil {
				t.Fatal(err)
			}
			gemmRef(false, false, 1, a, convertMatrix[float64](x32), 0, ax)
			if res := frobRel(ax, b); res > 1e-4 {
				t.Fatalf("float32 n=%d r=%d: ‖AX−B‖/‖B‖ = %.3g", n, r, res)
			}
		}
	}
}

// BenchmarkCholesky reports GFLOP/s with n³/3 flops. n = 12665 (the full
// MNIST 0/1 train set) runs only with NTKSVM_BENCH_LARGE=1. The gemm-ref
// sub-benchmark gives the square DGEMM rate of the same moment, the
// yardstick for the Cholesky rate (the machine may be shared).
func BenchmarkCholesky(b *testing.B) {
	sizes := []int{512, 2048, 4096}
	if os.Getenv("NTKSVM_BENCH_LARGE") == "1" {
		sizes = append(sizes, 12665)
	}
	b.Run("float64/gemm-ref/n=2048", func(b *testing.B) {
		n := 2048
		x, y, c := New[float64](n, n), New[float64](n, n), New[float64](n, n)
		for i := range x.Data {
			x.Data[i], y.Data[i] = float64(i%7), float64(i%5)
		}
		for b.Loop() {
			if err := Gemm(NoTrans, Trans, 1, x, y, 0, c); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
	for _, n := range sizes {
		b.Run(fmt.Sprintf("float64/n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, uint64(n)))
			a := New[float64](n, n)
			// Diagonally dominant SPD matrix, cheap to build at any n.
			for i := range n {
				for j := range i {
					v := rng.Float64() / float64(n)
					a.Data[i*n+j], a.Data[j*n+i] = v, v
				}
				a.Data[i*n+i] = 2
			}
			w := New[float64](n, n)
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				copy(w.Data, a.Data)
				b.StartTimer()
				if err := Cholesky(w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(n)*float64(n)/3*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// TestCholeskyThreads: the factor is bitwise the same on any number of
// threads (Gemm splits over blocks of C only, the panel solve over columns).
func TestCholeskyThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	n := 600 // panel solves of over 512 columns run on 2 goroutines
	if testing.Short() {
		n = 200
	}
	a := spdMatrix[float64](rng, n, 0.1)
	defer SetThreads(0)
	var first Matrix[float64]
	for _, th := range []int{1, 2, 3} {
		SetThreads(th)
		l := a.Clone()
		if err := choleskyBlocked(l, 64, 16); err != nil {
			t.Fatal(err)
		}
		if th == 1 {
			first = l
		} else if bitsDiffer(l.Data, first.Data) {
			t.Fatalf("%d threads give a different factor than 1 thread", th)
		}
	}
}

// TestSolveSPDScratch checks that the factorisation with its panels in the
// strict upper triangle gives SolveSPD's factor and solution bit for bit,
// without reading that triangle (NaN here), for both element types and
// block sizes that make several panels, a short last block and the
// recursive diagonal blocks use the scratch path.
func TestSolveSPDScratch(t *testing.T) {
	for _, tc := range []struct {
		name          string
		n, nb, leaf   int
		useSolveEntry bool
	}{
		{"one leaf", 12, 64, 16, false},
		{"blocks of 64", 300, 64, 16, false},
		{"short last block", 203, 64, 16, false},
		{"SolveSPDScratchContext", 600, cholBlock, cholLeaf, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(23, uint64(tc.n)))
			a := spdMatrix[float64](rng, tc.n, 0.1)
			checkScratch(t, a, tc.nb, tc.leaf, tc.useSolveEntry)
			checkScratch(t, convertMatrix[float32](a), tc.nb, tc.leaf, tc.useSolveEntry)
		})
	}
}

func checkScratch[T Float](t *testing.T, a Matrix[T], nb, leaf int, entry bool) {
	t.Helper()
	n := a.Rows
	want, got := a.Clone(), a.Clone()
	for i := range n {
		for j := i + 1; j < n; j++ {
			got.Data[i*got.Stride+j] = T(math.NaN())
		}
	}
	bw, bg := New[T](n, 1), New[T](n, 1)
	for i := range n {
		bw.Data[i] = T(i%7) - 3
		bg.Data[i] = bw.Data[i]
	}
	ctx := context.Background()
	if entry {
		if err := SolveSPDContext(ctx, want, bw); err != nil {
			t.Fatal(err)
		}
		if err := SolveSPDScratchContext(ctx, got, bg); err != nil {
			t.Fatal(err)
		}
		if bitsDiffer(bg.Data, bw.Data) {
			t.Fatalf("%T n=%d: the solution differs from SolveSPD's", a.Data, n)
		}
	} else {
		if err := choleskyWith(ctx, want, nb, leaf, false); err != nil {
			t.Fatal(err)
		}
		if err := choleskyWith(ctx, got, nb, leaf, true); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		if bitsDiffer(got.Row(i)[:i+1], want.Row(i)[:i+1]) {
			t.Fatalf("%T n=%d nb=%d: factor row %d differs", a.Data, n, nb, i)
		}
	}
}

// bitsDiffer reports whether a and b (same length) differ in any bit.
func bitsDiffer[T Float](a, b []T) bool {
	for i := range a {
		if math.Float64bits(float64(a[i])) != math.Float64bits(float64(b[i])) {
			return true
		}
	}
	return false
}
