package bench

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ntksvm/ntksvm/asm"
	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
)

// maxMicroK bounds --k: the packed panels (1.3 MiB at k = 1024 with
// the AVX-512 float64 tile) should stay in L2.
const maxMicroK = 1024

// microRunTime is the wall time one timed run of the micro benchmark aims
// at; a variable so that tests can shorten it.
var microRunTime = 40 * time.Millisecond

// microSlices is the number of alternating peak and kernel slices in a run.
const microSlices = 8

// Micro is "ntksvm bench micro": the GEMM micro-kernel's GFLOP/s over
// packed panels in cache, per kernel set, against the FMA peak of the same
// set measured in the same runs.
type Micro struct {
	Common
	K int // depth of the packed panels (the GEMM kc)
}

// Flags registers --k and the common flags.
func (b *Micro) Flags(fs *flag.FlagSet) {
	fs.IntVar(&b.K, "k", 256, "depth of the packed panels (the GEMM kc)")
	b.addFlags(fs)
}

// Usage is the synopsis of the flags.
func (b *Micro) Usage() string { return "[--k K] [--threads T] [--runs R] [--json]" }

// Run measures every kernel set and dtype on 1 and --threads threads.
func (b *Micro) Run(ctx context.Context, env Env) error {
	if err := b.check(); err != nil {
		return err
	}
	if b.K < 1 || b.K > maxMicroK {
		return usage("--k %d: want 1…%d", b.K, maxMicroK)
	}
	var rows []GflopsRow
	for _, threads := range threadCounts(b.Threads) {
		for _, ks := range asm.Available() {
			for _, dtype := range []string{"float32", "float64"} {
				row, err := microOne(ctx, ks, dtype, b.K, threads, b.Runs)
				if err != nil {
					return err
				}
				if b.JSON {
					if err := output.WriteJSONLine(env.Stdout, row); err != nil {
						return err
					}
				}
				rows = append(rows, row)
			}
		}
	}
	if b.JSON {
		return nil
	}
	w := env.Stdout
	fmt.Fprintf(w, "micro: GEMM micro-kernel over packed panels in cache (k=%d), median of %d runs;\n"+
		"peak = FMA loop of the same set, alternating with the kernel within each run; %% = median of the per-run ratios\n", b.K, b.Runs)
	printCPU(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dtype\timpl\tthreads\ttile\tGFLOP/s\tpeak GFLOP/s\t% of peak\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d×%d\t%.1f\t%.1f\t%.0f%%\t\n", r.Dtype, r.Impl, r.Threads, r.M, r.N, r.GFlops, r.PeakGFlops, r.Pct)
	}
	return tw.Flush()
}

// microPanels is the working set of one thread: microA packed A panels and
// microB packed B panels of depth k, applied all against all as the inner
// loops of a blocked GEMM do, into a C block of microA·MR × microB·NR.
const microA, microB = 8, 4

// sweep is one pass of the micro benchmark over a thread's panels; it
// returns the flops done.
type sweep func() float64

// microSweep builds one thread's panels for an mr×nr tile kernel and its
// sweep.
func microSweep[T float32 | float64](tile func(kc, m, n int, a, b, c []T, ldc int), mr, nr, kc int) sweep {
	a := make([]T, microA*kc*mr)
	b := make([]T, microB*kc*nr)
	for i := range a {
		a[i] = T(i%7) * 0.125
	}
	for i := range b {
		b[i] = T(i%5) * 0.25
	}
	ldc := microB * nr
	c := make([]T, microA*mr*ldc)
	flops := 2 * float64(microA*microB*mr*nr*kc)
	return func() float64 {
		for j := range microB {
			bj := b[j*kc*nr : (j+1)*kc*nr]
			for i := range microA {
				tile(kc, mr, nr, a[i*kc*mr:(i+1)*kc*mr], bj, c[i*mr*ldc+j*nr:], ldc)
			}
		}
		return flops
	}
}

// microOne measures one kernel set and dtype: in each run, the FMA peak
// and then the micro-kernel, each on threads locked goroutines with their
// own data; the medians give the row.
func microOne(ctx context.Context, ks *asm.Kernels, dtype string, kc, threads, runs int) (GflopsRow, error) {
	peak := ks.PeakFMA32
	mr, nr := ks.Tile32()
	if dtype == "float64" {
		peak = ks.PeakFMA64
		mr, nr = ks.Tile64()
	}
	sweeps := make([]sweep, threads)
	for t := range sweeps {
		if dtype == "float64" {
			sweeps[t] = microSweep(ks.GemmTile64, mr, nr, kc)
		} else {
			sweeps[t] = microSweep(ks.GemmTile32, mr, nr, kc)
		}
	}
	// Calibrate the repetitions so that one slice takes about
	// microRunTime/microSlices.
	reps := calibrate(func(n int) {
		for range n {
			sweeps[0]()
		}
	})
	peakIters := calibrate(func(n int) { peak(n) })

	var kern, top, ratio []float64
	for r := -1; r < runs; r++ { // run -1 is the warm-up
		if err := ctx.Err(); err != nil {
			return GflopsRow{}, err
		}
		// A run alternates short slices of peak loop and kernel, so that
		// both see the same clock speed and the same share of a busy
		// machine.
		var pf, pt, kf, kt float64
		for range microSlices {
			f, s := onThreads(threads, func(int) float64 { return float64(peak(peakIters)) })
			pf, pt = pf+f, pt+s
			f, s = onThreads(threads, func(t int) float64 {
				f := 0.0
				for range reps {
					f += sweeps[t]()
				}
				return f
			})
			kf, kt = kf+f, kt+s
		}
		if r >= 0 {
			top = append(top, pf/pt/1e9)
			kern = append(kern, kf/kt/1e9)
			ratio = append(ratio, (kf/kt)/(pf/pt))
		}
	}
	// pct is the median of the per-run ratios.
	return GflopsRow{"micro", dtype, ks.Name(), threads, mr, kc, nr, median(kern), median(top), 100 * median(ratio), 0}, nil
}

// calibrate returns how many repetitions of fn take about one slice,
// microRunTime/microSlices.
func calibrate(fn func(n int)) int {
	n := 1
	for {
		t0 := time.Now()
		fn(n)
		d := time.Since(t0)
		slice := microRunTime / microSlices
		if d >= slice/4 || n >= 1<<30 {
			return max(1, int(float64(n)*float64(slice)/float64(max(d, 1))))
		}
		n *= 4
	}
}

// onThreads runs fn(t) for t < threads on goroutines locked to OS threads,
// started together, and returns the summed flops and the wall time.
func onThreads(threads int, fn func(t int) float64) (flops, seconds float64) {
	var wg, ready sync.WaitGroup
	start := make(chan struct{})
	res := make([]float64, threads)
	ready.Add(threads)
	for t := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ready.Done()
			<-start
			res[t] = fn(t)
		}()
	}
	ready.Wait()
	t0 := time.Now()
	close(start)
	wg.Wait()
	seconds = time.Since(t0).Seconds()
	for _, f := range res {
		flops += f
	}
	return flops, seconds
}
