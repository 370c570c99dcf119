package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestGemmRowBeta checks every set's GemmRowBeta against scaling C by beta
// and then calling GemmTile on each tile, bit for bit, for rows of 0 to 3
// tiles, depths around the kernels' unrolling, and betas that round (0.3,
// 0.999), that do not (−1.5) and that meet NaN, infinity and −0 in C; the
// elements of C around the tiles must stay untouched.
func TestGemmRowBeta(t *testing.T) {
	for _, k := range available {
		t.Run("impl="+k.name+"/float32", func(t *testing.T) {
			mr, nr := k.Tile32()
			testRowBeta(t, mr, nr, k.GemmRowBeta32, k.GemmTile32)
		})
		t.Run("impl="+k.name+"/float64", func(t *testing.T) {
			mr, nr := k.Tile64()
			testRowBeta(t, mr, nr, k.GemmRowBeta64, k.GemmTile64)
		})
	}
}

func testRowBeta[T float](t *testing.T, mr, nr int,
	rowBeta func(kc int, a, b, c []T, ldc, n int, beta T),
	tile func(kc, m, n int, a, b, c []T, ldc int)) {
	rng := rand.New(rand.NewPCG(5, uint64(mr*nr)))
	for _, kc := range []int{0, 1, 3, 4, 5, 17} {
		for n := range 4 {
			for _, beta := range []T{0.3, 0.999, -1.5} {
				where := fmt.Sprintf("k=%d n=%d beta=%v", kc, n, beta)
				ldc := max(n, 1)*nr + 3
				a := randSlice[T](rng, kc*mr)
				b := randSlice[T](rng, n*kc*nr)
				c := randSlice[T](rng, (mr+1)*ldc)
				c[0] = T(math.NaN())
				c[ldc+1] = T(math.Inf(-1))
				c[2] = T(math.Copysign(0, -1))
				want := append([]T(nil), c...)
				for i := range mr {
					for j := range n * nr {
						want[i*ldc+j] *= beta
					}
				}
				for tt := range n {
					tile(kc, mr, nr, a, b[tt*kc*nr:], want[tt*nr:], ldc)
				}
				got := append([]T(nil), c...)
				rowBeta(kc, a, b, got, ldc, n, beta)
				if i := firstDiff(got, want); i >= 0 {
					t.Fatalf("%s: C[%d] = %v, want %v (scale, then GemmTile)", where, i, got[i], want[i])
				}
			}
		}
	}
}
