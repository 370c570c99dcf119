package linalg

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/asm"
)

// goPackT makes packTFull pack nothing, so that packB runs its Go loop,
// until the returned function restores it.
func goPackT() (restore func()) {
	saved := packTKernels
	packTKernels = func() *asm.Kernels { return asm.Lookup("generic") }
	return func() { packTKernels = saved }
}

// TestPackTFull checks the slivers packed by the kernel set's PackBTrans32
// and PackBTrans64 of packB's transposing path
// against the Go loop, bitwise, in both element types, with B's last used
// element at the very end of its storage (no read past it) and with a
// partial last sliver, which the Go loop packs.
func TestPackTFull(t *testing.T) {
	testPackTFull[float32](t, "float32", 48)
	testPackTFull[float64](t, "float64", 24)
}

func testPackTFull[T Float](t *testing.T, dtype string, nr int) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, tc := range []struct{ kb, nb, extra int }{
		{1, nr, 0}, {7, nr, 0}, {70, 2 * nr, 0}, {33, 3*nr - 5, 0}, {5, nr - 1, 0}, {16, 2*nr + 1, 4},
	} {
		name := fmt.Sprintf("%s/kb=%d/nb=%d", dtype, tc.kb, tc.nb)
		const p0, j0 = 2, 3
		// B is (j0+nb)×(p0+kb+extra): op(B) = Bᵀ; with extra = 0 the last
		// used element is B's last.
		b := randMatrix[T](rng, j0+tc.nb, p0+tc.kb+tc.extra, 0)
		slivers := (tc.nb + nr - 1) / nr
		got := make([]T, slivers*tc.kb*nr)
		want := make([]T, len(got))
		packB(got, b, true, p0, tc.kb, j0, tc.nb, nr)
		restore := goPackT()
		packB(want, b, true, p0, tc.kb, j0, tc.nb, nr)
		restore()
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: element %d is %v, the Go loop gives %v", name, i, got[i], want[i])
			}
		}
		ks := asm.Active()
		has := ks.HasPackBTrans32()
		if dtype == "float64" {
			has = ks.HasPackBTrans64()
		}
		if n := packTFull(got, b, p0, tc.kb, j0, tc.nb, nr); has && n != tc.nb/nr {
			t.Errorf("%s: kernel packed %d slivers, want %d", name, n, tc.nb/nr)
		}
	}
}

// BenchmarkPackBTrans packs a 2400×10000 float32 B (96 MB, from memory) in
// panels of 512 columns and 240 rows, transposed: the packing of the
// forward pass of a wide layer.
func BenchmarkPackBTrans(b *testing.B) {
	rows, cols, kb, nb, nr := 2400, 10000, 512, 240, 48
	if testing.Short() {
		rows = 240 // 9.6 MB, in L3
	}
	m := New[float32](rows, cols)
	for i := range m.Data {
		m.Data[i] = float32(i % 7)
	}
	dst := make([]float32, kb*nb)
	for _, kind := range []string{"asm", "go"} {
		b.Run("kernel="+kind, func(b *testing.B) {
			if kind == "go" {
				defer goPackT()()
			}
			for b.Loop() {
				for j0 := 0; j0 < rows; j0 += nb {
					for p0 := 0; p0+kb <= cols; p0 += kb {
						packB(dst, m, true, p0, kb, j0, nb, nr)
					}
				}
			}
			b.SetBytes(int64(rows * cols / kb * kb * 4))
		})
	}
}
