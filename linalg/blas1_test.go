package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDotAxpyScal checks the level-1 routines against plain loops for
// lengths across the unroll boundary.
func TestDotAxpyScal(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for n := range 75 { // across the vector kernels' blocks of 4, 8, 16, 32 and 64
		x, y := make([]float64, n), make([]float64, n)
		for i := range n {
			x[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		var want, scale float64
		for i := range n {
			want += x[i] * y[i]
			scale += math.Abs(x[i] * y[i])
		}
		if got := Dot(x, y); math.Abs(got-want) > 4*float64(n)*0x1p-53*scale {
			t.Errorf("n=%d: Dot = %g, want %g", n, got, want)
		}
		y2 := append([]float64(nil), y...)
		Axpy(-1.5, x, y2)
		for i := range n { // one rounding per element
			if want := math.FMA(-1.5, x[i], y[i]); y2[i] != want {
				t.Fatalf("n=%d: Axpy: y[%d] = %g, want %g", n, i, y2[i], want)
			}
		}
		Scal(0.25, y2)
		for i := range n {
			if want := math.FMA(-1.5, x[i], y[i]) * 0.25; y2[i] != want {
				t.Fatalf("n=%d: Scal: y[%d] = %g, want %g", n, i, y2[i], want)
			}
		}
	}
	z := []float32{float32(math.NaN()), 1, float32(math.Inf(-1))}
	Scal(0, z)
	for i, v := range z {
		if v != 0 {
			t.Fatalf("Scal(0): z[%d] = %g, want 0", i, v)
		}
	}
}

// TestDotAxpyMixed checks the float32-row × float64-vector forms used by
// GemvF32F64 and the kernel machines, and float32 Dot and Axpy, against
// float64 loops.
func TestDotAxpyMixed(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, n := range []int{0, 1, 5, 8, 31, 64, 97, 200} {
		a := make([]float32, n)
		b := make([]float32, n)
		x := make([]float64, n)
		for i := range n {
			a[i], b[i], x[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64()), rng.NormFloat64()
		}
		var want, scale, want32, scale32 float64
		for i := range n {
			want += float64(a[i]) * x[i]
			scale += math.Abs(float64(a[i]) * x[i])
			want32 += float64(a[i]) * float64(b[i])
			scale32 += math.Abs(float64(a[i]) * float64(b[i]))
		}
		if got := dot(a, x); math.Abs(got-want) > 2*float64(n+4)*0x1p-53*scale {
			t.Errorf("n=%d: dot(float32, float64) = %g, want %g", n, got, want)
		}
		if got := Dot(a, b); math.Abs(float64(got)-want32) > 2*float64(n+4)*0x1p-24*scale32 {
			t.Errorf("n=%d: Dot(float32) = %g, want %g", n, got, want32)
		}
		y := make([]float64, n)
		copy(y, x)
		axpy(0.75, a, y)
		for i := range n {
			if w := math.FMA(0.75, float64(a[i]), x[i]); y[i] != w {
				t.Fatalf("n=%d: axpy(float32, float64): y[%d] = %g, want %g", n, i, y[i], w)
			}
		}
		b2 := append([]float32(nil), b...)
		Axpy(2, a, b2)
		for i := range n {
			if w := b[i] + 2*a[i]; math.Abs(float64(b2[i]-w)) > 0x1p-23*math.Abs(float64(w)) {
				t.Fatalf("n=%d: Axpy(float32): y[%d] = %g, want %g", n, i, b2[i], w)
			}
		}
	}
}

// TestLevel1Panics checks that mismatched lengths panic with a message.
func TestLevel1Panics(t *testing.T) {
	for name, fn := range map[string]func(){
		"Dot":  func() { Dot([]float32{1, 2}, []float32{1}) },
		"Axpy": func() { Axpy(1, []float64{1}, []float64{1, 2}) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%s: no panic on mismatched lengths", name)
				}
			}()
			fn()
		}()
	}
}

// TestNrm2 checks Nrm2 on values that overflow or underflow a naive sum
// of squares, and on special values.
func TestNrm2(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	tests := []struct {
		x    []float64
		want float64
	}{
		{nil, 0},
		{[]float64{0, 0, 0}, 0},
		{[]float64{3, 4}, 5},
		{[]float64{-3, 4, 0, 0, 0}, 5},
		{[]float64{3e200, 4e200}, 5e200},
		{[]float64{3e-200, 4e-200, 0, 0, 0}, 5e-200},
		{[]float64{3e-320, 4e-320}, 5e-320},
		{[]float64{1e300, 1e300, 1e300, 1e300}, 2e300},
		{[]float64{1, inf, nan}, inf},
		{[]float64{1, nan, 2}, nan},
		{[]float64{-inf}, inf},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.x), func(t *testing.T) {
			got := Nrm2(tc.x)
			if !(got == tc.want || math.Abs(got-tc.want) <= 4e-16*tc.want || got != got && tc.want != tc.want) {
				t.Fatalf("Nrm2 = %g, want %g", got, tc.want)
			}
		})
	}
	x32 := []float32{3e30, 4e30, 0, 0, 0}
	if got := Nrm2(x32); math.Abs(float64(got)-5e30) > 1e-6*5e30 {
		t.Fatalf("Nrm2(float32 3e30, 4e30) = %g, want 5e30", got)
	}
	x32 = []float32{3e-40, 4e-40}
	if got := Nrm2(x32); math.Abs(float64(got)-5e-40) > 1e-3*5e-40 {
		t.Fatalf("Nrm2(float32 3e-40, 4e-40) = %g, want 5e-40", got)
	}
	if got := Nrm2([]float32{float32(math.NaN()), float32(math.Inf(1))}); !math.IsInf(float64(got), 1) {
		t.Fatalf("Nrm2(float32 NaN, Inf) = %g, want +Inf", got)
	}
}

func TestScaleToRootLen(t *testing.T) {
	for _, c := range []struct {
		name string
		v    []float64
	}{
		{"ordinary", []float64{3, -4, 0, 12}},
		{"huge", []float64{1e300, -1e300, 1e299}},
		{"tiny", []float64{1e-300, 3e-310, -2e-300}},
		{"one", []float64{-7}},
	} {
		v := slices.Clone(c.v)
		ScaleToRootLen(v)
		ss := 0.0
		for j, e := range v {
			ss += e * e
			if math.Signbit(e) != math.Signbit(c.v[j]) && c.v[j] != 0 {
				t.Errorf("%s: element %d changed sign: %v → %v", c.name, j, c.v[j], e)
			}
		}
		if math.Abs(ss/float64(len(v))-1) > 1e-14 {
			t.Errorf("%s: ‖v‖²/len(v) = %v after scaling, want 1", c.name, ss/float64(len(v)))
		}
	}
	zero := []float64{0, 0, 0}
	ScaleToRootLen(zero)
	if !slices.Equal(zero, []float64{0, 0, 0}) {
		t.Errorf("a zero vector became %v", zero)
	}
}
