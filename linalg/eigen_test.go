package linalg

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// randomOrthogonal returns a random n×n orthogonal matrix (Gram–Schmidt,
// twice, on a Gaussian matrix).
func randomOrthogonal(rng *rand.Rand, n int) Matrix[float64] {
	q := New[float64](n, n)
	for i := range q.Data {
		q.Data[i] = rng.NormFloat64()
	}
	for i := range n {
		ri := q.Row(i)
		for range 2 {
			for p := range i {
				rp := q.Row(p)
				triAxpy(-cholDot(rp, ri), rp, ri)
			}
		}
		s := 1 / math.Sqrt(cholDot(ri, ri))
		triScal(s, ri)
	}
	return q
}

// withSpectrum returns Qᵀ·diag(d)·Q for a random orthogonal Q, exactly
// symmetrized.
func withSpectrum(rng *rand.Rand, d []float64) Matrix[float64] {
	n := len(d)
	q := randomOrthogonal(rng, n)
	dq := New[float64](n, n)
	for i := range n {
		for j := range n {
			dq.Data[i*n+j] = d[i] * q.Data[i*n+j]
		}
	}
	a := New[float64](n, n)
	gemmRef(true, false, 1, q, dq, 0, a)
	for i := range n {
		for j := range i {
			v := (a.Data[i*n+j] + a.Data[j*n+i]) / 2
			a.Data[i*n+j], a.Data[j*n+i] = v, v
		}
	}
	return a
}

func maxAbsDiff(x, y []float64) float64 {
	var m float64
	for i := range x {
		m = max(m, math.Abs(x[i]-y[i]))
	}
	return m
}

func TestEigenvaluesSymKnown(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	spread := func(n int) []float64 {
		d := make([]float64, n)
		for i := range d {
			d[i] = rng.Float64()*20 - 10
		}
		return d
	}
	clustered := func(n int) []float64 {
		d := spread(n)
		for i := range min(n, 5) {
			d[i] = 1 + float64(i)*1e-9
		}
		d[n-1] = d[n-2] // a double eigenvalue
		return d
	}
	tests := []struct {
		name string
		d    []float64
	}{
		{"n=1", []float64{-3}},
		{"n=2", []float64{2, -1}},
		{"n=3", []float64{0, 0, 5}},
		{"zeros", make([]float64, 6)},
		{"spread 40", spread(40)},
		{"clustered 60", clustered(60)},
		{"spread 150", spread(150)},
		{"tiny and huge", []float64{1e-300, -1e300, 1, 1e150, -1e-10, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := slices.Clone(tt.d)
			slices.Sort(want)
			dmax := max(math.Abs(want[0]), math.Abs(want[len(want)-1]))
			// Diagonal: exact.
			n := len(tt.d)
			diag := New[float64](n, n)
			for i, v := range tt.d {
				diag.Set(i, i, v)
			}
			got, err := EigenvaluesSym(diag)
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("diagonal: got %v (%v), want %v", got, err, want)
			}
			if dmax > 1e100 {
				return // Q·D·Qᵀ would lose the small ones entirely
			}
			a := withSpectrum(rng, tt.d)
			got, err = EigenvaluesSym(a)
			if err != nil {
				t.Fatal(err)
			}
			if e, tol := maxAbsDiff(got, want), 10*float64(n)*0x1p-52*max(dmax, 1e-300); e > tol {
				t.Fatalf("Q·D·Qᵀ: max error %.3g > %.3g", e, tol)
			}
		})
	}
}

// TestEigenvaluesSymIdentities checks Σλ = trace(A) and Σλ² = ‖A‖_F² on
// random symmetric matrices, and that only the lower triangle is read.
func TestEigenvaluesSymIdentities(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, n := range []int{2, 7, 33, 100} {
		a := New[float64](n, n)
		var tr, fro float64
		for i := range n {
			for j := 0; j <= i; j++ {
				v := rng.NormFloat64()
				a.Set(i, j, v)
				if i == j {
					tr += v
					fro += v * v
				} else {
					a.Set(j, i, math.NaN()) // must not be read
					fro += 2 * v * v
				}
			}
		}
		got, err := EigenvaluesSym(a)
		if err != nil {
			t.Fatal(err)
		}
		var s, s2 float64
		for _, v := range got {
			s += v
			s2 += v * v
		}
		if !slices.IsSorted(got) {
			t.Fatalf("n=%d: not ascending: %v", n, got)
		}
		if math.Abs(s-tr) > 1e-12*float64(n)*math.Sqrt(fro) || math.Abs(s2-fro) > 1e-12*float64(n)*fro {
			t.Fatalf("n=%d: Σλ = %v vs trace %v; Σλ² = %v vs ‖A‖² %v", n, s, tr, s2, fro)
		}
		// float32 input gives the eigenvalues of the rounded matrix.
		a32 := convertMatrix[float32](a)
		got32, err := EigenvaluesSym(a32)
		if err != nil || maxAbsDiff(got32, got) > 1e-5*math.Sqrt(fro) {
			t.Fatalf("n=%d float32: %v, max diff %.3g", n, err, maxAbsDiff(got32, got))
		}
	}
}

func TestEigenvaluesSymErrors(t *testing.T) {
	if _, err := EigenvaluesSym(New[float64](2, 3)); !errors.Is(err, ErrShape) {
		t.Errorf("non-square: %v", err)
	}
	a := New[float64](3, 3)
	a.Set(2, 1, math.Inf(-1))
	if _, err := EigenvaluesSym(a); err == nil || !strings.Contains(err.Error(), "A[2, 1] is -Inf") {
		t.Errorf("Inf: %v", err)
	}
	if got, err := EigenvaluesSym(New[float64](0, 0)); err != nil || len(got) != 0 {
		t.Errorf("empty: %v %v", got, err)
	}
}

func BenchmarkEigenvaluesSym(b *testing.B) {
	for _, n := range []int{200, 1000} {
		rng := rand.New(rand.NewPCG(1, 2))
		a := New[float64](n, n)
		for i := range a.Data {
			a.Data[i] = rng.NormFloat64()
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := EigenvaluesSym(a); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(4*float64(n)*float64(n)*float64(n)/3*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// TestEigenSymVectors checks ‖A·v − λ·v‖ and the orthonormality of the
// eigenvectors, including repeated and clustered eigenvalues.
func TestEigenSymVectors(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	random := func(n int) Matrix[float64] {
		a := New[float64](n, n)
		for i := range n {
			for j := 0; j <= i; j++ {
				v := rng.NormFloat64()
				a.Set(i, j, v)
				a.Set(j, i, v)
			}
		}
		return a
	}
	repeated := []float64{1, 1, 1, 2, 2, 3, 3 + 1e-12, -4, 0, 0}
	tests := []struct {
		name string
		a    Matrix[float64]
	}{
		{"1×1", random(1)},
		{"2×2", random(2)},
		{"random 30", random(30)},
		{"random 120", random(120)},
		{"random 300 (banded reduction)", random(300)},
		{"repeated", withSpectrum(rng, repeated)},
		{"diagonal", withSpectrum(rng, []float64{5, 4, 3, 2, 1})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.a.Rows
			vals, vecs, err := EigenSym(tt.a)
			if err != nil {
				t.Fatal(err)
			}
			only, err := EigenvaluesSym(tt.a)
			if err != nil || !slices.Equal(only, vals) {
				t.Fatalf("EigenvaluesSym %v differs from EigenSym %v (%v)", only, vals, err)
			}
			var anorm float64
			for _, v := range tt.a.Data {
				anorm += v * v
			}
			anorm = math.Sqrt(anorm)
			tol := 20 * float64(n) * 0x1p-52
			av := make([]float64, n)
			for i := range n {
				v := vecs.Row(i)
				for r := range n {
					av[r] = cholDot(tt.a.Row(r), v)
				}
				var res float64
				for r := range n {
					res = max(res, math.Abs(av[r]-vals[i]*v[r]))
				}
				if res > tol*anorm {
					t.Fatalf("eigenpair %d: ‖Av − λv‖∞ = %.3g > %.3g", i, res, tol*anorm)
				}
				for j := 0; j <= i; j++ {
					want := 0.0
					if i == j {
						want = 1
					}
					if got := cholDot(vecs.Row(j), v); math.Abs(got-want) > tol {
						t.Fatalf("vᵢ·vⱼ for %d, %d = %v, want %v", i, j, got, want)
					}
				}
			}
		})
	}
}

// TestEigenSymThreads: the reduction splits its work into bands fixed by
// the order alone, so values and vectors are bitwise the same on any
// number of threads.
func TestEigenSymThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	n := 280
	a := New[float64](n, n)
	for i := range a.Data {
		a.Data[i] = rng.NormFloat64()
	}
	defer SetThreads(0)
	SetThreads(1)
	v1, z1, err1 := EigenSym(a)
	SetThreads(3)
	v3, z3, err3 := EigenSym(a)
	if err1 != nil || err3 != nil {
		t.Fatal(err1, err3)
	}
	if bitsDiffer(v1, v3) || bitsDiffer(z1.Data, z3.Data) {
		t.Fatal("1 and 3 threads give different results")
	}
}
