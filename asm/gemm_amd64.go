//go:build gc && !purego

package asm

// Assembly kernels in gemm_amd64.s: full-tile GEMM micro-kernels (contract
// in gemm.go; the exported wrappers check lengths and handle edge tiles)
// and FMA peak loops.

// gemmAVX512F32 is the 14×32 float32 micro-kernel.
//
//go:noescape
func gemmAVX512F32(k int, a, b, c []float32, ldc int)

// gemmAVX512F64 is the 14×16 float64 micro-kernel.
//
//go:noescape
func gemmAVX512F64(k int, a, b, c []float64, ldc int)

// gemmAVX2F32 is the 6×16 float32 micro-kernel.
//
//go:noescape
func gemmAVX2F32(k int, a, b, c []float32, ldc int)

// gemmAVX2F64 is the 6×8 float64 micro-kernel.
//
//go:noescape
func gemmAVX2F64(k int, a, b, c []float64, ldc int)

// fmaPeakAVX512F32 runs n iterations of 24 independent zmm FMAs.
//
//go:noescape
func fmaPeakAVX512F32(n int) int

// fmaPeakAVX512F64 runs n iterations of 24 independent zmm FMAs.
//
//go:noescape
func fmaPeakAVX512F64(n int) int

// fmaPeakAVX2F32 runs n iterations of 12 independent ymm FMAs.
//
//go:noescape
func fmaPeakAVX2F32(n int) int

// fmaPeakAVX2F64 runs n iterations of 12 independent ymm FMAs.
//
//go:noescape
func fmaPeakAVX2F64(n int) int
