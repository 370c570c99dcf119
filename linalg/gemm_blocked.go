package linalg

import (
	"math"
	"sync/atomic"

	"github.com/ntksvm/ntksvm/asm"
)

// gemmConfig chooses how a product is computed. The zero value means the
// defaults: asm.Active(), Threads() and block sizes from the cache sizes.
type gemmConfig struct {
	kern      *asm.Kernels // kernel set; nil: asm.Active()
	threads   int          // ≤ 0: Threads()
	blk       blocking     // zero: blockSizes for the kernel's tile
	noSmall   bool         // never take the direct small-matrix path
	split     bool         // use all threads however small the work (tests)
	noFused   bool         // pack B first where the fused kernel would, with the same blocks (tests)
	fuseMax   int          // > 0: the largest packed A block of the fused path, in elements (tests)
	tileCalls bool         // macro calls the kernel once per tile, never per row of tiles (tests)
	// rows > 0 takes the transposed path (gemm_rows.go) wherever the
	// shape and kernel set allow it, rows < 0 never (tests); 0 where it
	// pays.
	rows int
	// rowsPanel, if positive, is the number of rows of B that the
	// transposed path takes through all k blocks at a time (tests).
	rowsPanel int
	// stop, if not nil, ends the product early once it is set: the
	// workers check it between panels of B (GemmContext).
	stop *atomic.Bool
}

const (
	// smallWork is the largest m·n·k computed by the direct loop, without
	// packing; below it packing costs more than it saves (the packed path
	// wins from about 8×8×8 on with the AVX-512 kernels).
	smallWork = 256
	// minThreadFlops is the least work worth a second thread on the
	// packed path: each worker packs its own operands. With parallel's
	// spinning workers a second thread pays from about this size on
	// (docs/performance.md, "Thread thresholds").
	minThreadFlops = 4 << 20
	// smallSharesFlops is the size up to which the blocked path cuts two
	// shares per thread (2·512³ flops).
	smallSharesFlops = 1 << 28
	// gatherCost and copyCost are roughly how many flops of micro-kernel
	// time packing one element costs when the pack interleaves rows
	// (A as stored, Bᵀ) or copies runs (Aᵀ, B as stored); they weigh
	// packing against arithmetic when splitting C.
	gatherCost = 80
	copyCost   = 32
)

// gemmProblem is one product C = alpha·op(A)·op(B) + beta·C with op(A)
// m×k and op(B) k×n. With lower set, only the lower triangle of C (i ≥ j)
// is read and written: that is SyrkLower.
type gemmProblem[T Float] struct {
	tA, tB      bool
	alpha, beta T
	a, b, c     Matrix[T]
	m, n, k     int
	lower       bool
	mirror      bool // with lower: copy each finished tile onto the upper triangle (Gram)

	mr, nr int
	blk    blocking
	stop   *atomic.Bool // see gemmConfig.stop
	tile   func(kc, m, n int, a, b, c []T, ldc int)
	// transpose is the kernel set's Transpose32 or Transpose64, for the
	// mirror.
	transpose func(dst []T, ldd int, src []T, lds, m, n int)
	// packRows8 is set when op(A) = A, mr is 8 and the set's transpose
	// kernels are its own (not the Go twins): packAOp then packs each full
	// sliver of A as a scaled transposed copy of its eight rows.
	packRows8       bool
	scaledTranspose func(dst []T, ldd int, src []T, lds, m, n int, alpha T)
	// fused, when the kernel set has one, computes a full tile reading its
	// B sliver from op(B) = B and packing it on the way, and pf a full tile
	// from packed slivers that prefetches rows of B (see macroFused).
	fused func(kc int, a, b []T, ldb int, bp, c []T, ldc int)
	pf    func(kc int, a, b, c []T, ldc int, pf []T, ldpf, rows int)
	// pfRow is the set's GemmRowPrefetch32 or 64, pf over a row of tiles
	// (macroPrefetchC); set with pf.
	pfRow func(kc int, a, b, c []T, ldc, n, ahead int, pf []T, pfRows, pfTiles int)
	// rowBeta, set when beta is neither 0 nor 1 and the kernel set has a
	// kernel that scales C in its epilogue (asm's GemmRowBeta32 or 64),
	// lets macro and macroPrefetchC fold beta into the tiles of a single k
	// block instead of a pass over C first.
	rowBeta func(kc int, a, b, c []T, ldc, n int, beta T)
	// fuseMax is the largest packed block of A, in elements, for which
	// the fused path is taken: its B-sliver-outer order reads every A
	// sliver once per B sliver, so the block must stay in L2.
	fuseMax   int
	noFused   bool // gemmConfig.noFused
	tileCalls bool // gemmConfig.tileCalls
	// rows, if set, is the GemmRows32 kernel of the transposed path that
	// region takes (gemm_rows.go).
	rows      func(kc int, a []T, lda int, b, c []T, ldc int, pf []T)
	rowsPanel int // gemmConfig.rowsPanel
}

// kernelFor returns the micro-tile shape and micro-kernel of ks for T.
func kernelFor[T Float](ks *asm.Kernels) (mr, nr int, f func(kc, m, n int, a, b, c []T, ldc int)) {
	var z T
	if _, ok := any(z).(float32); ok {
		mr, nr = ks.Tile32()
		return mr, nr, any(ks.GemmTile32).(func(int, int, int, []T, []T, []T, int))
	}
	mr, nr = ks.Tile64()
	return mr, nr, any(ks.GemmTile64).(func(int, int, int, []T, []T, []T, int))
}

// transposeFor returns the transpose kernel of ks for T.
func transposeFor[T Float](ks *asm.Kernels) func(dst []T, ldd int, src []T, lds, m, n int) {
	var z T
	if _, ok := any(z).(float32); ok {
		return any(ks.Transpose32).(func([]T, int, []T, int, int, int))
	}
	return any(ks.Transpose64).(func([]T, int, []T, int, int, int))
}

// scaledTransposeFor returns the scaled transpose kernel of ks for T.
func scaledTransposeFor[T Float](ks *asm.Kernels) func(dst []T, ldd int, src []T, lds, m, n int, alpha T) {
	var z T
	if _, ok := any(z).(float32); ok {
		return any(ks.ScaledTranspose32).(func([]T, int, []T, int, int, int, T))
	}
	return any(ks.ScaledTranspose64).(func([]T, int, []T, int, int, int, T))
}

// hasTransposeFor reports whether ks has a transpose kernel of its own for T.
func hasTransposeFor[T Float](ks *asm.Kernels) bool {
	var z T
	if _, ok := any(z).(float32); ok {
		return ks.HasTranspose32()
	}
	return ks.HasTranspose64()
}

// fusedFor returns the fused pack-and-compute kernel of ks for T and the
// prefetching tile kernel that goes with it, or nils when the set has no
// fused kernel of its own for T (it would be no faster than packing first).
func fusedFor[T Float](ks *asm.Kernels) (fused func(kc int, a, b []T, ldb int, bp, c []T, ldc int),
	pf func(kc int, a, b, c []T, ldc int, pf []T, ldpf, rows int)) {
	var z T
	if _, ok := any(z).(float32); ok {
		if !ks.FusedPackB32() {
			return nil, nil
		}
		return any(ks.GemmTilePackB32).(func(int, []T, []T, int, []T, []T, int)),
			any(ks.GemmTilePrefetch32).(func(int, []T, []T, []T, int, []T, int, int))
	}
	if !ks.FusedPackB64() {
		return nil, nil
	}
	return any(ks.GemmTilePackB64).(func(int, []T, []T, int, []T, []T, int)),
		any(ks.GemmTilePrefetch64).(func(int, []T, []T, []T, int, []T, int, int))
}

// pfRowFor returns the row-of-tiles prefetching kernel of ks for T.
func pfRowFor[T Float](ks *asm.Kernels) func(kc int, a, b, c []T, ldc, n, ahead int, pf []T, pfRows, pfTiles int) {
	var z T
	if _, ok := any(z).(float32); ok {
		return any(ks.GemmRowPrefetch32).(func(int, []T, []T, []T, int, int, int, []T, int, int))
	}
	return any(ks.GemmRowPrefetch64).(func(int, []T, []T, []T, int, int, int, []T, int, int))
}

// rowBetaFor returns the row-of-tiles beta kernel of ks for T, or nil if
// ks has none of its own.
func rowBetaFor[T Float](ks *asm.Kernels) func(kc int, a, b, c []T, ldc, n int, beta T) {
	var z T
	if _, ok := any(z).(float32); ok {
		if !ks.HasGemmBeta32() {
			return nil
		}
		return any(ks.GemmRowBeta32).(func(int, []T, []T, []T, int, int, T))
	}
	if !ks.HasGemmBeta64() {
		return nil
	}
	return any(ks.GemmRowBeta64).(func(int, []T, []T, []T, int, int, T))
}

// region is a block [i0, i1)×[j0, j1) of C computed by one worker.
type region struct{ i0, i1, j0, j1 int }

func (p *gemmProblem[T]) run(cfg gemmConfig) {
	if p.m == 0 || p.n == 0 {
		return
	}
	if p.k == 0 || p.alpha == 0 {
		p.scale(region{0, p.m, 0, p.n})
		if p.mirror {
			MirrorLower(p.c, 0, p.m, 0, p.n)
		}
		return
	}
	if !cfg.noSmall && p.m*p.n*p.k <= smallWork {
		p.direct()
		if p.mirror {
			MirrorLower(p.c, 0, p.m, 0, p.n)
		}
		return
	}
	ks := cfg.kern
	if ks == nil {
		ks = asm.Active()
	}
	t := cfg.threads
	if t <= 0 {
		t = Threads()
	}
	if !cfg.noSmall && p.tryDirect(ks, t, cfg.split) {
		return
	}
	p.stop = cfg.stop
	p.mr, p.nr, p.tile = kernelFor[T](ks)
	p.transpose = transposeFor[T](ks)
	p.packRows8 = !p.tA && p.mr == 8 && hasTransposeFor[T](ks)
	p.scaledTranspose = scaledTransposeFor[T](ks)
	p.noFused = cfg.noFused
	p.tileCalls = cfg.tileCalls
	if _, pf := fusedFor[T](ks); pf != nil {
		p.pfRow = pfRowFor[T](ks) // macro's rows of tiles, lower too
	}
	if !p.lower {
		p.fused, p.pf = fusedFor[T](ks)
		if p.beta != 0 && p.beta != 1 {
			p.rowBeta = rowBetaFor[T](ks)
		}
		if p.tB {
			p.fused = nil // pf only: see macroTransPF
		}
		var z T
		_, l2, _ := cacheSizes()
		p.fuseMax = l2 / 4 / int(unsafeSizeof(z))
		if cfg.fuseMax > 0 {
			p.fuseMax = cfg.fuseMax
		}
	}
	p.blk = cfg.blk
	if p.blk == (blocking{}) {
		var z T
		p.blk = blockSizes(p.mr, p.nr, int(unsafeSizeof(z)))
		p.blk.kc = p.fusedKC(p.blk.kc)
		p.blk.nc = p.transNC(p.blk.nc)
		p.blk.nc = p.prefetchCNC(p.blk.nc)
	}
	if cfg.rows >= 0 && p.useRows() && (cfg.rows > 0 || rowsPays(p.m)) {
		p.rows = rowsFor[T](ks)
		p.rowsPanel = roundUp(cfg.rowsPanel, asm.RowsMR)
	}
	flops := 2 * float64(p.m) * float64(p.n) * float64(p.k)
	if p.lower {
		flops /= 2
	}
	if !cfg.split {
		t = max(1, min(t, int(flops/minThreadFlops)))
	}
	// Products that take about a millisecond or less are cut into two
	// shares per thread, claimed as they come, so that a thread the
	// operating system deschedules holds up half as much of the product;
	// larger ones keep one share per thread (fewer packed copies).
	shares := t
	if t > 1 && flops <= smallSharesFlops {
		shares = 2 * t
	}
	var regs []region
	if p.lower {
		regs = p.lowerSplit(shares)
	} else {
		regs = p.gridSplit(shares)
	}
	na := min(p.blk.mc, roundUp(p.m, p.mr)) * min(p.blk.kc, p.k)
	nb := min(p.blk.kc, p.k) * min(p.blk.nc, roundUp(p.n, p.nr))
	parallelN(len(regs), t, func(w int) {
		ws := getWorkspace[T](na, nb, p.mr*p.nr)
		p.region(ws, regs[w])
		putWorkspace(ws)
	})
}

// fusedKCMax caps the depth of the k blocks of the fused path.
const fusedKCMax = 512

// fusedKC returns the depth of the k blocks: kc, or more when the whole
// of op(A)'s rows fit one block of A that the fused path takes (M-skinny
// products). That path reads each packed block of A from L2 once per B
// sliver whatever its depth, but reads and writes all of C once per k
// block, and C of an M-skinny product (128×10000) is in memory: so the
// block takes as much of L2 as the path allows (fuseMax), up to
// fusedKCMax, past which deeper blocks were slower (docs/performance.md,
// "Deep k blocks of the fused path").
func (p *gemmProblem[T]) fusedKC(kc int) int {
	if p.fused == nil {
		return kc
	}
	deep := min(fusedKCMax, p.fuseMax/roundUp(p.m, p.mr)) / 8 * 8
	return max(kc, deep)
}

// stopped reports whether the product is to end early (GemmContext).
func (p *gemmProblem[T]) stopped() bool { return p.stop != nil && p.stop.Load() }

func roundUp(v, q int) int { return (v + q - 1) / q * q }

// balanced returns the block size, a multiple of q and at most limit (itself
// a multiple of q), that covers n with as few and as equal blocks as
// possible.
func balanced(n, limit, q int) int {
	if n <= limit {
		return roundUp(n, q)
	}
	blocks := (n + limit - 1) / limit
	return min(roundUp((n+blocks-1)/blocks, q), limit)
}

// gridSplit splits C into a pr×pc grid of regions for t workers, region
// edges on micro-tile boundaries. Of the factorizations pr·pc = t it takes
// the one whose slowest worker has least to do, counting its arithmetic
// and its packing (each worker packs its own rows of A and columns of B).
func (p *gemmProblem[T]) gridSplit(t int) []region {
	tm, tn := (p.m+p.mr-1)/p.mr, (p.n+p.nr-1)/p.nr
	costA, costB := float64(gatherCost), float64(copyCost)
	if p.tA {
		costA = copyCost
	}
	if p.tB {
		costB = gatherCost
	}
	for ; t > 1; t-- {
		bestR, best := 0, math.Inf(1)
		for r := 1; r <= t; r++ {
			c := t / r
			if r*c != t || r > tm || c > tn {
				continue
			}
			rows := float64((tm + r - 1) / r * p.mr) // the largest region
			cols := float64((tn + c - 1) / c * p.nr)
			blocks := math.Ceil(rows / float64(p.blk.mc)) // B is packed once per block of A
			cost := 2*rows*cols + costA*rows + costB*cols*blocks
			if cost < best {
				bestR, best = r, cost
			}
		}
		if bestR > 0 {
			rc, cc := evenCuts(p.m, p.mr, bestR), evenCuts(p.n, p.nr, t/bestR)
			regs := make([]region, 0, t)
			for i := range bestR {
				for j := range t / bestR {
					regs = append(regs, region{rc[i], rc[i+1], cc[j], cc[j+1]})
				}
			}
			return regs
		}
	}
	return []region{{0, p.m, 0, p.n}}
}

// lowerSplit splits the lower triangle of C into row bands of about equal
// area (the band of rows [i0, i1) covers columns [0, i1)), band edges on
// micro-tile boundaries.
func (p *gemmProblem[T]) lowerSplit(t int) []region {
	t = min(t, (p.m+p.mr-1)/p.mr)
	regs := make([]region, 0, t)
	prev := 0
	for w := 1; w <= t; w++ {
		cut := p.m
		if w < t {
			cut = min(int(float64(p.m)*math.Sqrt(float64(w)/float64(t)))/p.mr*p.mr, p.m)
		}
		if cut > prev {
			regs = append(regs, region{prev, cut, 0, min(cut, p.n)})
			prev = cut
		}
	}
	return regs
}

// scale multiplies region r of C by beta (in the lower triangle only, if
// lower is set); beta = 0 stores zeros whatever C held.
func (p *gemmProblem[T]) scale(r region) {
	if p.beta == 1 {
		return
	}
	ld := p.c.Stride
	for i := r.i0; i < r.i1; i++ {
		j1 := r.j1
		if p.lower {
			j1 = min(j1, i+1)
		}
		if j1 <= r.j0 {
			continue
		}
		row := p.c.Data[i*ld+r.j0 : i*ld+j1]
		if p.beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= p.beta
		}
	}
}

// region computes region r of C with the loop nest ic → pc → jc → ir → jr:
// a packed mc×kc block of A (alpha folded in, kept in L3) is reused by
// every kc×nc panel of B, each panel is packed just before the micro-kernel
// consumes it, and each A sliver stays in L1 while the B slivers of the
// panel stream past it. A is packed once per region; B once per block of A.
//
// With a fused kernel (op(B) = B, not lower, a full first A sliver, a block
// of A that fits a quarter of L2: the M-skinny products, where B is used
// by few rows) only a partial last B sliver is packed first: the full ones
// are packed by the tiles that use them, see macroFused.
func (p *gemmProblem[T]) region(ws *workspace[T], r region) {
	if p.rows != nil {
		p.regionRows(ws, r)
		return
	}
	// Blocks of about equal size rather than full ones and a runt.
	mc := balanced(r.i1-r.i0, p.blk.mc, p.mr)
	nc := balanced(r.j1-r.j0, p.blk.nc, p.nr)
	kc := balanced(p.k, p.blk.kc, 1)
	for ic := r.i0; ic < r.i1; ic += mc {
		mb := min(mc, r.i1-ic)
		j1 := r.j1
		if p.lower {
			j1 = min(j1, ic+mb) // columns right of the block's last row are above the diagonal
		}
		// C's rows of the block are scaled by beta before their first k
		// block, in a pass of their own unless the tiles' kernels do it in
		// that block (macroPrefetchC or macro with a beta kernel: C =
		// beta·C + alpha·A₀B₀, rounded as the pass and the tile would;
		// the later k blocks add to it with beta = 1).
		path := p.path(mb, kc)
		betaFirst := p.rowBeta != nil && !p.lower && (path == pathPrefetchC || path == pathMacro)
		if !betaFirst {
			p.scale(region{ic, ic + mb, r.j0, r.j1})
		}
		for pc := 0; pc < p.k; pc += kc {
			kb := min(kc, p.k-pc)
			betaIn := betaFirst && pc == 0
			p.packAOp(ws.a, ic, mb, pc, kb)
			for jc := r.j0; jc < j1; jc += nc {
				if p.stopped() {
					return
				}
				jn := min(nc, j1-jc)
				switch p.path(mb, kb) {
				case pathFused:
					if full := jn / p.nr * p.nr; full < jn {
						packB(ws.b[full*kb:], p.b, p.tB, pc, kb, jc+full, jn-full, p.nr)
					}
					p.macroFused(ws, ic, mb, jc, jn, pc, kb, j1)
				case pathTransPF:
					packB(ws.b, p.b, p.tB, pc, kb, jc, jn, p.nr)
					p.macroTransPF(ws, ic, mb, jc, jn, kb, p.nextTransBlock(r, jc, jn, nc, pc, kb, kc))
				case pathPrefetchC:
					packB(ws.b, p.b, p.tB, pc, kb, jc, jn, p.nr)
					p.macroPrefetchC(ws, ic, mb, jc, jn, kb, betaIn)
				default:
					packB(ws.b, p.b, p.tB, pc, kb, jc, jn, p.nr)
					p.macro(ws, ic, mb, jc, jn, kb, p.mirror && pc+kb == p.k, betaIn)
				}
			}
		}
	}
}

// The macro-kernel paths of a block of C (see path).
const (
	pathMacro = iota
	pathFused
	pathTransPF
	pathPrefetchC
)

// path returns the macro-kernel that region runs on a block of mb rows of
// C and a k block of depth kb: fused for M-skinny blocks whose packed A
// fits fuseMax, the transposed-B prefetching one for op(B) = Bᵀ, the
// C-prefetching one for a single k block, and the plain one otherwise
// (always for lower).
func (p *gemmProblem[T]) path(mb, kb int) int {
	switch {
	case p.fused != nil && !p.noFused && mb >= p.mr && mb*kb <= p.fuseMax:
		return pathFused
	case p.tB && p.pf != nil && !p.noFused:
		return pathTransPF
	case kb == p.k && p.pf != nil && !p.noFused && !p.lower:
		return pathPrefetchC
	}
	return pathMacro
}

// macro runs the micro-kernel over the packed mb×kb block of A and kb×jn
// panel of B, updating C[ic:ic+mb, jc:jc+jn]. With lower and mirror set
// (the last k block of Gram) it copies each finished tile onto the upper
// triangle while the tile is in L1: the transpose kernel's stores (one
// vector per row of the mirror image) then drain while the next tiles
// compute, where mirroring a whole mc×nc block after the fact read it
// back from L3 (it outgrows L2) with a cache miss per row.
//
// The micro-kernels broadcast elements of A and load vectors of B, so the
// A sliver is the operand that must sit in L1: it is the outer loop here,
// and the B slivers stream past it from L2.
//
// Where the kernel set has a row-of-tiles kernel (pfRow) and the tiles
// need nothing of their own (no beta to fold in; with lower, the tiles
// left of the diagonal, mirrored after the call), the full tiles of a full
// row go to it in one call, without prefetches: the same kernel on the
// same operands in the same order, so bitwise the result of one call per
// tile, with the wrapper's checks and dispatch paid once per row instead
// of once per tile, which pays on the AVX2 cores; prefetching the next A
// sliver or the next panel of B for packB did not (docs/performance.md,
// "One call per row of tiles").
func (p *gemmProblem[T]) macro(ws *workspace[T], ic, mb, jc, jn, kb int, mirror, betaIn bool) {
	mr, nr, ld := p.mr, p.nr, p.c.Stride
	rows := p.pfRow != nil && !p.tileCalls && !betaIn
	for ir := 0; ir < mb; ir += mr {
		mm := min(mr, mb-ir)
		as := ws.a[ir*kb : ir*kb+kb*mr]
		row := ic + ir
		jr0 := 0
		full := jn / nr
		if p.lower {
			// Only the tiles wholly on and below the diagonal (row ≥
			// col+nr-1): those left of the first diagonal tile.
			full = min(full, max(0, row-jc+1)/nr)
		}
		if rows && mm == mr && full > 0 {
			p.pfRow(kb, as, ws.b[:full*kb*nr], p.c.Data[row*ld+jc:], ld, full, full, nil, 0, 0)
			if mirror {
				// The row's tiles are still in L1 or L2: see the per-tile
				// mirror below.
				for col := jc; col < jc+full*nr; col += nr {
					p.transpose(p.c.Data[col*ld+row:], ld, p.c.Data[row*ld+col:], ld, mr, nr)
				}
			}
			jr0 = full * nr
		}
		for jr := jr0; jr < jn; jr += nr {
			nn := min(nr, jn-jr)
			bs := ws.b[jr*kb : jr*kb+kb*nr]
			col := jc + jr
			if p.lower {
				if row+mm-1 < col {
					break // above the diagonal, as is everything to its right
				}
				if row < col+nn-1 {
					p.diagTile(ws, kb, as, bs, row, mm, col, nn, mirror)
					continue
				}
			}
			// The tile kernel's wrapper takes edge tiles (mm < mr or
			// nn < nr) too: masked edge kernels, or a scratch tile. With
			// betaIn (not lower) C is scaled by beta here: in the kernel's
			// epilogue for a full tile, just before the kernel otherwise.
			switch {
			case betaIn && mm == mr && nn == nr:
				p.rowBeta(kb, as, bs, p.c.Data[row*ld+col:], ld, 1, p.beta)
				continue
			case betaIn:
				p.scale(region{row, row + mm, col, col + nn})
			}
			p.tile(kb, mm, nn, as, bs, p.c.Data[row*ld+col:], ld)
			if mirror {
				// The tile is on and below the diagonal (row ≥ col+nn-1) and
				// in L1: C[col+j, row+i] = C[row+i, col+j].
				p.transpose(p.c.Data[col*ld+row:], ld, p.c.Data[row*ld+col:], ld, mm, nn)
			}
		}
	}
}

// macroFused is macro for op(B) = B with a fused kernel, when the full B
// slivers of the panel (rows [pc, pc+kb) of B, columns [jc, jc+jn)) are not
// packed yet; a partial last sliver is. B comes from memory, and each of
// its elements is used by only mb rows, so packing it in a pass of its own
// is bound by the memory latency (a quarter of the time of the M-skinny
// products). Here the B slivers are the outer loop: the first A sliver's
// tile reads its sliver from B and packs it with the fused kernel, and the
// other full A slivers' tiles use the packed copy while each prefetches an
// equal share of the rows of the sliver fuseAhead slivers on (which may be
// in the next panel, up to column jEnd), so the loads from memory are
// spread over the arithmetic and the fused kernel finds its sliver in L2.
func (p *gemmProblem[T]) macroFused(ws *workspace[T], ic, mb, jc, jn, pc, kb, jEnd int) {
	mr, nr, ld, ldb := p.mr, p.nr, p.c.Stride, p.b.Stride
	full := jn / nr * nr
	rowsPer := 0
	if n := mb/mr - 1; n > 0 {
		rowsPer = (kb + n - 1) / n
	}
	a0 := ws.a[:kb*mr]
	for jr := 0; jr < full; jr += nr {
		col := jc + jr
		bs := ws.b[:kb*nr] // used up before the next sliver: one buffer, hot in L1
		p.fused(kb, a0, p.b.Data[pc*ldb+col:], ldb, bs, p.c.Data[ic*ld+col:], ld)
		next := col + fuseAhead*nr
		q := kb // rows of that sliver prefetched so far
		if next+nr <= jEnd {
			q = 0
		}
		for ir := mr; ir < mb; ir += mr {
			mm := min(mr, mb-ir)
			as := ws.a[ir*kb : ir*kb+kb*mr]
			if mm < mr {
				p.tile(kb, mm, nr, as, bs, p.c.Data[(ic+ir)*ld+col:], ld)
				continue
			}
			rows := min(rowsPer, kb-q)
			var pf []T
			if rows > 0 {
				pf = p.b.Data[(pc+q)*ldb+next:]
				q += rows
			}
			p.pf(kb, as, bs, p.c.Data[(ic+ir)*ld+col:], ld, pf, ldb, rows)
		}
	}
	if full == jn {
		return
	}
	col, nn := jc+full, jn-full
	bs := ws.b[full*kb : full*kb+kb*nr]
	for ir := 0; ir < mb; ir += mr {
		p.tile(kb, min(mr, mb-ir), nn, ws.a[ir*kb:ir*kb+kb*mr], bs, p.c.Data[(ic+ir)*ld+col:], ld)
	}
}

// fuseAhead is how many B slivers ahead macroFused prefetches. With 1, the
// rows prefetched by the last tiles of a sliver had not arrived when the
// fused kernel needed them; 3 gained nothing over 2 (docs/performance.md,
// "Deep k blocks of the fused path").
const fuseAhead = 2

// diagTile computes a micro-tile that straddles the diagonal into scratch
// and adds only its lower part (i ≥ j) to C; with mirror set it then
// copies the strict lower part onto the upper triangle.
func (p *gemmProblem[T]) diagTile(ws *workspace[T], kb int, as, bs []T, row, mm, col, nn int, mirror bool) {
	mr, nr, ld := p.mr, p.nr, p.c.Stride
	t := ws.tile[:mr*nr]
	clear(t)
	p.tile(kb, mr, nr, as, bs, t, nr)
	for i := range mm {
		last := min(nn, row+i-col+1) // columns col+j ≤ row+i
		if last <= 0 {
			continue
		}
		ci := p.c.Data[(row+i)*ld+col : (row+i)*ld+col+last]
		for j, v := range t[i*nr : i*nr+last] {
			ci[j] += v
		}
	}
	if !mirror {
		return
	}
	for j := range nn {
		// C[col+j, i] = C[i, col+j] for the rows i > col+j of the tile.
		lo := max(row, col+j+1)
		if lo >= row+mm {
			break // and so for the columns right of it
		}
		d := p.c.Data[(col+j)*ld+lo : (col+j)*ld+row+mm]
		s := p.c.Data[lo*ld+col+j:]
		for i := range d {
			d[i] = s[i*ld]
		}
	}
}

// direct computes a small product with a plain loop, without packing.
func (p *gemmProblem[T]) direct() {
	ars, acs := p.a.Stride, 1
	if p.tA {
		ars, acs = 1, p.a.Stride
	}
	brs, bcs := p.b.Stride, 1
	if p.tB {
		brs, bcs = 1, p.b.Stride
	}
	ld := p.c.Stride
	for i := range p.m {
		n := p.n
		if p.lower {
			n = min(n, i+1)
		}
		for j := range n {
			var s T
			ai, bj := i*ars, j*bcs
			for q := range p.k {
				s += p.a.Data[ai+q*acs] * p.b.Data[q*brs+bj]
			}
			c := &p.c.Data[i*ld+j]
			if p.beta == 0 {
				*c = p.alpha * s
			} else {
				*c = p.alpha*s + p.beta**c
			}
		}
	}
}
