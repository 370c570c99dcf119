//go:build gc && !purego

package asm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/cpuid/v2"
)

// TestArcCosAMD64Direct runs the amd64 arc-cosine kernels directly (whether
// or not a kernel set wires them) against the generic twins, bit for bit.
func TestArcCosAMD64Direct(t *testing.T) {
	type impl struct {
		name  string
		ok    bool
		acos  func(dst, x []float64)
		layer func(sig, ntk []float64, ni, invi float64, nj, invj []float64, sw2, sb2 float64)
		first func(sig, ntk, g []float64, a, b, ni, invi float64, nj, invj []float64, sw2, sb2 float64)
	}
	impls := []impl{
		{"avx2", cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3), acos64AVX2, arcCosLayer64AVX2, arcCosFirst64AVX2},
		{"avx512", cpuid.CPU.Supports(cpuid.AVX512F), acos64AVX512, arcCosLayer64AVX512, arcCosFirst64AVX512},
	}
	rng := rand.New(rand.NewPCG(9, 10))
	xs := acosSamples(rng, 5000)
	want := make([]float64, len(xs))
	acos64Generic(want, xs)
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			if !im.ok {
				t.Skip("CPU lacks the features")
			}
			for n := 0; n <= 40; n++ {
				got := make([]float64, n+1)
				got[n] = 42 // canary
				im.acos(got[:n], xs[:n])
				for i := range n {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("n=%d acos(%v) = %v, generic %v", n, xs[i], got[i], want[i])
					}
				}
				if got[n] != 42 {
					t.Fatalf("n=%d: wrote past the end", n)
				}
			}
			got := make([]float64, len(xs))
			im.acos(got, xs)
			for i := range xs {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("acos(%v) = %v, generic %v", xs[i], got[i], want[i])
				}
			}
			for n := 0; n <= 40; n++ {
				sig, ntk, nj, invj, ni, invi := layerCase(rng, n+1)
				sig[n], ntk[n] = 42, 42
				gs, gn := append([]float64(nil), sig...), append([]float64(nil), ntk...)
				arcCosLayer64Generic(gs[:n], gn[:n], ni, invi, nj, invj, 1.3, 0.1)
				im.layer(sig[:n], ntk[:n], ni, invi, nj, invj, 1.3, 0.1)
				for j := range n + 1 {
					if math.Float64bits(sig[j]) != math.Float64bits(gs[j]) ||
						math.Float64bits(ntk[j]) != math.Float64bits(gn[j]) {
						t.Fatalf("n=%d j=%d: (%v, %v), generic (%v, %v)", n, j, sig[j], ntk[j], gs[j], gn[j])
					}
				}
				// First layer, into separate outputs with canaries.
				g := append([]float64(nil), sig[:n]...)
				fs, fn := make([]float64, n+1), make([]float64, n+1)
				fs[n], fn[n] = 42, 42
				ws, wn := make([]float64, n), make([]float64, n)
				arcCosFirst64Generic(ws, wn, g, 0.7, 0.1, ni, invi, nj, invj, 1.3, 0.1)
				im.first(fs[:n], fn[:n], g, 0.7, 0.1, ni, invi, nj, invj, 1.3, 0.1)
				for j := range n {
					if math.Float64bits(fs[j]) != math.Float64bits(ws[j]) || math.Float64bits(fn[j]) != math.Float64bits(wn[j]) {
						t.Fatalf("first n=%d j=%d: (%v, %v), generic (%v, %v)", n, j, fs[j], fn[j], ws[j], wn[j])
					}
				}
				if fs[n] != 42 || fn[n] != 42 {
					t.Fatalf("first n=%d: wrote past the end", n)
				}
			}
		})
	}
}
