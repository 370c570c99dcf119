package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestPackB checks packB, both transpositions, against the layout of the
// micro-kernel contract written out directly: dst[s*kb*nr + p*nr + j] =
// op(B)[p0+p, j0+s*nr+j], zero past the panel's last column. The panel
// heights cross the four-row groups of packBRows and the widths the
// sliver edges; B has padding (NaN) past its columns, which must not leak.
func TestPackB(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const p0, j0 = 3, 5
	for _, nr := range []int{4, 8, 24, 48} {
		for _, trans := range []bool{false, true} {
			for _, kb := range []int{1, 3, 4, 5, 8, 9, 70} {
				for _, nb := range []int{1, nr - 1, nr, nr + 1, 3*nr - 2, 3 * nr} {
					if nb < 1 {
						continue
					}
					name := fmt.Sprintf("nr=%d/trans=%v/kb=%d/nb=%d", nr, trans, kb, nb)
					rows, cols := opShape(trans, p0+kb+2, j0+nb+3)
					b := randMatrix[float32](rng, rows, cols, 2)
					at := func(p, j int) float32 {
						if trans {
							return b.At(j, p)
						}
						return b.At(p, j)
					}
					slivers := (nb + nr - 1) / nr
					dst := make([]float32, slivers*kb*nr+1)
					for i := range dst {
						dst[i] = float32(math.NaN())
					}
					packB(dst, b, trans, p0, kb, j0, nb, nr)
					for s := range slivers {
						for p := range kb {
							for j := range nr {
								want := float32(0)
								if s*nr+j < nb {
									want = at(p0+p, j0+s*nr+j)
								}
								if got := dst[s*kb*nr+p*nr+j]; got != want {
									t.Fatalf("%s: sliver %d, p=%d, j=%d: got %v, want %v", name, s, p, j, got, want)
								}
							}
						}
					}
					if last := dst[len(dst)-1]; !math.IsNaN(float64(last)) {
						t.Fatalf("%s: wrote past the panel", name)
					}
				}
			}
		}
	}
}
