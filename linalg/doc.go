// Package linalg is ntksvm's dense linear algebra: row-major matrices with a
// stride and copy-free views, a packed, cache-blocked, multi-threaded GEMM on
// the micro-kernels of package asm, Gram products, GEMV and level-1 helpers,
// Cholesky with triangular solves, symmetric eigenvalues and Lanczos. Its
// matrices are read from and written to NumPy files by package
// [github.com/ntksvm/ntksvm/linalg/npy].
//
// Everything is generic over float32 and float64. Functions that take user
// data return errors for shape mismatches; they panic only on programmer
// errors inside a call that cannot come from data (negative sizes to a
// constructor, an index out of range).
package linalg
