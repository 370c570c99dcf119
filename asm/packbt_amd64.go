//go:build gc && !purego

package asm

import "math"

// AVX-512 kernels of PackBTrans32 and PackBTrans64 (contract in packbt.go)
// in packbt_amd64.s, for the 48-wide float32 and 24-wide float64 slivers
// of the AVX-512 tiles.

// packTGatherAVX512F32 sets dst[p*48+j] = src[idx[j]+p] for p < kb,
// j < 48: kb sliver rows gathered by three VGATHERDPS each, prefetching
// each row of B 256 bytes ahead. Requires AVX512F; len(dst) ≥ 48·kb and
// src holds every src[idx[j]+p] (the caller checks).
//
//go:noescape
func packTGatherAVX512F32(dst, src []float32, kb int, idx *[48]int32)

// packTGatherAVX512F64 is packTGatherAVX512F32 for 24 float64 columns,
// by three VGATHERDPD.
//
//go:noescape
func packTGatherAVX512F64(dst, src []float64, kb int, idx *[24]int32)

// packTTransAVX512F32 sets dst[p*48+j] = src[j*ld+p] for p < kb, j < 48,
// kb a multiple of 16: each 16×16 block is loaded a cache line per row of
// B, transposed in registers and stored as 16 sliver rows. Requires
// AVX512F; the caller checks lengths.
//
//go:noescape
func packTTransAVX512F32(dst, src []float32, ld, kb int)

// packBTransAVX512F32 is the AVX-512 PackBTrans32 (NR = 48): the first
// kb&^15 sliver rows by packTTransAVX512F32, the rest by
// packTGatherAVX512F32, or by the Go twin where the gather's 32-bit
// offsets j·ld do not fit.
func packBTransAVX512F32(dst, src []float32, ld, kb int) {
	k16 := kb &^ 15
	if k16 > 0 {
		packTTransAVX512F32(dst, src, ld, k16)
	}
	if k16 == kb {
		return
	}
	if 47*ld > math.MaxInt32 {
		packBTransGo[float32](48)(dst[k16*48:], src[k16:], ld, kb-k16)
		return
	}
	var idx [48]int32
	for j := range idx {
		idx[j] = int32(j * ld)
	}
	packTGatherAVX512F32(dst[k16*48:], src[k16:], kb-k16, &idx)
}

// packBTransAVX512F64 is the AVX-512 PackBTrans64 (NR = 24), by
// packTGatherAVX512F64, or by the Go twin where the gather's 32-bit
// offsets j·ld do not fit.
func packBTransAVX512F64(dst, src []float64, ld, kb int) {
	if 23*ld > math.MaxInt32 {
		packBTransGo[float64](24)(dst, src, ld, kb)
		return
	}
	var idx [24]int32
	for j := range idx {
		idx[j] = int32(j * ld)
	}
	packTGatherAVX512F64(dst, src, kb, &idx)
}
