package linalg

// macroTransPF is macro for op(B) = Bᵀ (B stored n×k, as the weights of
// a layer are in a forward pass a·Wᵀ) with a prefetching tile kernel
// (pf): besides its arithmetic, every full tile of the panel fetches an
// equal share of the block of B that the next packB call will transpose,
// rows [next.j0, next.j1) of B and columns [next.p0, next.p1), into the
// caches. B comes from memory and each of its elements is used by only mb
// rows of op(A), so the transposing pack of an M-skinny product waits on
// memory for a large share of its time; with the block already in cache
// the pack runs at the speed of its shuffles. Prefetches are hints: the
// result is bitwise that of macro.
func (p *gemmProblem[T]) macroTransPF(ws *workspace[T], ic, mb, jc, jn, kb int, next region) {
	mr, nr, ld := p.mr, p.nr, p.c.Stride
	ldb := p.b.Stride
	// The block to fetch is cut into runs of nr elements, one per row of
	// B and segment of its columns; the last segment of a row ends at the
	// block's last column (it may overlap the one before it), so that no
	// run reaches past B's storage.
	rowsNext, cols := next.i1-next.i0, next.j1-next.j0
	segs := 0
	if rowsNext > 0 && cols >= nr {
		segs = (cols + nr - 1) / nr
	}
	total := rowsNext * segs
	tiles := (mb / mr) * (jn / nr)
	per := 0
	if tiles > 0 {
		per = (total + tiles - 1) / tiles
	}
	q := 0 // runs fetched so far
	for ir := 0; ir < mb; ir += mr {
		mm := min(mr, mb-ir)
		as := ws.a[ir*kb : ir*kb+kb*mr]
		row := ic + ir
		for jr := 0; jr < jn; jr += nr {
			nn := min(nr, jn-jr)
			bs := ws.b[jr*kb : jr*kb+kb*nr]
			col := jc + jr
			cs := p.c.Data[row*ld+col:]
			if mm < mr || nn < nr || q >= total {
				p.tile(kb, mm, nn, as, bs, cs, ld)
				continue
			}
			s, r := q/rowsNext, q%rowsNext
			cnt := min(per, rowsNext-r) // one segment: consecutive rows of B
			c0 := next.j0 + min(s*nr, cols-nr)
			p.pf(kb, as, bs, cs, ld, p.b.Data[(next.i0+r)*ldb+c0:], ldb, cnt)
			q += cnt
		}
	}
}

// nextTransBlock returns the block of B (rows × columns, as stored) that
// region packs after the panel of op(B) columns [jc, jc+jn) in the k block
// [pc, pc+kb): the next panel of the same k block, or else the first
// panel of the next k block; an empty region after the last.
func (p *gemmProblem[T]) nextTransBlock(r region, jc, jn, nc, pc, kb, kc int) region {
	if j := jc + jn; j < r.j1 {
		return region{j, min(j+nc, r.j1), pc, pc + kb}
	}
	if q := pc + kb; q < p.k {
		return region{r.j0, min(r.j0+nc, r.j1), q, min(q+kc, p.k)}
	}
	return region{}
}

// transNC returns the width of the panels of op(B) = Bᵀ: nc, or half of it
// (at least nr) for the M-skinny products that macroTransPF computes (all
// of op(A) in one block). While the tiles of one panel run, L2 holds the
// packed block of A, the packed panel and the block of B that they fetch
// for the next packB call, as large as the panel: with the block sizes
// derived for a panel alone the three filled L2 (docs/performance.md,
// "Prefetching C").
func (p *gemmProblem[T]) transNC(nc int) int {
	if !p.tB || p.pf == nil || p.lower || p.m > p.blk.mc {
		return nc
	}
	return max(p.nr, nc/2/p.nr*p.nr)
}
