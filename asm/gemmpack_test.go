package asm

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// packCase is one GemmTilePackB64/GemmTilePrefetch64 case: a packed A
// sliver, a kc×NR block of an unpacked B with leading dimension ldb (the
// slice ends right after the block's last element), and C with ldc > NR.
type packCase[T float] struct {
	kc, ldb, ldc int
	a, b, c0     []T
}

func newPackCase[T float](rng *rand.Rand, mr, nr, kc, ldb int) packCase[T] {
	pc := packCase[T]{kc: kc, ldb: ldb, ldc: nr + 3}
	pc.a = make([]T, kc*mr)
	for i := range pc.a {
		pc.a[i] = T(rng.Float64()*2 - 1)
	}
	nb := 0
	if kc > 0 {
		nb = (kc-1)*ldb + nr
	}
	pc.b = make([]T, nb)
	for i := range pc.b {
		pc.b[i] = T(rng.Float64()*2 - 1)
	}
	pc.c0 = make([]T, (mr-1)*pc.ldc+nr)
	for i := range pc.c0 {
		pc.c0[i] = T(rng.Float64()*2 - 1)
	}
	return pc
}

// want returns the packed sliver and C of packing B first and calling the
// tile kernel: the result both fused paths must reproduce bitwise.
func (pc packCase[T]) want(f packFuncs[T]) (bp, c []T) {
	bp = make([]T, pc.kc*f.nr)
	for p := range pc.kc {
		copy(bp[p*f.nr:p*f.nr+f.nr], pc.b[p*pc.ldb:p*pc.ldb+f.nr])
	}
	c = append([]T(nil), pc.c0...)
	f.tile(pc.kc, f.mr, f.nr, pc.a, bp, c, pc.ldc)
	return bp, c
}

// packFuncs are one set's kernels for one element type.
type packFuncs[T float] struct {
	name     string
	mr, nr   int
	tile     func(kc, m, n int, a, b, c []T, ldc int)
	packB    func(kc int, a, b []T, ldb int, bp, c []T, ldc int)
	twin     func(kc int, a, b []T, ldb int, bp, c []T, ldc int)
	prefetch func(kc int, a, b, c []T, ldc int, pf []T, ldpf, rows int)
}

func packFuncs32(k *Kernels) packFuncs[float32] {
	mr, nr := k.Tile32()
	return packFuncs[float32]{k.name + "/float32", mr, nr, k.GemmTile32, k.GemmTilePackB32,
		packThenTile(nr, k.gemmTile32), k.GemmTilePrefetch32}
}

func packFuncs64(k *Kernels) packFuncs[float64] {
	mr, nr := k.Tile64()
	return packFuncs[float64]{k.name + "/float64", mr, nr, k.GemmTile64, k.GemmTilePackB64,
		packThenTile(nr, k.gemmTile64), k.GemmTilePrefetch64}
}

// packLdbs are the leading dimensions of B each case tries: NR itself,
// odd offsets (rows not aligned to anything) and a wide one.
func packLdbs(nr int) []int { return []int{nr, nr + 1, nr + 7, 3*nr + 5, 1000} }

// TestGemmTilePackB checks the fused kernels of every set and their Go
// twins against packing then the tile kernel, bitwise, with canaries
// around the packed sliver and C.
func TestGemmTilePackB(t *testing.T) {
	for _, k := range available {
		testPackB(t, packFuncs32(k))
		testPackB(t, packFuncs64(k))
	}
}

func testPackB[T float](t *testing.T, f packFuncs[T]) {
	mr, nr := f.mr, f.nr
	rng := rand.New(rand.NewPCG(11, uint64(mr*nr)))
	for _, kc := range tileKs(rng, testing.Short()) {
		for _, ldb := range packLdbs(nr) {
			pc := newPackCase[T](rng, mr, nr, kc, ldb)
			wantBP, wantC := pc.want(f)
			for _, impl := range []struct {
				name string
				f    func(kc int, a, b []T, ldb int, bp, c []T, ldc int)
			}{
				{"kernel", f.packB},
				{"twin", f.twin},
			} {
				bp, bpOK := guarded[T](kc*nr, 0)
				c, cOK := guarded[T](len(pc.c0), 1)
				copy(c, pc.c0)
				impl.f(kc, pc.a, pc.b, ldb, bp, c, pc.ldc)
				if i := firstDiff(bp, wantBP); i >= 0 {
					t.Fatalf("%s %s k=%d ldb=%d: packed sliver differs at %d: %v, want %v", f.name, impl.name, kc, ldb, i, bp[i], wantBP[i])
				}
				if i := firstDiff(c, wantC); i >= 0 {
					t.Fatalf("%s %s k=%d ldb=%d: c differs at %d: %v, want %v", f.name, impl.name, kc, ldb, i, c[i], wantC[i])
				}
				if !bpOK() || !cOK() {
					t.Fatalf("%s %s k=%d ldb=%d: wrote outside the packed sliver or C", f.name, impl.name, kc, ldb)
				}
			}
		}
	}
}

// TestGemmTilePrefetch checks that the prefetching tile kernels of every
// set compute bitwise what the tile kernels do, for any number of
// prefetched rows (none, a few, all, more than the steps), and write only C.
func TestGemmTilePrefetch(t *testing.T) {
	for _, k := range available {
		testPrefetch(t, packFuncs32(k))
		testPrefetch(t, packFuncs64(k))
	}
}

func testPrefetch[T float](t *testing.T, f packFuncs[T]) {
	mr, nr := f.mr, f.nr
	rng := rand.New(rand.NewPCG(12, uint64(mr*nr)))
	for _, kc := range tileKs(rng, testing.Short()) {
		pc := newPackCase[T](rng, mr, nr, kc, nr)
		bp, wantC := pc.want(f)
		for _, rows := range []int{0, 1, 5, kc, 2*kc + 3} {
			for _, ldpf := range []int{nr, 1000} {
				pf := make([]T, max(rows-1, 0)*ldpf+nr)
				c, cOK := guarded[T](len(pc.c0), 1)
				copy(c, pc.c0)
				f.prefetch(kc, pc.a, bp, c, pc.ldc, pf, ldpf, rows)
				if i := firstDiff(c, wantC); i >= 0 {
					t.Fatalf("%s k=%d rows=%d ldpf=%d: c differs at %d: %v, want %v", f.name, kc, rows, ldpf, i, c[i], wantC[i])
				}
				if !cOK() {
					t.Fatalf("%s k=%d rows=%d ldpf=%d: wrote outside C", f.name, kc, rows, ldpf)
				}
			}
		}
	}
}

func TestGemmTilePackB64Panics(t *testing.T) {
	k := Active()
	mr, nr := k.Tile64()
	a := make([]float64, 4*mr)
	b := make([]float64, 3*nr+nr)
	bp := make([]float64, 4*nr)
	c := make([]float64, mr*nr)
	for _, tc := range []struct {
		name string
		fn   func()
	}{
		{"negative k", func() { k.GemmTilePackB64(-1, a, b, nr, bp, c, nr) }},
		{"ldb < NR", func() { k.GemmTilePackB64(4, a, b, nr-1, bp, c, nr) }},
		{"ldc < NR", func() { k.GemmTilePackB64(4, a, b, nr, bp, c, nr-1) }},
		{"short a", func() { k.GemmTilePackB64(4, a[:4*mr-1], b, nr, bp, c, nr) }},
		{"short b", func() { k.GemmTilePackB64(4, a, b[:4*nr-1], nr, bp, c, nr) }},
		{"short b for ldb", func() { k.GemmTilePackB64(4, a, b, nr+1, bp, c, nr) }},
		{"short bp", func() { k.GemmTilePackB64(4, a, b, nr, bp[:4*nr-1], c, nr) }},
		{"short c", func() { k.GemmTilePackB64(4, a, b, nr, bp, c[:len(c)-1], nr) }},
		{"prefetch negative rows", func() { k.GemmTilePrefetch64(4, a, bp, c, nr, b, nr, -1) }},
		{"prefetch ldpf < NR", func() { k.GemmTilePrefetch64(4, a, bp, c, nr, b, nr-1, 2) }},
		{"prefetch short pf", func() { k.GemmTilePrefetch64(4, a, bp, c, nr, b, nr, 5) }},
		{"prefetch short b", func() { k.GemmTilePrefetch64(4, a, bp[:4*nr-1], c, nr, b, nr, 1) }},
		{"prefetch short c", func() { k.GemmTilePrefetch64(4, a, bp, c[:len(c)-1], nr, b, nr, 1) }},
		{"float32 ldb < NR", func() {
			m32, n32 := k.Tile32()
			k.GemmTilePackB32(1, make([]float32, m32), make([]float32, n32), n32-1, make([]float32, n32), make([]float32, m32*n32), n32)
		}},
		{"float32 prefetch short pf", func() {
			m32, n32 := k.Tile32()
			k.GemmTilePrefetch32(1, make([]float32, m32), make([]float32, n32), make([]float32, m32*n32), n32, make([]float32, n32), n32, 2)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			tc.fn()
		})
	}
}

// TestFusedPackB checks which sets report fused kernels of their own: the
// generic set never does, the AVX-512 set always.
func TestFusedPackB(t *testing.T) {
	if generic.FusedPackB32() || generic.FusedPackB64() {
		t.Error("generic reports a fused kernel")
	}
	if k := Lookup("avx512"); k != nil && (!k.FusedPackB32() || !k.FusedPackB64()) {
		t.Error("avx512 reports no fused kernel")
	}
	if runtime.GOARCH != "amd64" {
		for _, k := range available {
			if k.FusedPackB32() || k.FusedPackB64() {
				t.Errorf("%s reports a fused kernel on %s", k.name, runtime.GOARCH)
			}
		}
	}
}

// TestFusedPackBAVX2 checks that the AVX2 set, where the CPU runs it, has
// its own fused float32 and float64 kernels (which TestGemmTilePackB and
// TestGemmTilePrefetch then check bitwise).
func TestFusedPackBAVX2(t *testing.T) {
	k := Lookup("avx2")
	if k == nil {
		t.Skip("no avx2 set on this CPU")
	}
	if !k.FusedPackB32() {
		t.Error("avx2 reports no fused float32 kernel")
	}
	if !k.FusedPackB64() {
		t.Error("avx2 reports no fused float64 kernel")
	}
}

// TestGemmRowPrefetch checks GemmRowPrefetch of every set against one
// GemmTile call per tile, bitwise: rows of 0 to 7 tiles, prefetches that
// stay in the row (ahead 1, 2, more than the row) and reach into a next
// row of tiles of none to all of its rows, and writes only to the tiles
// (C wider than the row, canaries around it).
func TestGemmRowPrefetch(t *testing.T) {
	for _, k := range available {
		mr, nr := k.Tile32()
		testRowPrefetch(t, k.name+"/float32", mr, nr, k.GemmTile32, k.GemmRowPrefetch32)
		mr, nr = k.Tile64()
		testRowPrefetch(t, k.name+"/float64", mr, nr, k.GemmTile64, k.GemmRowPrefetch64)
	}
}

func testRowPrefetch[T float](t *testing.T, name string, mr, nr int, tile func(kc, m, n int, a, b, c []T, ldc int),
	row func(kc int, a, b, c []T, ldc, n, ahead int, pf []T, pfRows, pfTiles int)) {
	rng := rand.New(rand.NewPCG(13, uint64(mr*nr)))
	fill := func(n int) []T {
		s := make([]T, n)
		for i := range s {
			s[i] = T(rng.Float64()*2 - 1)
		}
		return s
	}
	for _, kc := range []int{0, 1, 7, 64, 129} {
		for n := range 8 {
			ldc := (n+1)*nr + 5
			a, b, c0 := fill(kc*mr), fill(n*kc*nr), fill(2*mr*ldc)
			want := append([]T(nil), c0...)
			for q := range n {
				tile(kc, mr, nr, a, b[q*kc*nr:], want[q*nr:], ldc)
			}
			for _, ahead := range []int{1, 2, 9} {
				for _, pfRows := range []int{0, 3, mr} {
					c, ok := guarded[T](len(c0), 1)
					copy(c, c0)
					row(kc, a, b, c, ldc, n, ahead, c[mr*ldc:], pfRows, n)
					if i := firstDiff(c, want); i >= 0 {
						t.Fatalf("%s k=%d n=%d ahead=%d pfRows=%d: c differs at %d: %v, want %v", name, kc, n, ahead, pfRows, i, c[i], want[i])
					}
					if !ok() {
						t.Fatalf("%s k=%d n=%d ahead=%d pfRows=%d: wrote outside C", name, kc, n, ahead, pfRows)
					}
				}
			}
		}
	}
}

func TestGemmRowPrefetchPanics(t *testing.T) {
	k := Active()
	mr, nr := k.Tile64()
	a := make([]float64, 4*mr)
	b := make([]float64, 3*4*nr)
	c := make([]float64, (mr-1)*4*nr+3*nr)
	for _, tc := range []struct {
		name string
		fn   func()
	}{
		{"negative k", func() { k.GemmRowPrefetch64(-1, a, b, c, 4*nr, 3, 2, nil, 0, 0) }},
		{"negative n", func() { k.GemmRowPrefetch64(4, a, b, c, 4*nr, -1, 2, nil, 0, 0) }},
		{"ahead 0", func() { k.GemmRowPrefetch64(4, a, b, c, 4*nr, 3, 0, nil, 0, 0) }},
		{"ldc < NR", func() { k.GemmRowPrefetch64(4, a, b, c, nr-1, 3, 2, nil, 0, 0) }},
		{"negative pfRows", func() { k.GemmRowPrefetch64(4, a, b, c, 4*nr, 3, 2, nil, -1, 0) }},
		{"negative pfTiles", func() { k.GemmRowPrefetch64(4, a, b, c, 4*nr, 3, 2, nil, 0, -1) }},
		{"short a", func() { k.GemmRowPrefetch64(4, a[:4*mr-1], b, c, 4*nr, 3, 2, nil, 0, 0) }},
		{"short b", func() { k.GemmRowPrefetch64(4, a, b[:len(b)-1], c, 4*nr, 3, 2, nil, 0, 0) }},
		{"short c", func() { k.GemmRowPrefetch64(4, a, b, c[:len(c)-1], 4*nr, 3, 2, nil, 0, 0) }},
		{"short pf", func() { k.GemmRowPrefetch64(4, a, b, c, 4*nr, 3, 2, c[:2*nr], 2, 1) }},
		{"float32 short c", func() {
			m32, n32 := k.Tile32()
			k.GemmRowPrefetch32(1, make([]float32, m32), make([]float32, 2*n32), make([]float32, m32*n32), n32, 2, 1, nil, 0, 0)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			tc.fn()
		})
	}
}
