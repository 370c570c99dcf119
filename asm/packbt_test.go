package asm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// packBTKbs are the sliver heights each case tries: 0, odd ones, the
// multiples of 16 the AVX-512 transposes take whole and ones just past
// them, which leave rows for the gathers.
var packBTKbs = []int{0, 1, 2, 7, 15, 16, 17, 31, 33, 48, 63, 101, 130}

// packBTLds are the leading dimensions of B tried for kb: kb itself (rows
// back to back), odd ones and a wide one.
func packBTLds(kb int) []int { return []int{max(kb, 1), kb + 1, kb + 7, 2*kb + 13, 1001} }

// packBTCase returns a B of nr rows ld apart, each row's first kb values
// random with special bit patterns, starting off elements past a 64-byte
// boundary and ending right after its last used element, and the sliver
// PackBTrans must produce from it.
func packBTCase[T float](rng *rand.Rand, nr, ld, kb, off int) (src, want []T) {
	n := 0
	if kb > 0 {
		n = (nr-1)*ld + kb
	}
	src = alignedFloats[T](n, off)
	randomWithSpecials(rng, src)
	want = make([]T, kb*nr)
	for p := range kb {
		for j := range nr {
			want[p*nr+j] = src[j*ld+p]
		}
	}
	return src, want
}

// TestPackBTrans checks PackBTrans32 and PackBTrans64 of every set and
// their Go twins against the definition, bitwise, over odd and aligned
// sliver heights and leading dimensions, with B and the sliver aligned and
// one element off, B ending right after its last used element and
// canaries around the sliver.
func TestPackBTrans(t *testing.T) {
	for _, k := range available {
		_, nr32 := k.Tile32()
		_, nr64 := k.Tile64()
		testPackBTrans(t, k.name+"/float32", nr32, k.PackBTrans32, packBTransGo[float32](nr32))
		testPackBTrans(t, k.name+"/float64", nr64, k.PackBTrans64, packBTransGo[float64](nr64))
	}
}

func testPackBTrans[T float](t *testing.T, name string, nr int, kernel, twin func(dst, src []T, ld, kb int)) {
	rng := rand.New(rand.NewPCG(13, uint64(nr)))
	for _, kb := range packBTKbs {
		for _, ld := range packBTLds(kb) {
			for _, off := range []int{0, 1} {
				src, want := packBTCase[T](rng, nr, ld, kb, off)
				for _, impl := range []struct {
					name string
					f    func(dst, src []T, ld, kb int)
				}{{"kernel", kernel}, {"twin", twin}} {
					dst, ok := guarded[T](kb*nr, off)
					impl.f(dst, src, ld, kb)
					if i := firstDiff(dst, want); i >= 0 {
						t.Fatalf("%s %s kb=%d ld=%d off=%d: element %d (p=%d, j=%d) is %x, want %x",
							name, impl.name, kb, ld, off, i, i/nr, i%nr, bitsOf(dst[i]), bitsOf(want[i]))
					}
					if !ok() {
						t.Fatalf("%s %s kb=%d ld=%d off=%d: wrote outside the sliver", name, impl.name, kb, ld, off)
					}
				}
			}
		}
	}
}

func TestPackBTransPanics(t *testing.T) {
	for _, k := range available {
		_, nr := k.Tile64()
		_, nr32 := k.Tile32()
		const kb, ld = 5, 9
		dst := make([]float64, kb*nr)
		src := make([]float64, (nr-1)*ld+kb)
		for _, tc := range []struct {
			name string
			fn   func()
		}{
			{"negative kb", func() { k.PackBTrans64(dst, src, ld, -1) }},
			{"ld < kb", func() { k.PackBTrans64(dst, src, kb-1, kb) }},
			{"short dst", func() { k.PackBTrans64(dst[:kb*nr-1], src, ld, kb) }},
			{"short src", func() { k.PackBTrans64(dst, src[:len(src)-1], ld, kb) }},
			{"short src for ld", func() { k.PackBTrans64(dst, src, ld+1, kb) }},
			{"src shorter than kb", func() { k.PackBTrans64(dst, src[:kb-1], kb, kb) }},
			{"huge ld", func() { k.PackBTrans64(dst, src, 1<<62, kb) }},
			{"float32 short src", func() {
				k.PackBTrans32(make([]float32, kb*nr32), make([]float32, (nr32-1)*ld+kb-1), ld, kb)
			}},
			{"float32 short dst", func() {
				k.PackBTrans32(make([]float32, kb*nr32-1), make([]float32, (nr32-1)*ld+kb), ld, kb)
			}},
		} {
			t.Run(fmt.Sprintf("%s/%s", k.name, tc.name), func(t *testing.T) {
				defer func() {
					if recover() == nil {
						t.Fatal("no panic")
					}
				}()
				tc.fn()
			})
		}
		// kb = 0 needs neither dst nor src.
		k.PackBTrans64(nil, nil, 0, 0)
		k.PackBTrans32(nil, nil, 3, 0)
	}
}

// TestHasPackBTrans checks which sets report transposing pack kernels of
// their own: the AVX-512 set, in both element types, and no other.
func TestHasPackBTrans(t *testing.T) {
	for _, k := range available {
		want := k.name == "avx512"
		if k.HasPackBTrans32() != want || k.HasPackBTrans64() != want {
			t.Errorf("%s: HasPackBTrans32, HasPackBTrans64 = %v, %v; want %v",
				k.name, k.HasPackBTrans32(), k.HasPackBTrans64(), want)
		}
	}
}
