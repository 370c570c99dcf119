package asm

// packThenTile returns the Go twin of the fused kernels for a set whose
// tile kernel is tile with NR = nr: it copies the kc rows of the B sliver
// into bp and calls tile on it. Lengths are checked by the exported
// wrappers.
func packThenTile[T float32 | float64](nr int, tile func(k int, a, b, c []T, ldc int)) func(kc int, a, b []T, ldb int, bp, c []T, ldc int) {
	return func(kc int, a, b []T, ldb int, bp, c []T, ldc int) {
		for p := range kc {
			copy(bp[p*nr:p*nr+nr], b[p*ldb:p*ldb+nr])
		}
		tile(kc, a, bp, c, ldc)
	}
}

// tileNoPrefetch returns the Go fill of the prefetching tile kernel for a
// set whose tile kernel is tile: tile itself, without the prefetches.
func tileNoPrefetch[T float32 | float64](tile func(k int, a, b, c []T, ldc int)) func(kc int, a, b, c []T, ldc int, pf []T, ldpf, rows int) {
	return func(kc int, a, b, c []T, ldc int, _ []T, _, _ int) {
		tile(kc, a, b, c, ldc)
	}
}
