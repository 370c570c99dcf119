package asm

import "fmt"

// GemmTilePackB64 is GemmTile64 for a full MR×NR tile whose B sliver is
// read from the unpacked matrix and packed on the way:
//
//	bp[p*NR+j] = b[p*ldb+j]                          for p < kc, j < NR
//	c[i*ldc+j] += Σ_p a[p*MR+i]·bp[p*NR+j]            for i < MR, j < NR
//
// b holds the kc×NR block of a row-major op(B) = B with leading dimension
// ldb ≥ NR; bp receives the packed sliver in the layout of the micro-kernel
// contract (gemm.go), so that further tiles in the same columns can call
// GemmTile64 on it. The sums are formed exactly as GemmTile64 forms them:
// the result is bitwise that of packing bp first and calling GemmTile64.
// The point is speed: when B comes from memory, the kernel overlaps the
// loads of B (and prefetches of the rows ahead) with the arithmetic of the
// first tile instead of packing in a separate pass.
//
// It panics if kc < 0, ldb < NR, ldc < NR, or a, b, bp or c is too short.
func (k *Kernels) GemmTilePackB64(kc int, a, b []float64, ldb int, bp, c []float64, ldc int) {
	mr, nr := k.mr64, k.nr64
	switch {
	case kc < 0 || ldb < nr || ldc < nr:
		panic(fmt.Sprintf("asm: GemmTilePackB64: k=%d ldb=%d ldc=%d with an %d×%d tile", kc, ldb, ldc, mr, nr))
	case len(a) < kc*mr || len(bp) < kc*nr:
		panic(fmt.Sprintf("asm: GemmTilePackB64: packed panels too short for k=%d", kc))
	case kc > 0 && len(b) < (kc-1)*ldb+nr:
		panic(fmt.Sprintf("asm: GemmTilePackB64: b too short for k=%d, ldb=%d", kc, ldb))
	case len(c) < (mr-1)*ldc+nr:
		panic(fmt.Sprintf("asm: GemmTilePackB64: c too short for ldc=%d", ldc))
	}
	if kc == 0 {
		return
	}
	k.gemmPackB64(kc, a, b, ldb, bp, c, ldc)
}

// GemmTilePrefetch64 is GemmTile64 for a full MR×NR tile that also
// prefetches rows runs of NR float64, run q at pf[q*ldpf:], into the
// core's caches while it computes. Prefetches are hints: the result is
// bitwise that of GemmTile64, whatever pf holds. It lets the tiles that
// use a packed B sliver fetch, a little each, the rows of the next sliver
// from memory, so that GemmTilePackB64 then finds them in cache. A set
// without a kernel of its own (FusedPackB64 false) does not prefetch.
//
// It panics if kc < 0, ldc < NR, rows < 0, rows > 0 with ldpf < NR, or a,
// b, c or pf is too short.
func (k *Kernels) GemmTilePrefetch64(kc int, a, b, c []float64, ldc int, pf []float64, ldpf, rows int) {
	mr, nr := k.mr64, k.nr64
	switch {
	case kc < 0 || ldc < nr || rows < 0 || (rows > 0 && ldpf < nr):
		panic(fmt.Sprintf("asm: GemmTilePrefetch64: k=%d ldc=%d rows=%d ldpf=%d with an %d×%d tile", kc, ldc, rows, ldpf, mr, nr))
	case len(a) < kc*mr || len(b) < kc*nr:
		panic(fmt.Sprintf("asm: GemmTilePrefetch64: packed panels too short for k=%d", kc))
	case rows > 0 && len(pf) < (rows-1)*ldpf+nr:
		panic(fmt.Sprintf("asm: GemmTilePrefetch64: pf too short for %d rows, ldpf=%d", rows, ldpf))
	case len(c) < (mr-1)*ldc+nr:
		panic(fmt.Sprintf("asm: GemmTilePrefetch64: c too short for ldc=%d", ldc))
	}
	if kc == 0 {
		return
	}
	if rows == 0 {
		k.gemmTile64(kc, a, b, c, ldc)
		return
	}
	k.gemmPF64(kc, a, b, c, ldc, pf, ldpf, rows)
}

// FusedPackB64 reports whether GemmTilePackB64 has a kernel of its own in
// this set. Without one it packs and then calls the tile kernel, which is
// no faster than packing the whole panel first.
func (k *Kernels) FusedPackB64() bool { return k.fusedPackB64 }

// fillGemmPack gives a kernel set without a fused pack-and-compute kernel
// the Go one, built on the set's own tile kernel.
func fillGemmPack(k *Kernels) {
	if k.gemmPackB64 == nil {
		k.gemmPackB64 = packThenTile64(k)
	} else {
		k.fusedPackB64 = true
	}
	if k.gemmPF64 == nil {
		k.gemmPF64 = tileNoPrefetch64(k)
	}
}
