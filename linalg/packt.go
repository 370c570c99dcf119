package linalg

import "github.com/ntksvm/ntksvm/asm"

// The transposing pack of op(B) = Bᵀ (packB with trans set) interleaves nr
// rows of B into k×nr slivers. In Go it moves one element at a time, about
// 1 ns each: for an M-skinny product with a large Bᵀ, as in the forward
// pass of a wide layer (128×10000 times the transpose of a 10000×10000
// weight), that was over a quarter of the product's time. Where the kernel
// set has a kernel for it (AVX-512: in-register transposes and gathers),
// packTFull packs the full slivers with asm's PackBTrans32 and
// PackBTrans64 instead.

// packTKernels returns the kernel set whose transposing pack packTFull
// uses: the active one, so that a NTKSVM_SIMD override to a smaller set
// keeps every kernel within that set's instructions. Tests replace it to
// force packB's Go loop.
var packTKernels = asm.Active

// packTFull packs the full nr-wide slivers of op(B) = Bᵀ (rows [p0, p0+kb)
// and columns [j0, j0+nb) of op(B)) with the kernel set's PackBTrans32 or
// PackBTrans64, as packB does, and returns how many it packed: 0 when the
// set has no kernel of its own for this element type or its NR is not nr.
// packB packs the others.
func packTFull[T Float](dst []T, b Matrix[T], p0, kb, j0, nb, nr int) int {
	full := nb / nr
	if full == 0 || kb == 0 {
		return 0
	}
	ks := packTKernels()
	ld := b.Stride
	switch d := any(dst).(type) {
	case []float32:
		if _, nr32 := ks.Tile32(); !ks.HasPackBTrans32() || nr32 != nr {
			return 0
		}
		src := any(b.Data).([]float32)
		for s := range full {
			col0 := j0 + s*nr
			ks.PackBTrans32(d[s*kb*nr:(s+1)*kb*nr], src[col0*ld+p0:], ld, kb)
		}
	case []float64:
		if _, nr64 := ks.Tile64(); !ks.HasPackBTrans64() || nr64 != nr {
			return 0
		}
		src := any(b.Data).([]float64)
		for s := range full {
			col0 := j0 + s*nr
			ks.PackBTrans64(d[s*kb*nr:(s+1)*kb*nr], src[col0*ld+p0:], ld, kb)
		}
	}
	return full
}
