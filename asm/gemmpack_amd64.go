//go:build gc && !purego

package asm

// gemmPackBAVX512F64 is the 8×24 float64 micro-kernel that packs its B
// sliver as it reads it (gemmpack_amd64.s; contract in gemmpack.go).
//
//go:noescape
func gemmPackBAVX512F64(k int, a, b []float64, ldb int, bp, c []float64, ldc int)

// gemmPFAVX512F64 is gemmAVX512F64 that also prefetches rows rows of 24
// float64 at pf + q·ldpf into L2 while it computes (gemmpack_amd64.s).
//
//go:noescape
func gemmPFAVX512F64(k int, a, b, c []float64, ldc int, pf []float64, ldpf, rows int)

// gemmPackBAVX512F32 is gemmPackBAVX512F64 for the 8×48 float32 kernel.
//
//go:noescape
func gemmPackBAVX512F32(k int, a, b []float32, ldb int, bp, c []float32, ldc int)

// gemmPFAVX512F32 is gemmPFAVX512F64 for the 8×48 float32 kernel.
//
//go:noescape
func gemmPFAVX512F32(k int, a, b, c []float32, ldc int, pf []float32, ldpf, rows int)
