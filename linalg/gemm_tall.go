package linalg

// macroPrefetchC is macro for a block whose k extent is the whole of the
// product (kb = k ≤ kc): the M-tall products of small k, such as a
// network's weight update W ← β·W + α·Gᵀ·A over a batch of 128, where C is
// far larger than the caches and every tile reads and writes its part of
// C exactly once, from memory. The full tiles of a row of tiles go to the
// kernel set in one GemmRowPrefetch call. In a short row (fewer than
// hwPrefetchTiles full tiles) each tile prefetches the C tile pfAheadC
// tiles on in macro's order (next columns, then the next rows), so that
// the tile kernel finds its C in L2 rather than waiting on memory when it
// adds its sums; long rows, such as the whole-row panels that prefetchCNC
// gives the update, leave C to the hardware prefetcher. Prefetches are
// hints and the tiles independent: the result is bitwise that of macro.
//
// With betaIn, C has not been scaled by beta yet (region leaves it to
// here): long rows go to GemmRowBeta, whose kernel multiplies each C
// vector by beta as it loads it to add the sums, and the other tiles are
// scaled just before their kernel adds to them. Either way each element
// gets fl(beta·c) and then the sums, as after region's pass, so the
// result is bitwise the same; what goes is the pass, which streamed all of
// C through the cache once more (the theory penalty's β = 1 − ηλ on a
// 10⁴×10⁴ layer: 0.4 GB read and written).
//
// Fetching C ahead pays on the update of a wide layer (K = 128), where a
// tile is little arithmetic, and one call per row of tiles saves the
// per-call cost, a noticeable share of such a tile (docs/performance.md,
// "Prefetching C"); see prefetchCNC and hwPrefetchTiles for the rest.
func (p *gemmProblem[T]) macroPrefetchC(ws *workspace[T], ic, mb, jc, jn, kb int, betaIn bool) {
	mr, nr, ld := p.mr, p.nr, p.c.Stride
	full := jn / nr // full columns of tiles
	for ir := 0; ir < mb; ir += mr {
		mm := min(mr, mb-ir)
		as := ws.a[ir*kb : ir*kb+kb*mr]
		row := ic + ir
		jr := 0
		if mm == mr && full > 0 {
			// The full tiles of the row in one call, the last ones
			// fetching the first of the next row of tiles (none after
			// the block's last); none at all in long rows.
			ahead, pfRows := pfAheadC, min(mr, ic+mb-row-mr)
			if full >= hwPrefetchTiles {
				ahead, pfRows = full, 0
			}
			var pf []T
			if pfRows > 0 {
				pf = p.c.Data[(row+mr)*ld+jc:]
			} else {
				pfRows = 0
			}
			switch {
			case betaIn && full >= hwPrefetchTiles:
				// No prefetch: the tiles' kernel scales C by beta.
				p.rowBeta(kb, as, ws.b[:full*kb*nr], p.c.Data[row*ld+jc:], ld, full, p.beta)
			default:
				if betaIn {
					p.scale(region{row, row + mm, jc, jc + full*nr})
				}
				p.pfRow(kb, as, ws.b[:full*kb*nr], p.c.Data[row*ld+jc:], ld, full, ahead, pf, pfRows, full)
			}
			jr = full * nr
		}
		for ; jr < jn; jr += nr {
			nn := min(nr, jn-jr)
			if betaIn {
				p.scale(region{row, row + mm, jc + jr, jc + jr + nn})
			}
			p.tile(kb, mm, nn, as, ws.b[jr*kb:jr*kb+kb*nr], p.c.Data[row*ld+jc+jr:], ld)
		}
	}
}

// pfAheadC is how many tiles ahead macroPrefetchC fetches C.
const pfAheadC = 2

// hwPrefetchTiles is the length, in full tiles, from which macroPrefetchC
// leaves the C of a row of tiles to the hardware prefetcher: each of the
// MR rows of C is then a sequential stream of at least this many NR runs,
// which it follows, and the tiles take the plain kernel (no DIVQ, four
// k steps a pass). On long rows the hardware prefetcher does as well as
// the explicit prefetches; short rows keep them (docs/performance.md,
// "Prefetching C").
const hwPrefetchTiles = 8

// prefetchCNC returns the width of the panels of B for the products that
// macroPrefetchC computes (a single k block, a block of A too large for
// macroFused): nc, or as much of the row of C as a packed panel of at most
// a quarter of L3 holds. The tiles then walk C along its rows, so that
// the A sliver stays in L1 for a whole row of tiles (one GemmRowPrefetch
// call) and each of the MR rows of C is a long sequential stream, while
// the B slivers come from L3 (docs/performance.md, "Prefetching C").
func (p *gemmProblem[T]) prefetchCNC(nc int) int {
	if p.pf == nil || p.tB || p.lower || p.k > p.blk.kc || min(p.m, p.blk.mc)*p.k <= p.fuseMax {
		return nc
	}
	var z T
	_, _, l3 := cacheSizes()
	wide := (l3 / 4) / (p.k * int(unsafeSizeof(z))) / p.nr * p.nr
	return max(nc, min(wide, roundUp(p.n, p.nr)))
}
