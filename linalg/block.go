package linalg

import "github.com/klauspost/cpuid/v2"

// blocking holds the Goto/BLIS cache-block sizes of one GEMM: op(B) is
// packed kc×nc at a time, op(A) mc×kc at a time. mc is a multiple of the
// micro-tile height MR and nc of its width NR.
type blocking struct {
	mc, kc, nc int
}

// Cache sizes assumed when cpuid cannot tell (-1 or 0): a common
// desktop/server core.
const (
	fallbackL1 = 32 << 10
	fallbackL2 = 256 << 10
	fallbackL3 = 8 << 20
)

// cacheSizes returns the per-core L1d and L2 and the L3 sizes in bytes,
// falling back to typical values for any that cpuid does not report.
func cacheSizes() (l1, l2, l3 int) {
	c := &cpuid.CPU.Cache
	l1, l2, l3 = c.L1D, c.L2, c.L3
	if l1 <= 0 {
		l1 = fallbackL1
	}
	if l2 <= 0 {
		l2 = fallbackL2
	}
	if l3 <= 0 {
		l3 = max(fallbackL3, l2)
	}
	return l1, l2, l3
}

// blockSizes derives the block sizes for an MR×NR micro-kernel on elements of
// size bytes from the cache sizes. The micro-kernels broadcast A and load
// vectors of B, so the loops keep an A sliver in L1 and stream B slivers
// past it from L2 (BLIS's arrangement with the roles of A and B swapped):
//
//   - kc: for tiles of less than deepTile bytes, an A and a B sliver fill
//     about 3/4 of L1. Larger tiles (the AVX-512 ones, 1.5 KiB: 24 cache
//     lines of C per tile call against 24 FMAs per k step) take deeper
//     blocks: the MR×kc sliver of A fills half of L1, up to kcMax, and
//     the B slivers stream from L2 (the kernels prefetch them a few rows
//     ahead). Every tile call ends by adding its sums to C, whose rows are
//     in memory for large products: C is read and written once per k
//     block, and with large tiles that weighs enough for deep blocks to pay.
//   - nc: the packed kc×nc panel of B fills about a quarter of L2, where
//     every sliver of A passes it;
//   - mc: the packed mc×kc block of A fills up to a quarter of L3 (capped at
//     4096 rows: an L3 is shared with the other cores and programs). B is
//     packed once per block of A, so large blocks pack B fewer times; the
//     A slivers are read from L3 only once per panel of B.
//
// The deep blocks pay for the AVX-512 tiles but not for the AVX2 ones,
// which keep the L1 rule; on an AVX2-only core no other kc, nc, mc or the
// BLIS loop order did better than this rule (docs/performance.md, "Block
// sizes").
func blockSizes(mr, nr, size int) blocking {
	l1, l2, l3 := cacheSizes()
	var kc int
	if mr*nr*size >= deepTile {
		kc = (l1 / 2) / (mr * size)
		kc = clampRound(kc, 8, 64, kcMax)
	} else {
		kc = (l1 * 3 / 4) / ((mr + nr) * size)
		kc = clampRound(kc, 8, 64, 1024)
	}
	nc := (l2 / 4) / (kc * size)
	nc = clampRound(nc, nr, 4*nr, 8192)
	mc := (l3 / 4) / (kc * size)
	mc = clampRound(mc, mr, 4*mr, 4096)
	return blocking{mc: mc, kc: kc, nc: nc}
}

const (
	// deepTile is the size in bytes of the smallest micro-tile of C that
	// takes deep k blocks (see blockSizes).
	deepTile = 1 << 10
	// kcMax caps the depth of deep k blocks: deeper ones were slower
	// (docs/performance.md, "Block sizes").
	kcMax = 512
)

// clampRound rounds v down to a multiple of q and clamps it to [lo, hi],
// where lo is rounded up and hi down to multiples of q.
func clampRound(v, q, lo, hi int) int {
	lo = (lo + q - 1) / q * q
	hi = max(hi/q*q, lo)
	v = v / q * q
	return min(max(v, lo), hi)
}
