package linalg

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// gemvRef computes alpha·op(A)·x + beta·y in float64 and the error scale
// |alpha|·|op(A)|·|x| + |beta|·|y| of each element.
func gemvRef[A, X Float](trans bool, alpha X, a Matrix[A], x []X, beta X, y []X) (want, scale []float64) {
	m, n := a.Rows, a.Cols
	if trans {
		m, n = n, m
	}
	want, scale = make([]float64, m), make([]float64, m)
	for i := range m {
		var s, sa float64
		for j := range n {
			var av float64
			if trans {
				av = float64(a.Data[j*a.Stride+i])
			} else {
				av = float64(a.Data[i*a.Stride+j])
			}
			s += av * float64(x[j])
			sa += math.Abs(av * float64(x[j]))
		}
		want[i] = float64(alpha) * s
		scale[i] = math.Abs(float64(alpha)) * sa
		if beta != 0 {
			want[i] += float64(beta) * float64(y[i])
			scale[i] += math.Abs(float64(beta) * float64(y[i]))
		}
	}
	return want, scale
}

func testGemv[A, X Float](t *testing.T, fn func(Op, X, Matrix[A], []X, X, []X) error, threads int) {
	rng := rand.New(rand.NewPCG(13, 14))
	sizes := []int{0, 1, 3, 4, 5, 9, 70, 133}
	sc := 0
	for _, trans := range []bool{false, true} {
		for _, m := range sizes {
			for _, n := range sizes {
				sc++
				alpha, beta := X(scalars[sc%len(scalars)][0]), X(scalars[sc%len(scalars)][1])
				a := randMatrix[A](rng, m, n, sc%2)
				xn, yn := n, m
				if trans {
					xn, yn = m, n
				}
				x, y := make([]X, xn), make([]X, yn)
				for i := range x {
					x[i] = X(rng.NormFloat64())
				}
				for i := range y {
					y[i] = X(rng.NormFloat64())
					if beta == 0 {
						y[i] = X(math.NaN())
					}
				}
				want, scale := gemvRef(trans, alpha, a, x, beta, y)
				var err error
				if threads > 0 {
					err = gemv("test", Op(trans), alpha, a, x, beta, y, threads, 1)
				} else {
					err = fn(Op(trans), alpha, a, x, beta, y)
				}
				if err != nil {
					t.Fatal(err)
				}
				tol := 2 * float64(max(m, n)+2) * eps[A]()
				for i := range y {
					if d := math.Abs(float64(y[i]) - want[i]); !(d <= tol*scale[i]+1e-300) {
						t.Fatalf("trans=%v m=%d n=%d alpha=%g beta=%g: y[%d] = %g, want %g",
							trans, m, n, alpha, beta, i, y[i], want[i])
					}
				}
			}
		}
	}
}

// TestGemv checks Gemv and GemvF32F64 against a float64 reference for
// both ops, sizes across the 4-row blocks, and 1 and 3 threads.
func TestGemv(t *testing.T) {
	for _, th := range []int{0, 3} {
		t.Run(fmt.Sprintf("threads=%d", th), func(t *testing.T) {
			testGemv[float32, float32](t, Gemv[float32], th)
			testGemv[float64, float64](t, Gemv[float64], th)
			testGemv[float32, float64](t, GemvF32F64, th)
		})
	}
}

// TestGemvDeterministic checks that Gemv gives bitwise equal results on 1,
// 2, 3 and 8 threads.
func TestGemvDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	a := randMatrix[float32](rng, 203, 197, 1) // odd sizes: every thread split leaves kernel tails
	x := make([]float64, 203)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	for _, op := range []Op{NoTrans, Trans} {
		var ref []float64
		for _, th := range []int{1, 2, 3, 8} {
			y := make([]float64, 197)
			if op == NoTrans {
				y = make([]float64, 203)
				if err := gemv("test", op, 1.5, a, x[:197], 0, y, th, 1); err != nil {
					t.Fatal(err)
				}
			} else if err := gemv("test", op, 1.5, a, x, 0, y, th, 1); err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = y
				continue
			}
			for i := range y {
				if math.Float64bits(y[i]) != math.Float64bits(ref[i]) {
					t.Fatalf("op=%v: %d threads differ from 1 at y[%d]", op, th, i)
				}
			}
		}
	}
}

// TestGemvErrors checks shape and aliasing errors.
func TestGemvErrors(t *testing.T) {
	a := New[float64](4, 3)
	buf := make([]float64, 10)
	tests := []struct {
		name  string
		err   error
		shape bool
	}{
		{"x too short", Gemv(NoTrans, 1, a, make([]float64, 2), 0, make([]float64, 4)), true},
		{"y too long", Gemv(NoTrans, 1, a, make([]float64, 3), 0, make([]float64, 5)), true},
		{"Trans x", Gemv(Trans, 1, a, make([]float64, 3), 0, make([]float64, 3)), true},
		{"y aliases A", Gemv(NoTrans, 1, a, make([]float64, 3), 0, a.Data[:4]), false},
		{"y aliases x", Gemv(NoTrans, 1, a, buf[:3], 0, buf[2:6]), false},
		{"mixed shape", GemvF32F64(Trans, 1, New[float32](4, 3), make([]float64, 3), 0, make([]float64, 3)), true},
	}
	for _, tc := range tests {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if errors.Is(tc.err, ErrShape) != tc.shape {
			t.Errorf("%s: %q wraps ErrShape = %v, want %v", tc.name, tc.err, !tc.shape, tc.shape)
		}
	}
}

// BenchmarkGemv times y = A·x and y = Aᵀ·x on a 4096×4096 matrix (64 MiB
// in float32), reporting the matrix bytes streamed per second.
func BenchmarkGemv(b *testing.B) {
	const n = 4096
	rng := rand.New(rand.NewPCG(17, 18))
	a := randMatrix[float32](rng, n, n, 0)
	a64 := New[float64](n, n)
	for i, v := range a.Data {
		a64.Data[i] = float64(v)
	}
	x32, y32 := make([]float32, n), make([]float32, n)
	x64, y64 := make([]float64, n), make([]float64, n)
	for i := range n {
		x32[i], x64[i] = float32(rng.NormFloat64()), rng.NormFloat64()
	}
	for _, op := range []Op{NoTrans, Trans} {
		for _, th := range []int{1, Threads()} {
			name := fmt.Sprintf("op=%v/threads=%d", map[Op]string{NoTrans: "N", Trans: "T"}[op], th)
			b.Run("float32/"+name, func(b *testing.B) {
				b.SetBytes(4 * n * n)
				for b.Loop() {
					if err := gemv("Gemv", op, 1, a, x32, 0, y32, th, gemvMinWork); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("f32f64/"+name, func(b *testing.B) {
				b.SetBytes(4 * n * n)
				for b.Loop() {
					if err := gemv("GemvF32F64", op, 1, a, x64, 0, y64, th, gemvMinWork); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("float64/"+name, func(b *testing.B) {
				b.SetBytes(8 * n * n)
				for b.Loop() {
					if err := gemv("Gemv", op, 1, a64, x64, 0, y64, th, gemvMinWork); err != nil {
						b.Fatal(err)
					}
				}
			})
			if th == Threads() {
				break
			}
		}
	}
}
