//go:build (amd64 || arm64) && (linux || darwin)

package asm

import (
	"fmt"
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// The NEON GEMM kernels load the panels of step p+1 while step p computes;
// these tests put every operand flush against an unmapped page, so that a
// load past the end of a panel, of C or of a ReLU input faults instead of
// reading a neighbour's memory unnoticed. They run every available set
// (the canary tests elsewhere catch stray writes, not stray reads).

// atPageEnd returns n elements of T whose last element ends exactly where a
// PROT_NONE page begins. The mapping is released when the test ends.
func atPageEnd[T float](t *testing.T, n int) []T {
	t.Helper()
	page := os.Getpagesize()
	size := int(sizeOf[T]())
	data := (n*size + page - 1) / page * page
	mem, err := syscall.Mmap(-1, 0, data+page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[data:], syscall.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&mem[data-n*size])), n)
}

func TestGemmTileAtPageEnd(t *testing.T) {
	for _, k := range available {
		t.Run("impl="+k.name+"/float32", func(t *testing.T) { testTileAtPageEnd(t, k.name, tiles32(k)) })
		t.Run("impl="+k.name+"/float64", func(t *testing.T) { testTileAtPageEnd(t, k.name, tiles64(k)) })
	}
}

func testTileAtPageEnd[T float](t *testing.T, name string, f tileFuncs[T]) {
	rng := rand.New(rand.NewPCG(11, uint64(f.mr*f.nr)))
	for _, k := range []int{0, 1, 2, 3, 4, 7, 40} {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
			a := atPageEnd[T](t, k*f.mr)
			b := atPageEnd[T](t, k*f.nr)
			c := atPageEnd[T](t, f.mr*f.nr)
			for i := range a {
				a[i] = T(2*rng.Float64() - 1)
			}
			for i := range b {
				b[i] = T(2*rng.Float64() - 1)
			}
			for i := range c {
				c[i] = T(2*rng.Float64() - 1)
			}
			c0 := append([]T(nil), c...)
			f.raw(k, a, b, c, f.nr)
			if msg := tileCheck(f.mr, f.nr, f.mr, f.nr, k, a, b, c0, c, f.nr); msg != "" {
				t.Fatal(msg)
			}
			if name == "generic" {
				return
			}
			want := append([]T(nil), c0...)
			tileFMA(f.mr, f.nr, f.mr, f.nr, k, a, b, want, f.nr)
			if i := firstDiff(c, want); i >= 0 {
				t.Fatalf("C[%d] = %v, FMA contract gives %v", i, c[i], want[i])
			}
		})
	}
}

func TestReLUAtPageEnd(t *testing.T) {
	for _, k := range available {
		t.Run("impl="+k.name+"/float32", func(t *testing.T) { testReLUAtPageEnd(t, k.ReLU32, k.ReLUGrad32) })
		t.Run("impl="+k.name+"/float64", func(t *testing.T) { testReLUAtPageEnd(t, k.ReLU64, k.ReLUGrad64) })
	}
}

func testReLUAtPageEnd[T float](t *testing.T, relu func(dst, x []T), grad func(dst, g, x []T)) {
	rng := rand.New(rand.NewPCG(12, 13))
	for _, n := range []int{1, 7, 8, 15, 16, 17, 31, 32, 33, 64, 100} {
		x := atPageEnd[T](t, n)
		g := atPageEnd[T](t, n)
		dst := atPageEnd[T](t, n)
		randomWithSpecials(rng, x)
		randomWithSpecials(rng, g)
		relu(dst, x)
		if i := reluBad(dst, x); i >= 0 {
			t.Fatalf("n=%d: ReLU(%#x) = %#x", n, bitsOf(x[i]), bitsOf(dst[i]))
		}
		grad(dst, g, x)
		for i := range dst {
			if bitsOf(dst[i]) != bitsOf(gradWant(g[i], x[i])) {
				t.Fatalf("n=%d: grad(g=%#x, x=%#x) = %#x", n, bitsOf(g[i]), bitsOf(x[i]), bitsOf(dst[i]))
			}
		}
	}
}
