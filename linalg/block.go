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
// Measured on the 2-core Sapphire Rapids VM of the README (1 thread, 21 Nov
// 2026; old and new binaries of "ntksvm bench gemm" alternated, medians of
// 3 rounds): the deep AVX-512 blocks (kc 384 float64, 512 float32, against
// 144 and 160) took float64 512³ from 54.8 to 61.6 GFLOP/s and 4096³ from
// 56.5 to 60.8, float32 512³ from 114.2 to 124.9 and 2048³ from 118.4 to
// 132.4 (1024³ and float64 2048³ within the noise, −4 %); the same rule for
// the AVX2 tiles (kc 512 against 416 and 288) was 4–8 % slower on
// 1024³ and 2048³, so they keep the L1 rule.
//
// On a 2-core AMD EPYC Zen 3 KVM guest (L1d 32 KiB, L2 512 KiB, L3 32 MiB;
// AVX2 tiles, so float64 kc 192, nc 84 and float32 kc 272, nc 112, mc up
// to 4096 rows; 1 thread, 28 Nov 2026, thread CPU time, configurations
// alternated run by run on a host shared with other jobs, medians of the
// ratios to the rule's blocks over 15–25 rounds, where a repeat of the
// rule's own blocks gave 0.97–1.00): float64 1536³ with nc 168, kc 256 and
// nc 120, kc 384 gave 0.98 each; float32 2048³ with nc 224 0.99, kc 384
// and nc 160 0.98, kc 512 and nc 128 1.01, mc 1020 1.01; the BLIS order
// (a B sliver in L1 against the A slivers of an L2-sized part of the
// block, B panels across the whole row) 1.00–1.03. None is outside the
// noise, so these cores keep the rule; see macro for what did pay there.
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
	// kcMax caps the depth of deep k blocks: float32 768 measured slower
	// than 512 on the machine of blockSizes.
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
