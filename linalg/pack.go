package linalg

import (
	"sync"
	"unsafe"
)

// This file packs operands for the micro-kernels of package asm, whose
// contract is in asm/gemm.go: an MR-tall sliver of op(A) is stored k×MR,
// a[p*MR+i], and an NR-wide sliver of op(B) k×NR, b[p*NR+j]; slivers are
// always full, zero padded past the matrix edge.

// packA packs rows [i0, i0+mb) and columns [p0, p0+kb) of op(A), scaled by
// alpha, as ⌈mb/mr⌉ slivers: dst[s*kb*mr + p*mr + i] = alpha·op(A)[i0+s*mr+i, p0+p].
// Rows past mb are zero.
func packA[T Float](dst []T, a Matrix[T], trans bool, alpha T, i0, mb, p0, kb, mr int) {
	ld := a.Stride
	for s := 0; s*mr < mb; s++ {
		r := min(mr, mb-s*mr)
		d := dst[s*kb*mr : (s+1)*kb*mr]
		row0 := i0 + s*mr
		if trans {
			// op(A)[i, p] = A[p, i]: each p is a contiguous run of r values.
			for p := range kb {
				src := a.Data[(p0+p)*ld+row0 : (p0+p)*ld+row0+r]
				dp := d[p*mr : p*mr+mr]
				if alpha == 1 {
					copy(dp, src)
				} else {
					for i, v := range src {
						dp[i] = alpha * v
					}
				}
				clear(dp[r:])
			}
			continue
		}
		// op(A)[i, p] = A[i, p]: interleave r rows.
		i := 0
		for ; i+4 <= r; i += 4 {
			s0 := a.Data[(row0+i)*ld+p0:][:kb]
			s1 := a.Data[(row0+i+1)*ld+p0:][:kb]
			s2 := a.Data[(row0+i+2)*ld+p0:][:kb]
			s3 := a.Data[(row0+i+3)*ld+p0:][:kb]
			for p := range kb {
				dp := d[p*mr+i : p*mr+i+4 : p*mr+i+4]
				dp[0], dp[1], dp[2], dp[3] = alpha*s0[p], alpha*s1[p], alpha*s2[p], alpha*s3[p]
			}
		}
		for ; i < r; i++ {
			src := a.Data[(row0+i)*ld+p0:][:kb]
			for p, v := range src {
				d[p*mr+i] = alpha * v
			}
		}
		if r < mr {
			for p := range kb {
				clear(d[p*mr+r : p*mr+mr])
			}
		}
	}
}

// packB packs rows [p0, p0+kb) and columns [j0, j0+nb) of op(B) as
// ⌈nb/nr⌉ slivers: dst[s*kb*nr + p*nr + j] = op(B)[p0+p, j0+s*nr+j].
// Columns past nb are zero.
func packB[T Float](dst []T, b Matrix[T], trans bool, p0, kb, j0, nb, nr int) {
	ld := b.Stride
	for s := 0; s*nr < nb; s++ {
		r := min(nr, nb-s*nr)
		d := dst[s*kb*nr : (s+1)*kb*nr]
		col0 := j0 + s*nr
		if !trans {
			// op(B)[p, j] = B[p, j]: each p is a contiguous run of r values.
			for p := range kb {
				dp := d[p*nr : p*nr+nr]
				copy(dp, b.Data[(p0+p)*ld+col0:(p0+p)*ld+col0+r])
				clear(dp[r:])
			}
			continue
		}
		// op(B)[p, j] = B[j, p]: interleave r rows of B.
		j := 0
		for ; j+4 <= r; j += 4 {
			s0 := b.Data[(col0+j)*ld+p0:][:kb]
			s1 := b.Data[(col0+j+1)*ld+p0:][:kb]
			s2 := b.Data[(col0+j+2)*ld+p0:][:kb]
			s3 := b.Data[(col0+j+3)*ld+p0:][:kb]
			for p := range kb {
				dp := d[p*nr+j : p*nr+j+4 : p*nr+j+4]
				dp[0], dp[1], dp[2], dp[3] = s0[p], s1[p], s2[p], s3[p]
			}
		}
		for ; j < r; j++ {
			src := b.Data[(col0+j)*ld+p0:][:kb]
			for p, v := range src {
				d[p*nr+j] = v
			}
		}
		if r < nr {
			for p := range kb {
				clear(d[p*nr+r : p*nr+nr])
			}
		}
	}
}

// workspace is one worker's pack buffers: the packed block of A, the packed
// panel of B and a scratch micro-tile. Workspaces are pooled so that
// repeated calls do not allocate.
type workspace[T Float] struct {
	a, b, tile []T
}

var (
	wsPool32 sync.Pool // *workspace[float32]
	wsPool64 sync.Pool // *workspace[float64]
)

func poolFor[T Float]() *sync.Pool {
	var z T
	if _, ok := any(z).(float32); ok {
		return &wsPool32
	}
	return &wsPool64
}

// getWorkspace returns a pooled workspace with buffers of at least the
// given lengths.
func getWorkspace[T Float](na, nb, ntile int) *workspace[T] {
	ws, _ := poolFor[T]().Get().(*workspace[T])
	if ws == nil {
		ws = new(workspace[T])
	}
	if len(ws.a) < na {
		ws.a = alignedSlice[T](na)
	}
	if len(ws.b) < nb {
		ws.b = alignedSlice[T](nb)
	}
	if len(ws.tile) < ntile {
		ws.tile = alignedSlice[T](ntile)
	}
	return ws
}

func putWorkspace[T Float](ws *workspace[T]) { poolFor[T]().Put(ws) }

// alignment is the byte alignment of pack buffers: one cache line, which is
// also one AVX-512 register.
const alignment = 64

// alignedSlice returns a zeroed slice of n elements whose first element is
// alignment-byte aligned.
func alignedSlice[T Float](n int) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	extra := alignment / size
	s := make([]T, n+extra)
	if n == 0 {
		return s[:0]
	}
	off := 0
	if r := int(uintptr(unsafe.Pointer(&s[0])) % alignment); r != 0 {
		off = (alignment - r) / size
	}
	return s[off : off+n : off+n]
}

// unsafeSizeof is the size in bytes of one element.
func unsafeSizeof[T Float](z T) uintptr { return unsafe.Sizeof(z) }
