//go:build gc && !purego

package asm

import (
	"math"

	"github.com/klauspost/cpuid/v2"
)

// Assembly kernels in smo_amd64.s, for a length that is a multiple of 4;
// the wrappers below finish the tail in Go. The selection returns the
// largest b²/q (the least −b²/q, which it equals bit for bit negated) and,
// like the update, breaks ties towards the larger index, as the Go twins.

//go:noescape
func smoSelectAVX2(g, sgn, lowPen, diag, ki []float64, gmax, qii, shift float64, i int) (pos float64, j int, gmin float64)

//go:noescape
func smoUpdateAVX2(g, sgn, upPen, ki, kj []float64, d float64) (vmax float64, next int)

//go:noescape
func axpyUnfusedAVX2(alpha float64, x, y []float64)

// fillSMOArch gives the AVX2 and AVX-512 sets the AVX2 kernels (256-bit
// VPCMPEQQ, VPANDN and VPADDQ are AVX2; the rest AVX) when the CPU has
// AVX2, as every AVX-512 CPU we know does.
func fillSMOArch(k *Kernels) {
	if (k.name != "avx2" && k.name != "avx512") || !cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2) {
		return
	}
	k.smoSelect64 = smoSelectVec
	k.smoUpdate64 = smoUpdateVec
	k.axpyUnfused64 = axpyUnfusedVec(4, axpyUnfusedAVX2)
}

func smoSelectVec(g, sgn, lowPen, diag, ki []float64, gmax, qii, shift float64, i int) (int, float64) {
	n4 := len(g) &^ 3
	j, best, gmin := -1, math.Inf(1), math.Inf(1)
	if n4 > 0 {
		var pos float64
		pos, j, gmin = smoSelectAVX2(g[:n4], sgn[:n4], lowPen[:n4], diag[:n4], ki[:n4], gmax, qii, shift, i)
		if j >= 0 {
			best = -pos
		}
	}
	if n4 < len(g) {
		j, _, gmin = smoSelectGo(g, sgn, lowPen, diag, ki, gmax, qii, shift, i, n4, j, best, gmin)
	}
	return j, gmin
}

func smoUpdateVec(g, sgn, upPen, ki, kj []float64, d float64) (int, float64) {
	n4 := len(g) &^ 3
	next, vmax := -1, math.Inf(-1)
	if n4 > 0 {
		vmax, next = smoUpdateAVX2(g[:n4], sgn[:n4], upPen[:n4], ki[:n4], kj[:n4], d)
	}
	if n4 < len(g) {
		next, vmax = smoUpdateGo(g, sgn, upPen, ki, kj, d, n4, next, vmax)
	}
	return smoNone(next, vmax)
}
