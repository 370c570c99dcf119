// Package asm holds the compute kernels everything in ntksvm rides on: ReLU
// (forward and derivative mask) and the GEMM micro-kernels of the BLIS/Goto
// design, in float32 and float64; the arc-cosine kernels of the infinite-width
// ReLU network's NTK/NNGP recursion (Acos64, ArcCosLayer64, ArcCosFirst64);
// and the level-1 dot, axpy and sum kernels that stream a kernel matrix at
// memory bandwidth (DotF32F64, DotRows4F32F64, AxpyF32F64, Sum32, …).
//
// Each kernel has a pure-Go reference (its "Go twin", always compiled) and
// assembly for AVX2+FMA and AVX-512F on amd64 and NEON on arm64. The GEMM
// kernels unrolled over their tiles are written by the generators in _gen,
// a module of its own run by go generate, and the committed files are
// checked against their output by the package's tests.
// The best set this CPU can run is chosen once at start-up from CPU feature
// detection; the environment variable NTKSVM_SIMD (generic, avx2, avx512 or
// neon; empty or "auto" for the default) overrides the choice. The purego
// build tag compiles no assembly at all.
//
// The package-level functions call the active set. Tests, benchmarks and
// callers that want a particular instruction set use [Available] or [Lookup]
// and call the methods of a [Kernels] value directly.
package asm
