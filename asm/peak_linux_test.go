//go:build linux

package asm

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// threadSeconds is the CPU time of the calling OS thread: unlike wall time
// it does not count the time other processes of a busy machine hold the
// core.
func threadSeconds() float64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return float64(ts.Sec) + float64(ts.Nsec)*1e-9
}

// BenchmarkGemmTileVsPeak reports each micro-kernel's speed as a fraction
// of the FMA peak of its set, measured in short alternating intervals of
// thread CPU time so that clock changes and other load cancel out: the
// median of 31 kernel/peak ratios is the "%peak" metric. The panels are
// those of BenchmarkGemmTile (8 A and 4 B panels of depth k, in L1/L2).
func BenchmarkGemmTileVsPeak(b *testing.B) {
	for _, kc := range []int{128, 256, 384} {
		for _, k := range available {
			benchVsPeak(b, k.name, "float32", kc, tiles32(k), k.PeakFMA32)
			benchVsPeak(b, k.name, "float64", kc, tiles64(k), k.PeakFMA64)
		}
	}
}

// lastingMs returns an n for which fn(n) takes at least a millisecond of
// thread CPU time.
func lastingMs(fn func(n int)) int {
	for n := 1; ; n *= 2 {
		t0 := threadSeconds()
		fn(n)
		if threadSeconds()-t0 >= 1e-3 {
			return n
		}
	}
}

// BenchmarkGemmStreamVsPeak is BenchmarkGemmTileVsPeak with the loop order
// and sizes of linalg's macro-kernel: one A panel stays in L1 while the B
// panels of a kc×nc block of about 512 KiB (a quarter of L2) stream past
// it, into a C block of the same width whose rows are 10000 elements apart
// (the 128×10000 Gram blocks of the paper's MNIST runs).
func BenchmarkGemmStreamVsPeak(b *testing.B) {
	for _, kc := range []int{144, 256} {
		for _, k := range available {
			f32, f64 := tiles32(k), tiles64(k)
			benchStreamVsPeak(b, k.name, "float32", kc, f32, k.PeakFMA32)
			benchStreamVsPeak(b, k.name, "float64", kc, f64, k.PeakFMA64)
		}
	}
}

func benchStreamVsPeak[T float](b *testing.B, name, dtype string, kc int, f tileFuncs[T], peak func(int) int) {
	const ma = 16
	nb := max(1, (512<<10)/(kc*f.nr*int(sizeOf[T]())))
	ratioVsPeak(b, fmt.Sprintf("impl=%s/dtype=%s/m=%d,n=%d,k=%d,nc=%d", name, dtype, f.mr, f.nr, kc, nb*f.nr),
		ma, nb, kc, f, peak, true)
}

func benchVsPeak[T float](b *testing.B, name, dtype string, kc int, f tileFuncs[T], peak func(int) int) {
	ratioVsPeak(b, fmt.Sprintf("impl=%s/dtype=%s/m=%d,n=%d,k=%d", name, dtype, f.mr, f.nr, kc),
		8, 4, kc, f, peak, false)
}

// ratioVsPeak measures sweeps of the kernel over ma A panels and nb B
// panels against the peak loop; aOuter puts the A panels in the outer loop
// (B streams), otherwise the B panels are (A streams).
func ratioVsPeak[T float](b *testing.B, bname string, ma, nb, kc int, f tileFuncs[T], peak func(int) int, aOuter bool) {
	const pairs = 31
	a := make([]T, ma*kc*f.mr)
	bp := make([]T, nb*kc*f.nr)
	for i := range a {
		a[i] = T(i%7) / 8
	}
	for i := range bp {
		bp[i] = T(i%5) / 4
	}
	ldc := nb * f.nr
	if aOuter {
		ldc = max(ldc, 10000) // C rows on different pages, as in a wide GEMM
	}
	c := make([]T, ma*f.mr*ldc)
	one := func(i, j int) {
		f.raw(kc, a[i*kc*f.mr:(i+1)*kc*f.mr], bp[j*kc*f.nr:(j+1)*kc*f.nr], c[i*f.mr*ldc+j*f.nr:], ldc)
	}
	sweep := func() float64 {
		if aOuter {
			for i := range ma {
				for j := range nb {
					one(i, j)
				}
			}
		} else {
			for j := range nb {
				for i := range ma {
					one(i, j)
				}
			}
		}
		return 2 * float64(ma*nb*f.mr*f.nr*kc)
	}
	b.Run(bname, func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		// Size both intervals to about a millisecond.
		reps := lastingMs(func(n int) {
			for range n {
				sweep()
			}
		})
		iters := lastingMs(func(n int) { peak(n) })
		var ratios, gflops []float64
		for b.Loop() {
			ratios, gflops = ratios[:0], gflops[:0]
			for range pairs {
				t0 := threadSeconds()
				flops := 0.0
				for range reps {
					flops += sweep()
				}
				t1 := threadSeconds()
				pf := float64(peak(iters))
				t2 := threadSeconds()
				g := flops / (t1 - t0)
				ratios = append(ratios, g/(pf/(t2-t1)))
				gflops = append(gflops, g/1e9)
			}
		}
		slices.Sort(ratios)
		slices.Sort(gflops)
		b.ReportMetric(100*ratios[pairs/2], "%peak")
		b.ReportMetric(gflops[pairs/2], "GFLOP/s")
	})
}
