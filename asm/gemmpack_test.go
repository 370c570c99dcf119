package asm

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// packCase is one GemmTilePackB64/GemmTilePrefetch64 case: a packed A
// sliver, a kc×NR block of an unpacked B with leading dimension ldb (the
// slice ends right after the block's last element), and C with ldc > NR.
type packCase struct {
	kc, ldb, ldc int
	a, b, c0     []float64
}

func newPackCase(rng *rand.Rand, mr, nr, kc, ldb int) packCase {
	pc := packCase{kc: kc, ldb: ldb, ldc: nr + 3}
	pc.a = make([]float64, kc*mr)
	for i := range pc.a {
		pc.a[i] = rng.Float64()*2 - 1
	}
	nb := 0
	if kc > 0 {
		nb = (kc-1)*ldb + nr
	}
	pc.b = make([]float64, nb)
	for i := range pc.b {
		pc.b[i] = rng.Float64()*2 - 1
	}
	pc.c0 = make([]float64, (mr-1)*pc.ldc+nr)
	for i := range pc.c0 {
		pc.c0[i] = rng.Float64()*2 - 1
	}
	return pc
}

// want returns the packed sliver and C of packing B first and calling
// GemmTile64: the result both fused paths must reproduce bitwise.
func (pc packCase) want(k *Kernels) (bp, c []float64) {
	mr, nr := k.Tile64()
	bp = make([]float64, pc.kc*nr)
	for p := range pc.kc {
		copy(bp[p*nr:p*nr+nr], pc.b[p*pc.ldb:p*pc.ldb+nr])
	}
	c = append([]float64(nil), pc.c0...)
	k.GemmTile64(pc.kc, mr, nr, pc.a, bp, c, pc.ldc)
	return bp, c
}

// packLdbs are the leading dimensions of B each case tries: NR itself,
// odd offsets (rows not aligned to anything) and a wide one.
func packLdbs(nr int) []int { return []int{nr, nr + 1, nr + 7, 3*nr + 5, 1000} }

// TestGemmTilePackB64 checks the fused kernel of every set and its Go twin
// against packing then GemmTile64, bitwise, with canaries around the packed
// sliver and C.
func TestGemmTilePackB64(t *testing.T) {
	for _, k := range available {
		mr, nr := k.Tile64()
		rng := rand.New(rand.NewPCG(11, uint64(mr*nr)))
		twin := packThenTile64(k)
		for _, kc := range tileKs(rng, testing.Short()) {
			for _, ldb := range packLdbs(nr) {
				pc := newPackCase(rng, mr, nr, kc, ldb)
				wantBP, wantC := pc.want(k)
				for _, impl := range []struct {
					name string
					f    func(kc int, a, b []float64, ldb int, bp, c []float64, ldc int)
				}{
					{"kernel", k.GemmTilePackB64},
					{"twin", twin},
				} {
					bp, bpOK := guarded[float64](kc*nr, 0)
					c, cOK := guarded[float64](len(pc.c0), 1)
					copy(c, pc.c0)
					impl.f(kc, pc.a, pc.b, ldb, bp, c, pc.ldc)
					if i := firstDiff(bp, wantBP); i >= 0 {
						t.Fatalf("%s %s k=%d ldb=%d: packed sliver differs at %d: %v, want %v", k.name, impl.name, kc, ldb, i, bp[i], wantBP[i])
					}
					if i := firstDiff(c, wantC); i >= 0 {
						t.Fatalf("%s %s k=%d ldb=%d: c differs at %d: %v, want %v", k.name, impl.name, kc, ldb, i, c[i], wantC[i])
					}
					if !bpOK() || !cOK() {
						t.Fatalf("%s %s k=%d ldb=%d: wrote outside the packed sliver or C", k.name, impl.name, kc, ldb)
					}
				}
			}
		}
	}
}

// TestGemmTilePrefetch64 checks that the prefetching tile kernel of every
// set computes bitwise what GemmTile64 does, for any number of prefetched
// rows (none, a few, all, more than the steps), and writes only C.
func TestGemmTilePrefetch64(t *testing.T) {
	for _, k := range available {
		mr, nr := k.Tile64()
		rng := rand.New(rand.NewPCG(12, uint64(mr*nr)))
		for _, kc := range tileKs(rng, testing.Short()) {
			pc := newPackCase(rng, mr, nr, kc, nr)
			bp, wantC := pc.want(k)
			for _, rows := range []int{0, 1, 5, kc, 2*kc + 3} {
				for _, ldpf := range []int{nr, 1000} {
					pf := make([]float64, max(rows-1, 0)*ldpf+nr)
					c, cOK := guarded[float64](len(pc.c0), 1)
					copy(c, pc.c0)
					k.GemmTilePrefetch64(kc, pc.a, bp, c, pc.ldc, pf[:max(rows-1, 0)*ldpf+nr], ldpf, rows)
					if i := firstDiff(c, wantC); i >= 0 {
						t.Fatalf("%s k=%d rows=%d ldpf=%d: c differs at %d: %v, want %v", k.name, kc, rows, ldpf, i, c[i], wantC[i])
					}
					if !cOK() {
						t.Fatalf("%s k=%d rows=%d ldpf=%d: wrote outside C", k.name, kc, rows, ldpf)
					}
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

// TestFusedPackB64 checks which sets report a fused kernel of their own:
// the generic set never does, the AVX-512 set always.
func TestFusedPackB64(t *testing.T) {
	if generic.FusedPackB64() {
		t.Error("generic reports a fused kernel")
	}
	if k := Lookup("avx512"); k != nil && !k.FusedPackB64() {
		t.Error("avx512 reports no fused kernel")
	}
	if runtime.GOARCH != "amd64" {
		for _, k := range available {
			if k.FusedPackB64() {
				t.Errorf("%s reports a fused kernel on %s", k.name, runtime.GOARCH)
			}
		}
	}
}
