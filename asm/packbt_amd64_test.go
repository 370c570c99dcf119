//go:build gc && !purego

package asm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPackTAVX512 checks each AVX-512 transposing pack kernel on its own
// against the Go twin, bitwise: the gathers over odd sliver heights, the
// 16×16 transposes over multiples of 16, both over odd leading dimensions
// and with B and the sliver one element off a 64-byte boundary.
func TestPackTAVX512(t *testing.T) {
	if Lookup("avx512") == nil {
		t.Skip("no avx512 set on this CPU")
	}
	gather32 := func(dst, src []float32, ld, kb int) {
		var idx [48]int32
		for j := range idx {
			idx[j] = int32(j * ld)
		}
		packTGatherAVX512F32(dst, src, kb, &idx)
	}
	gather64 := func(dst, src []float64, ld, kb int) {
		var idx [24]int32
		for j := range idx {
			idx[j] = int32(j * ld)
		}
		packTGatherAVX512F64(dst, src, kb, &idx)
	}
	for _, kb := range packBTKbs {
		testPackTKernel(t, "gather32", 48, kb, gather32)
		testPackTKernel(t, "gather64", 24, kb, gather64)
		if kb%16 == 0 {
			testPackTKernel(t, "trans32", 48, kb, packTTransAVX512F32)
		}
	}
}

func testPackTKernel[T float](t *testing.T, name string, nr, kb int, kernel func(dst, src []T, ld, kb int)) {
	rng := rand.New(rand.NewPCG(14, uint64(nr*kb)))
	twin := packBTransGo[T](nr)
	for _, ld := range packBTLds(kb) {
		for _, off := range []int{0, 1} {
			src, _ := packBTCase[T](rng, nr, ld, kb, off)
			want := make([]T, kb*nr)
			twin(want, src, ld, kb)
			dst, ok := guarded[T](kb*nr, off)
			kernel(dst, src, ld, kb)
			if i := firstDiff(dst, want); i >= 0 {
				t.Fatalf("%s kb=%d ld=%d off=%d: element %d (p=%d, j=%d) is %x, twin %x",
					name, kb, ld, off, i, i/nr, i%nr, bitsOf(dst[i]), bitsOf(want[i]))
			}
			if !ok() {
				t.Fatalf("%s kb=%d ld=%d off=%d: wrote outside the sliver", name, kb, ld, off)
			}
		}
	}
}

// BenchmarkPackBTrans packs 48-wide float32 slivers of 512 rows from a
// B of 2400 rows of 10000 (96 MB, from memory; 240 rows, in L3, with
// -short) with the AVX-512 kernels: the 16×16 transposes (what
// PackBTrans32 runs), the gathers alone and the Go twin.
func BenchmarkPackBTrans(b *testing.B) {
	if Lookup("avx512") == nil {
		b.Skip("no avx512 set on this CPU")
	}
	rows, cols, kb, nr := 2400, 10000, 512, 48
	if testing.Short() {
		rows = 240
	}
	src := make([]float32, rows*cols)
	for i := range src {
		src[i] = float32(i % 7)
	}
	dst := make([]float32, kb*nr)
	var idx [48]int32
	for j := range idx {
		idx[j] = int32(j * cols)
	}
	for _, kind := range []string{"transpose", "gather", "twin"} {
		f := map[string]func(dst, src []float32){
			"transpose": func(dst, src []float32) { packTTransAVX512F32(dst, src, cols, kb) },
			"gather":    func(dst, src []float32) { packTGatherAVX512F32(dst, src, kb, &idx) },
			"twin":      func(dst, src []float32) { packBTransGo[float32](nr)(dst, src, cols, kb) },
		}[kind]
		b.Run(fmt.Sprintf("kernel=%s", kind), func(b *testing.B) {
			for b.Loop() {
				for j0 := 0; j0+nr <= rows; j0 += nr {
					for p0 := 0; p0+kb <= cols; p0 += kb {
						f(dst, src[j0*cols+p0:])
					}
				}
			}
			b.SetBytes(int64(rows / nr * nr * (cols / kb * kb) * 4))
		})
	}
}
