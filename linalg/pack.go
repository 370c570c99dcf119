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
		// op(A)[i, p] = A[i, p]: interleave r rows, eight, four, two or
		// one at a time, pChunk values of p at a time.
		for q0 := 0; q0 < kb; q0 += pChunk {
			q1 := min(q0+pChunk, kb)
			i := 0
			for ; i+8 <= r; i += 8 {
				s0 := a.Data[(row0+i)*ld+p0+q0 : (row0+i)*ld+p0+q1]
				s1 := a.Data[(row0+i+1)*ld+p0+q0:][:len(s0)]
				s2 := a.Data[(row0+i+2)*ld+p0+q0:][:len(s0)]
				s3 := a.Data[(row0+i+3)*ld+p0+q0:][:len(s0)]
				s4 := a.Data[(row0+i+4)*ld+p0+q0:][:len(s0)]
				s5 := a.Data[(row0+i+5)*ld+p0+q0:][:len(s0)]
				s6 := a.Data[(row0+i+6)*ld+p0+q0:][:len(s0)]
				s7 := a.Data[(row0+i+7)*ld+p0+q0:][:len(s0)]
				for p := range s0 {
					o := (q0+p)*mr + i
					dp := d[o : o+8 : o+8]
					dp[0], dp[1], dp[2], dp[3] = alpha*s0[p], alpha*s1[p], alpha*s2[p], alpha*s3[p]
					dp[4], dp[5], dp[6], dp[7] = alpha*s4[p], alpha*s5[p], alpha*s6[p], alpha*s7[p]
				}
			}
			for ; i+4 <= r; i += 4 {
				s0 := a.Data[(row0+i)*ld+p0+q0 : (row0+i)*ld+p0+q1]
				s1 := a.Data[(row0+i+1)*ld+p0+q0:][:len(s0)]
				s2 := a.Data[(row0+i+2)*ld+p0+q0:][:len(s0)]
				s3 := a.Data[(row0+i+3)*ld+p0+q0:][:len(s0)]
				for p := range s0 {
					o := (q0+p)*mr + i
					dp := d[o : o+4 : o+4]
					dp[0], dp[1], dp[2], dp[3] = alpha*s0[p], alpha*s1[p], alpha*s2[p], alpha*s3[p]
				}
			}
			if i+2 <= r {
				s0 := a.Data[(row0+i)*ld+p0+q0 : (row0+i)*ld+p0+q1]
				s1 := a.Data[(row0+i+1)*ld+p0+q0:][:len(s0)]
				for p := range s0 {
					o := (q0+p)*mr + i
					dp := d[o : o+2 : o+2]
					dp[0], dp[1] = alpha*s0[p], alpha*s1[p]
				}
				i += 2
			}
			if i < r {
				src := a.Data[(row0+i)*ld+p0+q0 : (row0+i)*ld+p0+q1]
				for p, v := range src {
					d[(q0+p)*mr+i] = alpha * v
				}
			}
		}
		if r < mr {
			for p := range kb {
				clear(d[p*mr+r : p*mr+mr])
			}
		}
	}
}

// packAOp is packA for the problem's op(A) and alpha. With packRows8 each
// full sliver is the scaled-transpose kernel's copy of eight rows of A
// (8×16 register transposes, each row scaled by alpha as it is loaded):
// the same products alpha·a as packA's, so the same bits, about four
// times faster (docs/performance.md, "Packing").
func (p *gemmProblem[T]) packAOp(dst []T, i0, mb, p0, kb int) {
	mr := p.mr
	if !p.packRows8 {
		packA(dst, p.a, p.tA, p.alpha, i0, mb, p0, kb, mr)
		return
	}
	ld := p.a.Stride
	full := mb / mr * mr
	for s := 0; s*mr < full; s++ {
		p.scaledTranspose(dst[s*kb*mr:(s+1)*kb*mr], mr, p.a.Data[(i0+s*mr)*ld+p0:], ld, mr, kb, p.alpha)
	}
	if full < mb {
		packA(dst[full*kb:], p.a, false, p.alpha, i0+full, mb-full, p0, kb, mr)
	}
}

// packB packs rows [p0, p0+kb) and columns [j0, j0+nb) of op(B) as
// ⌈nb/nr⌉ slivers: dst[s*kb*nr + p*nr + j] = op(B)[p0+p, j0+s*nr+j].
// Columns past nb are zero.
func packB[T Float](dst []T, b Matrix[T], trans bool, p0, kb, j0, nb, nr int) {
	if !trans {
		packBRows(dst, b, p0, kb, j0, nb, nr)
		return
	}
	ld := b.Stride
	// op(B)[p, j] = B[j, p]: interleave r rows of B, pChunk values of p at
	// a time so that the sources and the destination stay in L1, after the
	// slivers that packTFull gathers.
	for s := packTFull(dst, b, p0, kb, j0, nb, nr); s*nr < nb; s++ {
		r := min(nr, nb-s*nr)
		d := dst[s*kb*nr : (s+1)*kb*nr]
		col0 := j0 + s*nr
		for q0 := 0; q0 < kb; q0 += pChunk {
			q1 := min(q0+pChunk, kb)
			j := 0
			for ; j+8 <= r; j += 8 {
				s0 := b.Data[(col0+j)*ld+p0+q0 : (col0+j)*ld+p0+q1]
				s1 := b.Data[(col0+j+1)*ld+p0+q0:][:len(s0)]
				s2 := b.Data[(col0+j+2)*ld+p0+q0:][:len(s0)]
				s3 := b.Data[(col0+j+3)*ld+p0+q0:][:len(s0)]
				s4 := b.Data[(col0+j+4)*ld+p0+q0:][:len(s0)]
				s5 := b.Data[(col0+j+5)*ld+p0+q0:][:len(s0)]
				s6 := b.Data[(col0+j+6)*ld+p0+q0:][:len(s0)]
				s7 := b.Data[(col0+j+7)*ld+p0+q0:][:len(s0)]
				for p := range s0 {
					o := (q0+p)*nr + j
					dp := d[o : o+8 : o+8]
					dp[0], dp[1], dp[2], dp[3] = s0[p], s1[p], s2[p], s3[p]
					dp[4], dp[5], dp[6], dp[7] = s4[p], s5[p], s6[p], s7[p]
				}
			}
			for ; j+4 <= r; j += 4 {
				s0 := b.Data[(col0+j)*ld+p0+q0 : (col0+j)*ld+p0+q1]
				s1 := b.Data[(col0+j+1)*ld+p0+q0:][:len(s0)]
				s2 := b.Data[(col0+j+2)*ld+p0+q0:][:len(s0)]
				s3 := b.Data[(col0+j+3)*ld+p0+q0:][:len(s0)]
				for p := range s0 {
					o := (q0+p)*nr + j
					dp := d[o : o+4 : o+4]
					dp[0], dp[1], dp[2], dp[3] = s0[p], s1[p], s2[p], s3[p]
				}
			}
			for ; j < r; j++ {
				src := b.Data[(col0+j)*ld+p0+q0 : (col0+j)*ld+p0+q1]
				for p, v := range src {
					d[(q0+p)*nr+j] = v
				}
			}
			if r < nr {
				for p := q0; p < q1; p++ {
					clear(d[p*nr+r : p*nr+nr])
				}
			}
		}
	}
}

// packBRows is packB for op(B) = B: each sliver row is a run of a row of
// B. It reads four rows of B at a time, sliver by sliver, rather than one
// row after the other: B usually comes from memory, and four streams in
// flight keep more cache misses outstanding and more hardware prefetch
// streams busy than one (docs/performance.md, "Packing").
func packBRows[T Float](dst []T, b Matrix[T], p0, kb, j0, nb, nr int) {
	ld := b.Stride
	full := nb / nr
	rest := nb - full*nr
	p := 0
	for ; p+4 <= kb; p += 4 {
		r0 := b.Data[(p0+p)*ld+j0:][:nb]
		r1 := b.Data[(p0+p+1)*ld+j0:][:nb]
		r2 := b.Data[(p0+p+2)*ld+j0:][:nb]
		r3 := b.Data[(p0+p+3)*ld+j0:][:nb]
		for s := range full {
			o := s*kb*nr + p*nr
			d := dst[o : o+4*nr]
			copy(d[:nr], r0[s*nr:s*nr+nr])
			copy(d[nr:2*nr], r1[s*nr:s*nr+nr])
			copy(d[2*nr:3*nr], r2[s*nr:s*nr+nr])
			copy(d[3*nr:], r3[s*nr:s*nr+nr])
		}
		if rest > 0 {
			o := full*kb*nr + p*nr
			for q, src := range [4][]T{r0, r1, r2, r3} {
				dp := dst[o+q*nr : o+q*nr+nr]
				copy(dp, src[full*nr:])
				clear(dp[rest:])
			}
		}
	}
	for ; p < kb; p++ {
		src := b.Data[(p0+p)*ld+j0:][:nb]
		for s := range full {
			copy(dst[s*kb*nr+p*nr:s*kb*nr+p*nr+nr], src[s*nr:s*nr+nr])
		}
		if rest > 0 {
			dp := dst[full*kb*nr+p*nr : full*kb*nr+p*nr+nr]
			copy(dp, src[full*nr:])
			clear(dp[rest:])
		}
	}
}

// pChunk is how many values of the summation index the transposing packs
// move at a time.
const pChunk = 64

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
