package linalg

import (
	"fmt"
	"math"

	"github.com/ntksvm/ntksvm/asm"
)

// Level-1 BLAS. Vectors are plain slices; a length mismatch between x and
// y is a programmer error and panics with a message naming both lengths.
// Dot and Axpy run the asm package's kernels (asm.Dot64, asm.DotF32F64,
// asm.Axpy64, …: vector accumulators in a fixed order, or one fused
// multiply-add per element), the rest are Go loops unrolled by four with
// independent accumulators so that the additions do not wait on each
// other.

func checkLen(fn string, nx, ny int) {
	if nx != ny {
		panic(fmt.Sprintf("linalg: %s: len(x) = %d but len(y) = %d", fn, nx, ny))
	}
}

// Dot returns Σ x[i]·y[i], summed in T with several partial sums in a
// fixed order (asm.Dot64, asm.Dot32): the result depends only on the
// values and the length. It panics if len(x) != len(y).
func Dot[T Float](x, y []T) T {
	checkLen("Dot", len(x), len(y))
	return dot(x, y)
}

// dot is Dot for a matrix row of type A and a vector of type X
// (len(x) ≥ len(a)), summing in X.
func dot[A, X Float](a []A, x []X) X {
	x = x[:len(a)]
	switch a := any(a).(type) {
	case []float32:
		switch x := any(x).(type) {
		case []float32:
			return X(asm.Dot32(a, x))
		case []float64:
			return X(asm.DotF32F64(a, x))
		}
	case []float64:
		if x, ok := any(x).([]float64); ok {
			return X(asm.Dot64(a, x))
		}
	}
	// A float64 row against a float32 vector: no caller (Gemv has A = X,
	// GemvF32F64 a float32 row and a float64 vector).
	panic("linalg: dot of a float64 row with a float32 vector")
}

// Axpy computes y += alpha·x. float64 vectors get one fused multiply-add
// per element (asm.Axpy64), so every element is rounded once, whatever the
// kernel set or thread split. It panics if len(x) != len(y).
func Axpy[T Float](alpha T, x, y []T) {
	checkLen("Axpy", len(x), len(y))
	axpy(alpha, x, y)
}

// axpy is Axpy for a row of type A and a vector of type X (len(y) ≥
// len(a)); a float64 y uses the fused asm kernels.
func axpy[A, X Float](alpha X, a []A, y []X) {
	y = y[:len(a)]
	if y, ok := any(y).([]float64); ok {
		switch a := any(a).(type) {
		case []float32:
			asm.AxpyF32F64(float64(alpha), a, y)
		case []float64:
			asm.Axpy64(float64(alpha), a, y)
		}
		return
	}
	i := 0
	for ; i+4 <= len(a); i += 4 {
		aa, yy := a[i:i+4:i+4], y[i:i+4:i+4]
		yy[0] += alpha * X(aa[0])
		yy[1] += alpha * X(aa[1])
		yy[2] += alpha * X(aa[2])
		yy[3] += alpha * X(aa[3])
	}
	for ; i < len(a); i++ {
		y[i] += alpha * X(a[i])
	}
}

// Scal computes x *= alpha. alpha = 0 stores zeros (NaN and Inf in x
// included), as BLAS implementations conventionally do.
func Scal[T Float](alpha T, x []T) {
	if alpha == 0 {
		clear(x)
		return
	}
	i := 0
	for ; i+4 <= len(x); i += 4 {
		xx := x[i : i+4 : i+4]
		xx[0] *= alpha
		xx[1] *= alpha
		xx[2] *= alpha
		xx[3] *= alpha
	}
	for ; i < len(x); i++ {
		x[i] *= alpha
	}
}

// Nrm2 returns the Euclidean norm √(Σ x[i]²) without intermediate overflow
// or underflow: float32 vectors are summed in float64, float64 vectors are
// summed directly and, only if that sum overflowed or is so small that
// squares may have underflowed, summed again scaled by a power of two
// near max |x[i]|. The norm is +Inf if any element is ±Inf and NaN if any
// is NaN (and none is infinite).
func Nrm2[T Float](x []T) T {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		xx := x[i : i+4 : i+4]
		a, b, c, d := float64(xx[0]), float64(xx[1]), float64(xx[2]), float64(xx[3])
		s0 += a * a
		s1 += b * b
		s2 += c * c
		s3 += d * d
	}
	for ; i < len(x); i++ {
		v := float64(x[i])
		s0 += v * v
	}
	s := (s0 + s1) + (s2 + s3)
	var z T
	_, single := any(z).(float32)
	if s <= math.MaxFloat64 && (single || s >= 0x1p-900 || s == 0 && allZero(x)) {
		return T(math.Sqrt(s))
	}
	return T(nrm2Scaled(x))
}

func allZero[T Float](x []T) bool {
	for _, v := range x {
		if v != 0 {
			return false
		}
	}
	return true
}

// nrm2Scaled is the slow path of Nrm2: scale by a power of two so that the
// largest element is near 1, then sum squares.
func nrm2Scaled[T Float](x []T) float64 {
	amax := 0.0
	nan := false
	for _, v := range x {
		a := math.Abs(float64(v))
		switch {
		case math.IsInf(a, 1):
			return math.Inf(1)
		case a != a:
			nan = true
		case a > amax:
			amax = a
		}
	}
	if nan {
		return math.NaN()
	}
	if amax == 0 {
		return 0
	}
	// amax = f·2^e with f in [0.5, 1); 2^-e may not be representable (e
	// can be below -1022), so each element is scaled with Ldexp.
	_, e := math.Frexp(amax)
	var s0, s1 float64
	i := 0
	for ; i+2 <= len(x); i += 2 {
		a, b := math.Ldexp(float64(x[i]), -e), math.Ldexp(float64(x[i+1]), -e)
		s0 += a * a
		s1 += b * b
	}
	if i < len(x) {
		a := math.Ldexp(float64(x[i]), -e)
		s0 += a * a
	}
	return math.Ldexp(math.Sqrt(s0+s1), e)
}

// ScaleToRootLen scales v in place to the Euclidean norm √len(v), so that
// v·v/len(v) = 1 (the unit-norm preprocessing of the kernels' input
// x·x'/d), and leaves a zero v as it is. The norm is taken of v divided
// by its largest magnitude, so that no square overflows or underflows.
func ScaleToRootLen(v []float64) {
	big := 0.0
	for _, e := range v {
		big = max(big, math.Abs(e))
	}
	if big == 0 {
		return
	}
	ss := 0.0
	for _, e := range v {
		ss += (e / big) * (e / big)
	}
	f := math.Sqrt(float64(len(v)) / ss)
	for j, e := range v {
		v[j] = e / big * f
	}
}
