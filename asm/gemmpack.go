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
	checkPackB("GemmTilePackB64", kc, k.mr64, k.nr64, len(a), len(b), ldb, len(bp), len(c), ldc)
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
	checkPrefetch("GemmTilePrefetch64", kc, k.mr64, k.nr64, len(a), len(b), len(c), ldc, len(pf), ldpf, rows)
	if kc == 0 {
		return
	}
	if rows == 0 {
		k.gemmTile64(kc, a, b, c, ldc)
		return
	}
	k.gemmPF64(kc, a, b, c, ldc, pf, ldpf, rows)
}

// GemmTilePackB32 is GemmTilePackB64 for float32.
func (k *Kernels) GemmTilePackB32(kc int, a, b []float32, ldb int, bp, c []float32, ldc int) {
	checkPackB("GemmTilePackB32", kc, k.mr32, k.nr32, len(a), len(b), ldb, len(bp), len(c), ldc)
	if kc == 0 {
		return
	}
	k.gemmPackB32(kc, a, b, ldb, bp, c, ldc)
}

// GemmTilePrefetch32 is GemmTilePrefetch64 for float32.
func (k *Kernels) GemmTilePrefetch32(kc int, a, b, c []float32, ldc int, pf []float32, ldpf, rows int) {
	checkPrefetch("GemmTilePrefetch32", kc, k.mr32, k.nr32, len(a), len(b), len(c), ldc, len(pf), ldpf, rows)
	if kc == 0 {
		return
	}
	if rows == 0 {
		k.gemmTile32(kc, a, b, c, ldc)
		return
	}
	k.gemmPF32(kc, a, b, c, ldc, pf, ldpf, rows)
}

// FusedPackB64 reports whether GemmTilePackB64 has a kernel of its own in
// this set. Without one it packs and then calls the tile kernel, which is
// no faster than packing the whole panel first.
func (k *Kernels) FusedPackB64() bool { return k.fusedPackB64 }

// FusedPackB32 is FusedPackB64 for GemmTilePackB32.
func (k *Kernels) FusedPackB32() bool { return k.fusedPackB32 }

// fillGemmPack gives a kernel set without fused pack-and-compute or
// prefetching tile kernels the Go ones, built on the set's own tile
// kernels.
func fillGemmPack(k *Kernels) {
	k.fusedPackB32 = k.gemmPackB32 != nil
	k.fusedPackB64 = k.gemmPackB64 != nil
	if k.gemmPackB32 == nil {
		k.gemmPackB32 = packThenTile(k.nr32, k.gemmTile32)
	}
	if k.gemmPackB64 == nil {
		k.gemmPackB64 = packThenTile(k.nr64, k.gemmTile64)
	}
	if k.gemmPF32 == nil {
		k.gemmPF32 = tileNoPrefetch(k.gemmTile32)
	}
	if k.gemmPF64 == nil {
		k.gemmPF64 = tileNoPrefetch(k.gemmTile64)
	}
}

func checkPackB(fn string, kc, mr, nr, la, lb, ldb, lbp, lc, ldc int) {
	switch {
	case kc < 0 || ldb < nr || ldc < nr:
		panic(fmt.Sprintf("asm: %s: k=%d ldb=%d ldc=%d with an %d×%d tile", fn, kc, ldb, ldc, mr, nr))
	case la < kc*mr || lbp < kc*nr:
		panic(fmt.Sprintf("asm: %s: packed panels too short for k=%d", fn, kc))
	case kc > 0 && lb < (kc-1)*ldb+nr:
		panic(fmt.Sprintf("asm: %s: b too short for k=%d, ldb=%d", fn, kc, ldb))
	case lc < (mr-1)*ldc+nr:
		panic(fmt.Sprintf("asm: %s: c too short for ldc=%d", fn, ldc))
	}
}

func checkPrefetch(fn string, kc, mr, nr, la, lb, lc, ldc, lpf, ldpf, rows int) {
	switch {
	case kc < 0 || ldc < nr || rows < 0 || (rows > 0 && ldpf < nr):
		panic(fmt.Sprintf("asm: %s: k=%d ldc=%d rows=%d ldpf=%d with an %d×%d tile", fn, kc, ldc, rows, ldpf, mr, nr))
	case la < kc*mr || lb < kc*nr:
		panic(fmt.Sprintf("asm: %s: packed panels too short for k=%d", fn, kc))
	case rows > 0 && lpf < (rows-1)*ldpf+nr:
		panic(fmt.Sprintf("asm: %s: pf too short for %d rows, ldpf=%d", fn, rows, ldpf))
	case lc < (mr-1)*ldc+nr:
		panic(fmt.Sprintf("asm: %s: c too short for ldc=%d", fn, ldc))
	}
}

// GemmRowPrefetch64 is GemmTilePrefetch64 for a row of n full tiles side
// by side that share the packed A sliver a, each prefetching the C tile
// ahead tiles on: tile t computes
//
//	GemmTilePrefetch64(kc, a, b[t·kc·NR:], c[t·NR:], ldc, q, ldc, rows)
//
// with q = c[(t+ahead)·NR:] and rows = MR while t+ahead < n; after that,
// q = pf[u·NR:] with u = t+ahead−n (tiles of the next row of tiles, of
// which pf holds pfTiles full ones in its first pfRows rows, ldc apart)
// and rows = pfRows while u < pfTiles, and no prefetch (rows = 0) once
// u ≥ pfTiles. The sums are bitwise those of the n calls; the point is
// the cost of a call: with K = 128 a tile is little arithmetic, and the
// checks and dispatch of one GemmTilePrefetch64 call per tile are a
// noticeable share of it (docs/performance.md, "Prefetching C").
//
// It panics if kc < 0, n < 0, ahead < 1, ldc < NR, pfRows < 0,
// pfTiles < 0, or a, b, c or pf (with pfRows and pfTiles > 0) is too
// short.
func (k *Kernels) GemmRowPrefetch64(kc int, a, b, c []float64, ldc, n, ahead int, pf []float64, pfRows, pfTiles int) {
	gemmRowPrefetch("GemmRowPrefetch64", k.mr64, k.nr64, k.gemmTile64, k.gemmPF64, kc, a, b, c, ldc, n, ahead, pf, pfRows, pfTiles)
}

// GemmRowPrefetch32 is GemmRowPrefetch64 for float32.
func (k *Kernels) GemmRowPrefetch32(kc int, a, b, c []float32, ldc, n, ahead int, pf []float32, pfRows, pfTiles int) {
	gemmRowPrefetch("GemmRowPrefetch32", k.mr32, k.nr32, k.gemmTile32, k.gemmPF32, kc, a, b, c, ldc, n, ahead, pf, pfRows, pfTiles)
}

func gemmRowPrefetch[T float32 | float64](fn string, mr, nr int, tile func(k int, a, b, c []T, ldc int),
	pfk func(k int, a, b, c []T, ldc int, pf []T, ldpf, rows int),
	kc int, a, b, c []T, ldc, n, ahead int, pf []T, pfRows, pfTiles int) {
	switch {
	case kc < 0 || n < 0 || ahead < 1 || ldc < nr || pfRows < 0 || pfTiles < 0:
		panic(fmt.Sprintf("asm: %s: k=%d n=%d ahead=%d ldc=%d pfRows=%d pfTiles=%d with an %d×%d tile",
			fn, kc, n, ahead, ldc, pfRows, pfTiles, mr, nr))
	case len(a) < kc*mr || len(b) < n*kc*nr:
		panic(fmt.Sprintf("asm: %s: packed panels too short for k=%d, %d tiles", fn, kc, n))
	case n > 0 && len(c) < (mr-1)*ldc+n*nr:
		panic(fmt.Sprintf("asm: %s: c too short for %d tiles, ldc=%d", fn, n, ldc))
	case pfRows > 0 && pfTiles > 0 && len(pf) < (pfRows-1)*ldc+pfTiles*nr:
		panic(fmt.Sprintf("asm: %s: pf too short for %d rows of %d tiles, ldc=%d", fn, pfRows, pfTiles, ldc))
	}
	if kc == 0 {
		return
	}
	if pfRows == 0 {
		pfTiles = 0
	}
	for t := range n {
		bt, ct := b[t*kc*nr:], c[t*nr:]
		if u := t + ahead; u < n {
			pfk(kc, a, bt, ct, ldc, c[u*nr:], ldc, mr)
		} else if u -= n; u < pfTiles {
			pfk(kc, a, bt, ct, ldc, pf[u*nr:], ldc, pfRows)
		} else {
			tile(kc, a, bt, ct, ldc)
		}
	}
}
