package linalg

import "github.com/ntksvm/ntksvm/asm"

// The transposed path for the M-skinny products with op(B) = Bᵀ: C =
// alpha·A·Bᵀ, B stored n×k (a layer's weights W, out×in, in a forward
// pass alpha·H·Wᵀ), computed as Cᵀ = B·(alpha·A)ᵀ with the kernel set's
// GemmRows32 kernel (6×64 float32: 24 zmm accumulators, 4 vector loads
// and 6 broadcasts per 24 FMAs). The kernel broadcasts the elements of B
// straight from six of its rows, so B, the large operand, is never packed
// (the packed path transposes every block of B into slivers, a pass it
// cannot hide under the arithmetic); it loads vectors of (alpha·A)ᵀ, packed at the start
// (⌈m/64⌉ slivers of 64 columns per k block, kb×64 each; 5 MB for
// 128×10000), and each call prefetches the rows of the next tile of B.
//
// The tiles add into Cᵀ, kept in a scratch of ⌈n/6⌉·6 rows of ⌈m/64⌉·64
// (rows of B by rows of A; 5 MB for 128×10000): it starts as (beta·C)ᵀ
// (zeros for beta = 0) and is transposed into C at the end (the set's
// Transpose32, 8×16 register transposes). B is taken in panels of rows
// whose rows of Cᵀ fill half of L2 (rowsPanel), each through all k
// blocks before the next, so that Cᵀ is read and written from L2 rather
// than swept through L3 once per k block; the packed block of (alpha·A)ᵀ
// (256 KB) stays in L2 while a panel's tiles use it. The k blocks are
// region's (balanced(k, kc, 1)) and every C entry is summed by FMA in
// increasing p from zero within a block and then added, blocks in
// increasing order, so the result is bitwise that of the packed path: the
// same sums, added to the same partial results in the same order
// (TestGemmRows). Columns of alpha·Aᵀ past m are zeros and the rows of
// the last tile of B past n come from a zero-padded copy; both only feed
// scratch entries that are never copied into C.
//
// Taken for float32 on a set with a GemmRows32 kernel of its own
// (AVX-512), op(A) = A, op(B) = Bᵀ, not lower, all of op(A) in one block
// of A (m ≤ mc, as transNC's M-skinny case) and at most an eighth of the
// 64-column slivers of Aᵀ padding (rowsPays); elsewhere region packs B.
//
// On the forward products of the paper's training step this is faster
// than packing B, and the panels and the prefetch each pay their way
// (docs/performance.md, "The transposed path for M-skinny products").

// rowsFor returns the set's GemmRows32 for T, or nil when T is not float32
// or the set has no kernel of its own.
func rowsFor[T Float](ks *asm.Kernels) func(kc int, a []T, lda int, b, c []T, ldc int, pf []T) {
	var z T
	if _, ok := any(z).(float32); !ok || !ks.HasGemmRows32() {
		return nil
	}
	return any(ks.GemmRows32).(func(int, []T, int, []T, []T, int, []T))
}

// rowsPays reports whether the transposed path is worth it for m rows of
// C: the padding of the last 64-column sliver of Aᵀ is at most an eighth
// of m.
func rowsPays(m int) bool {
	return (roundUp(m, asm.RowsNR)-m)*8 <= m
}

// useRows reports whether the product's shape allows the transposed path.
func (p *gemmProblem[T]) useRows() bool {
	return p.tB && !p.tA && !p.lower && !p.mirror && p.m <= p.blk.mc
}

// rowsPanel returns how many rows of B regionRows takes through all k
// blocks before the next ones: their rows of Cᵀ, mp elements each, fill
// half of L2 (960 rows for 128 rows of C with Zen 4's 1 MiB), a multiple
// of the tile's 6 rows.
func rowsPanel(mp int) int {
	_, l2, _ := cacheSizes()
	return max(asm.RowsMR, l2/2/(mp*4)/asm.RowsMR*asm.RowsMR)
}

// grow returns (*s)[:n], replacing *s by a larger aligned slice if needed.
func grow[T Float](s *[]T, n int) []T {
	if len(*s) < n {
		*s = alignedSlice[T](n)
	}
	return (*s)[:n]
}

// regionRows computes region r of C by the transposed path (see above).
func (p *gemmProblem[T]) regionRows(ws *workspace[T], r region) {
	const mr, nr = asm.RowsMR, asm.RowsNR // rows of B, rows of A per tile
	m, n := r.i1-r.i0, r.j1-r.j0
	mp, np := roundUp(m, nr), roundUp(n, mr)
	kc := balanced(p.k, p.blk.kc, 1)
	ht := grow(&ws.a, mp*p.k)
	zt := grow(&ws.b, np*mp)
	ld, ldb := p.c.Stride, p.b.Stride
	c0 := r.i0*ld + r.j0
	// Cᵀ = (beta·C)ᵀ, eight rows of C at a time.
	if p.beta == 0 {
		clear(zt)
	} else {
		p.scale(r)
		for i := 0; i < m; i += 8 {
			p.transpose(zt[i:], mp, p.c.Data[c0+i*ld:], ld, min(8, m-i), n)
		}
	}
	for pc := 0; pc < p.k; pc += kc {
		kb := min(kc, p.k-pc)
		p.packAT(ht[pc*mp:(pc+kb)*mp], r.i0, m, mp, pc, kb)
	}
	pn := p.rowsPanel
	if pn <= 0 {
		pn = rowsPanel(mp)
	}
	w0 := p.b.Data[r.j0*ldb:] // row r.j0 of B
	for jp := 0; jp < n; jp += pn {
		if p.stopped() {
			return // C is not written: Cᵀ is still in the scratch
		}
		jn := min(pn, n-jp)
		full := jn / mr * mr
		for pc := 0; pc < p.k; pc += kc {
			kb := min(kc, p.k-pc)
			hb := ht[pc*mp : (pc+kb)*mp]
			// After the panel's last tile, the next is its first at the next
			// k block, or the next panel's first at the first.
			after := w0[jp*ldb+pc+kb:]
			if pc+kb >= p.k {
				after = w0[min(jp+pn, n-1)*ldb:]
			}
			for jr := jp; jr < jp+full; jr += mr {
				w := w0[jr*ldb+pc:]
				next := after
				if jr+mr < jp+full {
					next = w[mr*ldb:]
				}
				for s := 0; s < mp; s += nr {
					p.rows(kb, w, ldb, hb[s*kb:(s+nr)*kb], zt[jr*mp+s:], mp, next)
				}
			}
			if full < jn {
				e := grow(&ws.tile, mr*kb)
				clear(e)
				for q := range jn - full {
					copy(e[q*kb:(q+1)*kb], w0[(jp+full+q)*ldb+pc:])
				}
				for s := 0; s < mp; s += nr {
					p.rows(kb, e, kb, hb[s*kb:(s+nr)*kb], zt[(jp+full)*mp+s:], mp, nil)
				}
			}
		}
	}
	// C = Cᵀ transposed, eight rows of Cᵀ at a time.
	for j := 0; j < n; j += 8 {
		p.transpose(p.c.Data[c0+j:], ld, zt[j*mp:], mp, min(8, n-j), m)
	}
}

// packAT packs rows [i0, i0+m) and columns [p0, p0+kb) of alpha·A as
// mp/64 slivers of 64 columns of its transpose:
// dst[s*kb + q*64 + i] = alpha·A[i0+s+i, p0+q] for s a multiple of 64,
// zero for s+i ≥ m. Each product is rounded once, as packAOp rounds it.
func (p *gemmProblem[T]) packAT(dst []T, i0, m, mp, p0, kb int) {
	const nr = asm.RowsNR
	ld := p.a.Stride
	for s := 0; s < mp; s += nr {
		d := dst[s*kb : (s+nr)*kb]
		rows := min(nr, m-s)
		for i := 0; i < rows; i += 8 {
			p.scaledTranspose(d[i:], nr, p.a.Data[(i0+s+i)*ld+p0:], ld, min(8, rows-i), kb, p.alpha)
		}
		if rows < nr {
			for q := range kb {
				clear(d[q*nr+rows : (q+1)*nr])
			}
		}
	}
}
