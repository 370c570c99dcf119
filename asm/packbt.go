package asm

import "fmt"

// PackBTrans32 packs one full NR-wide sliver of op(B) = Bᵀ, the transposing
// pack of the blocked GEMM, in the layout of the micro-kernel contract
// (gemm.go), with NR that of Tile32:
//
//	dst[p*NR+j] = src[j*ld+p]                        for p < kb, j < NR
//
// src holds NR rows of a row-major B, ld apart, of which the first kb
// elements each are read; each row of B becomes a column of the sliver.
// Elements are copied bit for bit (NaN payloads included) and nothing of
// dst past kb·NR is written. The AVX-512 set transposes 16×16 blocks in
// registers, reading B a cache line per row, and gathers the last kb mod
// 16 sliver rows; the other sets run the Go twin (HasPackBTrans32 false),
// a plain element-by-element loop.
//
// It panics if kb < 0, ld < kb, len(dst) < kb·NR, or kb > 0 and
// len(src) < (NR-1)·ld + kb.
func (k *Kernels) PackBTrans32(dst, src []float32, ld, kb int) {
	checkPackBTrans("PackBTrans32", k.nr32, len(dst), len(src), ld, kb)
	if kb == 0 {
		return
	}
	k.packBTrans32(dst, src, ld, kb)
}

// PackBTrans64 is PackBTrans32 for float64, with NR that of Tile64. The
// AVX-512 set gathers every sliver row.
func (k *Kernels) PackBTrans64(dst, src []float64, ld, kb int) {
	checkPackBTrans("PackBTrans64", k.nr64, len(dst), len(src), ld, kb)
	if kb == 0 {
		return
	}
	k.packBTrans64(dst, src, ld, kb)
}

// HasPackBTrans32 reports whether PackBTrans32 has a kernel of its own in
// this set. Without one it runs the Go twin, and a caller with a tuned
// loop of its own (one that also packs partial slivers) may keep that.
func (k *Kernels) HasPackBTrans32() bool { return k.hasPackBTrans32 }

// HasPackBTrans64 is HasPackBTrans32 for PackBTrans64.
func (k *Kernels) HasPackBTrans64() bool { return k.hasPackBTrans64 }

// fillPackBTrans gives a kernel set without transposing pack kernels the
// Go twins for its NR.
func fillPackBTrans(k *Kernels) {
	k.hasPackBTrans32 = k.packBTrans32 != nil
	k.hasPackBTrans64 = k.packBTrans64 != nil
	if k.packBTrans32 == nil {
		k.packBTrans32 = packBTransGo[float32](k.nr32)
	}
	if k.packBTrans64 == nil {
		k.packBTrans64 = packBTransGo[float64](k.nr64)
	}
}

// checkPackBTrans panics unless dst holds kb·nr elements and src every
// src[j*ld+p], j < nr, p < kb. The last test is written so that it cannot
// overflow: (nr-1)·ld + kb ≤ lsrc ⇔ ld ≤ ⌊(lsrc-kb)/(nr-1)⌋.
func checkPackBTrans(fn string, nr, ldst, lsrc, ld, kb int) {
	switch {
	case kb < 0 || ld < kb:
		panic(fmt.Sprintf("asm: %s: kb=%d ld=%d", fn, kb, ld))
	case ldst < kb*nr:
		panic(fmt.Sprintf("asm: %s: dst too short for kb=%d with NR=%d", fn, kb, nr))
	case kb > 0 && (lsrc < kb || ld > (lsrc-kb)/(nr-1)):
		panic(fmt.Sprintf("asm: %s: src too short for kb=%d, ld=%d with NR=%d", fn, kb, ld, nr))
	}
}
