package linalg

import (
	"errors"
	"math"
	"testing"
	"unsafe"
)

// TestWiden checks that Widen gives every float32 of a NewWidenable pair
// as a float64 in place, bit for bit (NaN, infinities, −0 and subnormals
// included), and refuses pairs that do not share storage as NewWidenable
// makes them.
func TestWiden(t *testing.T) {
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)), 1e-45, math.MaxFloat32}
	for _, tc := range []struct{ r, c int }{{0, 0}, {1, 1}, {3, 5}, {7, 1}, {64, 33}} {
		m, f := NewWidenable(tc.r, tc.c)
		want := make([]float64, tc.r*tc.c)
		for i := range want {
			v := float32(i)*0.37 - 5
			if i < len(special) {
				v = special[i]
			}
			f.Data[i] = v
			want[i] = float64(v)
		}
		if err := Widen(m, f); err != nil {
			t.Fatalf("%d×%d: %v", tc.r, tc.c, err)
		}
		if bitsDiffer(m.Data, want) {
			t.Fatalf("%d×%d: widened %v, want %v", tc.r, tc.c, m.Data, want)
		}
	}
	m, f := NewWidenable(4, 4)
	_, other := NewWidenable(4, 4)
	for _, tc := range []struct {
		name  string
		m     Matrix[float64]
		f     Matrix[float32]
		shape bool // the error wraps ErrShape
	}{
		{"other storage", m, other, false},
		{"other shape", m, Matrix[float32]{Rows: 2, Cols: 8, Stride: 8, Data: f.Data}, true},
		{"strided", m.Slice(0, 4, 0, 3), f.Slice(0, 4, 0, 3), true},
	} {
		err := Widen(tc.m, tc.f)
		if err == nil || errors.Is(err, ErrShape) != tc.shape {
			t.Errorf("%s: error %v (ErrShape expected: %v)", tc.name, err, tc.shape)
		}
	}
}

// TestFillWidened: the float64 matrix holds what fill wrote in float32, in
// the same storage, and an error of fill is returned.
func TestFillWidened(t *testing.T) {
	var inner *float32
	m, err := FillWidened(5, 3, func(f Matrix[float32]) error {
		inner = &f.Data[0]
		for i := range f.Rows {
			for j := range f.Cols {
				f.Set(i, j, float32(i)-float32(j)/3)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Rows {
		for j := range m.Cols {
			if want := float64(float32(i) - float32(j)/3); m.At(i, j) != want {
				t.Fatalf("(%d,%d) = %v, want %v", i, j, m.At(i, j), want)
			}
		}
	}
	if unsafe.Pointer(inner) != unsafe.Pointer(&m.Data[0]) {
		t.Error("the float32 matrix is not in the float64 one's storage")
	}
	stop := errors.New("stop")
	if _, err := FillWidened(2, 2, func(Matrix[float32]) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("fill's error: %v", err)
	}
}
