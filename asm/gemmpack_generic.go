package asm

// packThenTile64 returns the Go twin of the fused kernels for set k: it
// copies the kc rows of the B sliver into bp and calls k's float64 tile
// kernel on it. Lengths are checked by GemmTilePackB64.
func packThenTile64(k *Kernels) func(kc int, a, b []float64, ldb int, bp, c []float64, ldc int) {
	return func(kc int, a, b []float64, ldb int, bp, c []float64, ldc int) {
		nr := k.nr64
		for p := range kc {
			copy(bp[p*nr:p*nr+nr], b[p*ldb:p*ldb+nr])
		}
		k.gemmTile64(kc, a, bp, c, ldc)
	}
}

// tileNoPrefetch64 returns the Go fill of the prefetching tile kernel for
// set k: k's float64 tile kernel, without the prefetches.
func tileNoPrefetch64(k *Kernels) func(kc int, a, b, c []float64, ldc int, pf []float64, ldpf, rows int) {
	return func(kc int, a, b, c []float64, ldc int, _ []float64, _, _ int) {
		k.gemmTile64(kc, a, b, c, ldc)
	}
}
