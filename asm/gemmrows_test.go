package asm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGemmRows32 runs GemmRows32 of every available set, and the Go twin,
// over odd depths, strides and unaligned slices: the sets with a kernel of
// their own must give the FMA contract bitwise (sums by FMA in increasing p
// from zero, added to c once), the Go twin must agree within rounding, and
// no element of a, b, pf or c outside the tile may change.
func TestGemmRows32(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 64))
	type impl struct {
		name  string
		exact bool
		f     func(kc int, a []float32, lda int, b, c []float32, ldc int, pf []float32)
	}
	impls := []impl{{"twin", false, func(kc int, a []float32, lda int, b, c []float32, ldc int, pf []float32) {
		gemmRowsGo(kc, a, lda, b, c, ldc, pf)
	}}}
	for _, k := range Available() {
		impls = append(impls, impl{k.Name(), k.HasGemmRows32(), k.GemmRows32})
	}
	rand32 := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(rng.Float64()*2 - 1)
		}
		return s
	}
	for _, kc := range []int{0, 1, 2, 3, 15, 16, 17, 31, 32, 47, 100, 257} {
		for _, pad := range []int{0, 1, 9} {
			for _, off := range []int{0, 1, 3} {
				lda, ldc := kc+pad, RowsNR+pad
				la := (RowsMR-1)*lda + kc
				aAll := rand32(off + la + 8)
				a := aAll[off : off+la : off+la]
				bAll := rand32(off + kc*RowsNR + 8)
				b := bAll[off : off+kc*RowsNR : off+kc*RowsNR]
				lc := (RowsMR-1)*ldc + RowsNR
				c0 := rand32(off + lc + 8)
				want := append([]float32(nil), c0...)
				for r := range RowsMR {
					for i := range RowsNR {
						var acc float32
						for p := range kc {
							acc = fma32(a[r*lda+p], b[p*RowsNR+i], acc)
						}
						want[off+r*ldc+i] += acc
					}
				}
				for _, im := range impls {
					aCopy, bCopy := append([]float32(nil), aAll...), append([]float32(nil), bAll...)
					got := append([]float32(nil), c0...)
					var pf []float32
					if pad == 1 {
						pf = bAll // any slice: a hint
					}
					im.f(kc, a, lda, b, got[off:off+lc:off+lc], ldc, pf)
					if firstDiff(aAll, aCopy) >= 0 || firstDiff(bAll, bCopy) >= 0 {
						t.Fatalf("%s: kc=%d pad=%d off=%d: a or b changed", im.name, kc, pad, off)
					}
					for j := range got {
						q := j - off
						inTile := q >= 0 && q < lc && q%ldc < RowsNR
						switch {
						case !inTile && bitsOf(got[j]) != bitsOf(c0[j]):
							t.Fatalf("%s: kc=%d pad=%d off=%d: c[%d] outside the tile changed", im.name, kc, pad, off, q)
						case !inTile:
						case im.exact && bitsOf(got[j]) != bitsOf(want[j]):
							t.Fatalf("%s: kc=%d pad=%d off=%d: c[%d,%d] = %v, FMA contract %v", im.name, kc, pad, off, q/ldc, q%ldc, got[j], want[j])
						case !im.exact:
							r, i := q/ldc, q%ldc
							mag := math.Abs(float64(c0[j]))
							for p := range kc {
								mag += math.Abs(float64(a[r*lda+p]) * float64(b[p*RowsNR+i]))
							}
							if d := math.Abs(float64(got[j]) - float64(want[j])); !(d <= 2*float64(kc+2)*eps[float32]()*mag+1e-30) {
								t.Fatalf("%s: kc=%d pad=%d off=%d: c[%d,%d] = %v, FMA contract %v", im.name, kc, pad, off, r, i, got[j], want[j])
							}
						}
					}
				}
			}
		}
	}
}

// TestGemmRows32Panics checks the wrapper's argument checks.
func TestGemmRows32Panics(t *testing.T) {
	k := Active()
	a := make([]float32, (RowsMR-1)*10+8)
	b := make([]float32, 8*RowsNR)
	c := make([]float32, (RowsMR-1)*RowsNR+RowsNR)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"negative k", func() { k.GemmRows32(-1, a, 10, b, c, RowsNR, nil) }},
		{"lda < k", func() { k.GemmRows32(8, a, 7, b, c, RowsNR, nil) }},
		{"ldc < NR", func() { k.GemmRows32(8, a, 10, b, c, RowsNR-1, nil) }},
		{"short a", func() { k.GemmRows32(9, a, 10, b, c, RowsNR, nil) }},
		{"short b", func() { k.GemmRows32(8, a, 10, b[:8*RowsNR-1], c, RowsNR, nil) }},
		{"short c", func() { k.GemmRows32(8, a, 10, b, c[:len(c)-1], RowsNR, nil) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			tc.f()
		}()
	}
	k.GemmRows32(8, a, 10, b, c, RowsNR, nil) // in bounds
}
