package asm

import "math"

// dotGeneric is the reference DotF32F64, Dot64 and Dot32: Σ X(a[i])·x[i]
// in X with four partial sums (element i goes to sum i mod 4 while four
// remain, the rest to the first) combined as (s0+s1)+(s2+s3).
// len(x) ≥ len(a).
func dotGeneric[A, X float32 | float64](a []A, x []X) X {
	x = x[:len(a)]
	var s0, s1, s2, s3 X
	i := 0
	for ; i+4 <= len(a); i += 4 {
		aa, xx := a[i:i+4:i+4], x[i:i+4:i+4]
		s0 += X(aa[0]) * xx[0]
		s1 += X(aa[1]) * xx[1]
		s2 += X(aa[2]) * xx[2]
		s3 += X(aa[3]) * xx[3]
	}
	for ; i < len(a); i++ {
		s0 += X(a[i]) * x[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpyGeneric is the reference AxpyF32F64 and Axpy64: one fused
// multiply-add per element, so that it matches the vector kernels bit for
// bit. len(y) ≥ len(a). The two element types get their own loops
// (axpyF32F64Generic, axpy64Generic): through the generic dictionary the
// loop is several times slower.
func axpyGeneric[A float32 | float64](alpha float64, a []A, y []float64) {
	switch a := any(a).(type) {
	case []float32:
		axpyF32F64Generic(alpha, a, y)
	case []float64:
		axpy64Generic(alpha, a, y)
	}
}

func axpyF32F64Generic(alpha float64, a []float32, y []float64) {
	y = y[:len(a)]
	for i, v := range a {
		y[i] = math.FMA(alpha, float64(v), y[i])
	}
}

func axpy64Generic(alpha float64, x, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] = math.FMA(alpha, v, y[i])
	}
}

// sumGeneric is the reference Sum32 and Sum64, with four partial sums like
// dotGeneric.
func sumGeneric[T float32 | float64](a []T) T {
	var s0, s1, s2, s3 T
	i := 0
	for ; i+4 <= len(a); i += 4 {
		aa := a[i : i+4 : i+4]
		s0 += aa[0]
		s1 += aa[1]
		s2 += aa[2]
		s3 += aa[3]
	}
	for ; i < len(a); i++ {
		s0 += a[i]
	}
	return (s0 + s1) + (s2 + s3)
}
