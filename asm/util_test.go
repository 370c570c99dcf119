package asm

import (
	"math"
	"math/rand/v2"
	"unsafe"
)

// Helpers shared by the tests of every kernel: special values, aligned and
// guarded buffers, bitwise comparison.

// float is the element type of the kernels.
type float interface{ float32 | float64 }

// bitsOf returns the IEEE bits of v widened to 64 bits.
func bitsOf[T float](v T) uint64 {
	switch x := any(v).(type) {
	case float32:
		return uint64(math.Float32bits(x))
	default:
		return math.Float64bits(any(v).(float64))
	}
}

// fromBits is the inverse of bitsOf.
func fromBits[T float](b uint64) T {
	var z T
	if _, ok := any(z).(float32); ok {
		return any(math.Float32frombits(uint32(b))).(T)
	}
	return any(math.Float64frombits(b)).(T)
}

// isNaN reports whether v is a NaN.
func isNaN[T float](v T) bool { return v != v }

// payload returns the NaN payload of v: the significand bits other than the
// quiet bit.
func payload[T float](v T) uint64 {
	if _, ok := any(v).(float32); ok {
		return bitsOf(v) & (1<<22 - 1)
	}
	return bitsOf(v) & (1<<51 - 1)
}

// specialBits are interesting bit patterns: signed and signalling NaNs with
// payloads, ±0, ±Inf, the extremes of the subnormal and normal ranges.
func specials[T float]() []T {
	var z T
	if _, ok := any(z).(float32); ok {
		bs := []uint32{
			0x7fc00000, 0xffc00000, 0x7fc12345, 0xffd54321, // quiet NaNs
			0x7f800001, 0xff800001, 0x7fa5a5a5, 0xffbfffff, // signalling NaNs
			0x00000000, 0x80000000, // ±0
			0x7f800000, 0xff800000, // ±Inf
			0x00000001, 0x80000001, 0x007fffff, 0x807fffff, // subnormals
			0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff, // smallest and largest normals
			0x3f800000, 0xbf800000, // ±1
		}
		s := make([]T, len(bs))
		for i, b := range bs {
			s[i] = fromBits[T](uint64(b))
		}
		return s
	}
	bs := []uint64{
		0x7ff8000000000000, 0xfff8000000000000, 0x7ff8000000012345, 0xfffa987654321000,
		0x7ff0000000000001, 0xfff0000000000001, 0x7ff5a5a5a5a5a5a5, 0xfff7ffffffffffff,
		0x0000000000000000, 0x8000000000000000,
		0x7ff0000000000000, 0xfff0000000000000,
		0x0000000000000001, 0x8000000000000001, 0x000fffffffffffff, 0x800fffffffffffff,
		0x0010000000000000, 0x8010000000000000, 0x7fefffffffffffff, 0xffefffffffffffff,
		0x3ff0000000000000, 0xbff0000000000000,
	}
	s := make([]T, len(bs))
	for i, b := range bs {
		s[i] = fromBits[T](b)
	}
	return s
}

// randomWithSpecials fills s with values in (-2, 2), about a quarter of
// them replaced by special values, so that every vector lane sees some.
func randomWithSpecials[T float](rng *rand.Rand, s []T) {
	sp := specials[T]()
	for i := range s {
		if rng.IntN(4) == 0 {
			s[i] = sp[rng.IntN(len(sp))]
		} else {
			s[i] = T(4*rng.Float64() - 2)
		}
	}
}

// canary is the bit pattern written around outputs: a signalling NaN no
// kernel produces from the test inputs.
const canary = 0x7fb1c2d3

// guard is the number of canary elements on each side of an output.
const guard = 24

// alignedFloats returns n elements starting off elements past a 64-byte
// boundary, so that tests control the misalignment exactly.
func alignedFloats[T float](n, off int) []T {
	var z T
	sz := int(unsafe.Sizeof(z))
	buf := make([]T, n+off+64/sz)
	skip := 0
	for uintptr(unsafe.Pointer(&buf[skip]))%64 != 0 {
		skip++
	}
	return buf[skip+off : skip+off+n : skip+off+n]
}

// guarded returns an output of n elements whose start is off elements
// past a 64-byte boundary, surrounded by guard canaries on both sides, and a
// function reporting whether all canaries are intact.
func guarded[T float](n, off int) (dst []T, intact func() bool) {
	buf := alignedFloats[T](n+2*guard+16, 0)
	// The output starts at a 64-byte boundary plus off, after ≥ guard canaries.
	start := 32 + off
	for i := range buf {
		buf[i] = fromBits[T](canary)
	}
	dst = buf[start : start+n : start+n]
	intact = func() bool {
		for i, v := range buf {
			if (i < start || i >= start+n) && bitsOf(v) != bitsOf(fromBits[T](canary)) {
				return false
			}
		}
		return true
	}
	return dst, intact
}

// firstDiff returns the first index where got and want differ bitwise, or
// -1 if they are identical.
func firstDiff[T float](got, want []T) int {
	for i := range want {
		if bitsOf(got[i]) != bitsOf(want[i]) {
			return i
		}
	}
	return -1
}
