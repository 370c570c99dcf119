package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// reluWant is the documented ReLU of one value: x itself (all bits) if it is
// positive or NaN, else +0.
func reluWant[T float](v T) T {
	if v > 0 || isNaN(v) {
		return v
	}
	return 0
}

// reluBad returns the first index where got is not the ReLU of x, or -1.
// Values must match bitwise; for a NaN x the result must be a NaN with x's
// payload (the quiet bit and the sign may differ: Go's max clears the sign
// on amd64, NEON's FMAX quiets a signalling NaN).
func reluBad[T float](got, x []T) int {
	for i, v := range x {
		if isNaN(v) {
			if !isNaN(got[i]) || payload(got[i]) != payload(v) {
				return i
			}
			continue
		}
		if bitsOf(got[i]) != bitsOf(reluWant(v)) {
			return i
		}
	}
	return -1
}

// gradWant is the documented ReLU derivative mask of one element.
func gradWant[T float](g, x T) T {
	if x > 0 {
		return g
	}
	return 0
}

// reluOffsets are the (x, dst) misalignments in elements past a 64-byte
// boundary: equal and unequal ones.
var reluOffsets = [][2]int{{0, 0}, {1, 3}, {2, 2}, {3, 1}}

// maxReLULen is the largest length the exhaustive ReLU tests try.
const maxReLULen = 200

func TestReLU(t *testing.T) {
	for _, k := range available {
		t.Run("impl="+k.name+"/float32", func(t *testing.T) { testReLU(t, k.ReLU32, maxReLULen) })
		t.Run("impl="+k.name+"/float64", func(t *testing.T) { testReLU(t, k.ReLU64, maxReLULen) })
	}
}

func TestReLUGrad(t *testing.T) {
	for _, k := range available {
		t.Run("impl="+k.name+"/float32", func(t *testing.T) { testReLUGrad(t, k.ReLUGrad32, maxReLULen) })
		t.Run("impl="+k.name+"/float64", func(t *testing.T) { testReLUGrad(t, k.ReLUGrad64, maxReLULen) })
	}
}

// testReLU checks relu out of place and in place for every length up to
// maxN at every offset in reluOffsets, against the documented semantics and
// the Go twin, with canaries around the output.
func testReLU[T float](t *testing.T, relu func(dst, x []T), maxN int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, uint64(maxN)))
	for n := 0; n <= maxN; n++ {
		for _, off := range reluOffsets {
			x := alignedFloats[T](n, off[0])
			randomWithSpecials(rng, x)
			twin := make([]T, n)
			reluGeneric(twin, x)
			if i := reluBad(twin, x); i >= 0 {
				t.Fatalf("Go twin: n=%d: ReLU(%v [%#x]) = %v [%#x]", n, x[i], bitsOf(x[i]), twin[i], bitsOf(twin[i]))
			}
			orig := append([]T(nil), x...)

			dst, intact := guarded[T](n, off[1])
			relu(dst, x)
			if i := reluBad(dst, x); i >= 0 {
				t.Fatalf("n=%d off=%v: ReLU(%v [%#x]) = %v [%#x]", n, off, x[i], bitsOf(x[i]), dst[i], bitsOf(dst[i]))
			}
			if !intact() {
				t.Fatalf("n=%d off=%v: wrote outside dst", n, off)
			}
			if i := firstDiff(x, orig); i >= 0 {
				t.Fatalf("n=%d off=%v: input modified at %d", n, off, i)
			}

			// In place, with canaries around the shared buffer.
			inp, intact := guarded[T](n, off[0])
			copy(inp, orig)
			relu(inp, inp)
			if i := reluBad(inp, orig); i >= 0 {
				t.Fatalf("in place: n=%d off=%v: ReLU(%v [%#x]) = %v [%#x]", n, off, orig[i], bitsOf(orig[i]), inp[i], bitsOf(inp[i]))
			}
			if !intact() {
				t.Fatalf("in place: n=%d off=%v: wrote outside dst", n, off)
			}
		}
	}
}

// testReLUGrad checks reluGrad like testReLU checks relu, with dst distinct
// from and equal to each input.
func testReLUGrad[T float](t *testing.T, grad func(dst, g, x []T), maxN int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(2, uint64(maxN)))
	for n := 0; n <= maxN; n++ {
		for _, off := range reluOffsets {
			x := alignedFloats[T](n, off[0])
			g := alignedFloats[T](n, off[1])
			randomWithSpecials(rng, x)
			randomWithSpecials(rng, g)
			want := make([]T, n)
			for i := range want {
				want[i] = gradWant(g[i], x[i])
			}
			twin := make([]T, n)
			reluGradGeneric(twin, g, x)
			if i := firstDiff(twin, want); i >= 0 {
				t.Fatalf("Go twin: n=%d: grad(g=%v, x=%v) = %v, want %v", n, g[i], x[i], twin[i], want[i])
			}
			for _, mode := range []string{"dst", "dst=g", "dst=x"} {
				dst, intact := guarded[T](n, (off[0]+off[1])%4)
				gg, xx := g, x
				switch mode {
				case "dst=g":
					copy(dst, g)
					gg = dst
				case "dst=x":
					copy(dst, x)
					xx = dst
				}
				grad(dst, gg, xx)
				if i := firstDiff(dst, want); i >= 0 {
					t.Fatalf("%s: n=%d off=%v: grad(g=%v [%#x], x=%v [%#x]) = %v [%#x], want [%#x]",
						mode, n, off, g[i], bitsOf(g[i]), x[i], bitsOf(x[i]), dst[i], bitsOf(dst[i]), bitsOf(want[i]))
				}
				if !intact() {
					t.Fatalf("%s: n=%d off=%v: wrote outside dst", mode, n, off)
				}
			}
		}
	}
}

// TestReLUSpecials checks every special value in every lane position of a
// long vector, so that each position of an unrolled loop sees each value.
func TestReLUSpecials(t *testing.T) {
	for _, k := range available {
		t.Run("impl="+k.name+"/float32", func(t *testing.T) { testReLUSpecials(t, k.ReLU32, k.ReLUGrad32) })
		t.Run("impl="+k.name+"/float64", func(t *testing.T) { testReLUSpecials(t, k.ReLU64, k.ReLUGrad64) })
	}
}

func testReLUSpecials[T float](t *testing.T, relu func(dst, x []T), grad func(dst, g, x []T)) {
	sp := specials[T]()
	const n = 256 + 7
	for si, s := range sp {
		x := make([]T, n)
		g := make([]T, n)
		for i := range x {
			x[i] = sp[(si+i)%len(sp)]
			g[i] = sp[(si+3*i+1)%len(sp)]
		}
		x[n/2] = s
		dst := make([]T, n)
		relu(dst, x)
		if i := reluBad(dst, x); i >= 0 {
			t.Fatalf("ReLU(%#x) = %#x", bitsOf(x[i]), bitsOf(dst[i]))
		}
		grad(dst, g, x)
		for i := range dst {
			if bitsOf(dst[i]) != bitsOf(gradWant(g[i], x[i])) {
				t.Fatalf("grad(g=%#x, x=%#x) = %#x", bitsOf(g[i]), bitsOf(x[i]), bitsOf(dst[i]))
			}
		}
	}
}

func TestReLULengthPanics(t *testing.T) {
	k := Active()
	x := make([]float32, 8)
	y := make([]float64, 8)
	for _, tc := range []struct {
		name string
		fn   func()
	}{
		{"ReLU32 short dst", func() { k.ReLU32(x[:7], x) }},
		{"ReLU64 short dst", func() { k.ReLU64(y[:7], y) }},
		{"ReLUGrad32 short g", func() { k.ReLUGrad32(x, x[:7], x) }},
		{"ReLUGrad32 short dst", func() { k.ReLUGrad32(x[:7], x, x) }},
		{"ReLUGrad64 short x", func() { k.ReLUGrad64(y, y, y[:7]) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			tc.fn()
		})
	}
}

// TestReLUPackage checks that the package-level functions call the active
// set: on a fresh buffer they must give the active set's answer.
func TestReLUPackage(t *testing.T) {
	x := []float32{-1, 2, float32(math.Copysign(0, -1)), 3, float32(math.Inf(-1))}
	got := make([]float32, len(x))
	ReLU32(got, x)
	if i := reluBad(got, x); i >= 0 {
		t.Fatalf("ReLU32: element %d = %v", i, got[i])
	}
	x64 := []float64{-1, 2, math.Copysign(0, -1), 3, math.Inf(1)}
	got64 := make([]float64, len(x64))
	ReLU64(got64, x64)
	if i := reluBad(got64, x64); i >= 0 {
		t.Fatalf("ReLU64: element %d = %v", i, got64[i])
	}
	ReLUGrad32(got, x, x)
	ReLUGrad64(got64, x64, x64)
	if fmt.Sprint(got) != "[0 2 0 3 0]" || fmt.Sprint(got64) != "[0 2 0 3 +Inf]" {
		t.Fatalf("ReLUGrad: got %v and %v", got, got64)
	}
}

// FuzzReLU feeds raw bit patterns through every kernel set: 32 float32
// values built from the fuzzed bytes (covering the vector loop and the
// tail), and the same bytes as float64 values.
func FuzzReLU(f *testing.F) {
	f.Add(uint32(0x7fc00001), uint32(0x80000000), uint64(0xfff0000000000001), 37)
	f.Add(uint32(0xff800001), uint32(0x00000001), uint64(0x8000000000000000), 64)
	f.Fuzz(func(t *testing.T, a, b uint32, c uint64, n int) {
		n = ((n % 80) + 80) % 80
		x := make([]float32, n)
		g := make([]float32, n)
		x64 := make([]float64, n)
		g64 := make([]float64, n)
		for i := range x {
			// Mix the inputs so that every lane sees different values.
			x[i] = math.Float32frombits(a ^ uint32(i*0x9e3779b9)*uint32(i&1))
			g[i] = math.Float32frombits(b + uint32(i))
			x64[i] = math.Float64frombits(c ^ uint64(i&3)<<62)
			g64[i] = math.Float64frombits(uint64(a)<<32 | uint64(b) + uint64(i))
		}
		for _, k := range available {
			dst := make([]float32, n)
			k.ReLU32(dst, x)
			if i := reluBad(dst, x); i >= 0 {
				t.Fatalf("%s: ReLU32(%#x) = %#x", k.name, math.Float32bits(x[i]), math.Float32bits(dst[i]))
			}
			k.ReLUGrad32(dst, g, x)
			for i := range dst {
				if w := gradWant(g[i], x[i]); math.Float32bits(dst[i]) != math.Float32bits(w) {
					t.Fatalf("%s: ReLUGrad32(g=%#x, x=%#x) = %#x", k.name, math.Float32bits(g[i]), math.Float32bits(x[i]), math.Float32bits(dst[i]))
				}
			}
			dst64 := make([]float64, n)
			k.ReLU64(dst64, x64)
			if i := reluBad(dst64, x64); i >= 0 {
				t.Fatalf("%s: ReLU64(%#x) = %#x", k.name, math.Float64bits(x64[i]), math.Float64bits(dst64[i]))
			}
			k.ReLUGrad64(dst64, g64, x64)
			for i := range dst64 {
				if w := gradWant(g64[i], x64[i]); math.Float64bits(dst64[i]) != math.Float64bits(w) {
					t.Fatalf("%s: ReLUGrad64(g=%#x, x=%#x) = %#x", k.name, math.Float64bits(g64[i]), math.Float64bits(x64[i]), math.Float64bits(dst64[i]))
				}
			}
		}
	})
}
