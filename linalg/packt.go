package linalg

// The transposing pack of op(B) = Bᵀ (packB with trans set) interleaves nr
// rows of B into k×nr slivers. In Go it moves one element at a time, about
// 1 ns each: for an M-skinny product with a large Bᵀ, as in the forward
// pass of a wide layer (128×10000 times the transpose of a 10000×10000
// weight), that was over a quarter of the product's time. Where the CPU
// has a gather instruction (AVX-512) a sliver row of nr elements is
// gathered from the nr rows of B by a few vector gathers instead.

// packTKernels holds the gather kernels of this build and CPU, nil where
// there are none: gather32(dst, src, kb, idx) sets dst[p*48+j] =
// src[idx[j]+p] for p < kb and j < 48, and gather64 does the same with 24
// columns and float64. trans32(dst, src, ld, kb) is gather32 for kb a
// multiple of 16 and rows ld apart, by in-register transposes of 16×16
// blocks, which read B a cache line at a time rather than an element.
var packTKernels struct {
	trans32  func(dst, src []float32, ld, kb int)
	gather32 func(dst, src []float32, kb int, idx *[48]int32)
	gather64 func(dst, src []float64, kb int, idx *[24]int32)
}

// packTFull packs the full nr-wide slivers of op(B) = Bᵀ (rows [p0, p0+kb)
// and columns [j0, j0+nb) of op(B)) with a gather kernel, as packB does,
// and returns how many it packed: 0 when there is no kernel for this
// element type and nr, or the offsets do not fit the kernel's 32-bit
// indices. packB packs the others.
func packTFull[T Float](dst []T, b Matrix[T], p0, kb, j0, nb, nr int) int {
	full := nb / nr
	if full == 0 || kb == 0 || !packTActive() {
		return 0
	}
	ld := b.Stride
	if ld > (1<<31-1)/nr {
		return 0
	}
	switch d := any(dst).(type) {
	case []float32:
		f := packTKernels.gather32
		if f == nil || nr != 48 {
			return 0
		}
		src := any(b.Data).([]float32)
		var idx [48]int32
		for j := range idx {
			idx[j] = int32(j * ld)
		}
		for s := range full {
			col0 := j0 + s*nr
			// The kernel reads src[idx[j]+p] for p < kb: check the last one.
			_ = src[(col0+nr-1)*ld+p0+kb-1]
			ds := d[s*kb*nr : (s+1)*kb*nr]
			k16 := 0
			if t := packTKernels.trans32; t != nil {
				k16 = kb &^ 15
				t(ds, src[col0*ld+p0:], ld, k16)
			}
			if k16 < kb {
				f(ds[k16*nr:], src[col0*ld+p0+k16:], kb-k16, &idx)
			}
		}
	case []float64:
		f := packTKernels.gather64
		if f == nil || nr != 24 {
			return 0
		}
		src := any(b.Data).([]float64)
		var idx [24]int32
		for j := range idx {
			idx[j] = int32(j * ld)
		}
		for s := range full {
			col0 := j0 + s*nr
			_ = src[(col0+nr-1)*ld+p0+kb-1]
			f(d[s*kb*nr:(s+1)*kb*nr], src[col0*ld+p0:], kb, &idx)
		}
	}
	return full
}
