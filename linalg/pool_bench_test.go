package linalg

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// BenchmarkPoolProducts times 2-thread square products of 64³ to 512³ one
// by one and reports the distribution of single-product times (median, p95
// and max in µs, and max/median) rather than the mean, with what the
// worker pool did: per call, the shares the caller ran itself, how often
// it had to wait for a share another thread had started, how often it
// parked, how often a worker parked, and how many shares a helper had
// started that the caller computed again (redos) and committed first
// (takeovers), and how often a worker that did not help stopped spinning
// (shy-parks). The same products on one thread (threads=1; 64³ always runs
// on one) are the control: they show how much of a tail is the machine's
// own. Run it with a fixed count, for instance 200 products each:
//
//	go test -run '^$' -bench PoolProducts -benchtime 200x ./linalg
//
// testdata/poolbench/run.sh runs it with and without a second process
// keeping one core busy, against an older revision in alternated rounds.
func BenchmarkPoolProducts(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{64, 128, 256, 512} {
		benchPoolProduct[float32](b, rng, "float32", 2, n)
		benchPoolProduct[float64](b, rng, "float64", 2, n)
	}
	for _, n := range []int{128, 256, 512} {
		benchPoolProduct[float32](b, rng, "float32", 1, n)
		benchPoolProduct[float64](b, rng, "float64", 1, n)
	}
}

func benchPoolProduct[T Float](b *testing.B, rng *rand.Rand, dtype string, threads, n int) {
	a := randMatrix[T](rng, n, n, 0)
	bb := randMatrix[T](rng, n, n, 0)
	c := New[T](n, n)
	cfg := gemmConfig{threads: threads}
	b.Run(fmt.Sprintf("%s/threads=%d/m=%d,n=%d,k=%d", dtype, threads, n, n, n), func(b *testing.B) {
		for range 3 { // warm-up: workers started, caches and pages touched
			if err := gemmWith(cfg, NoTrans, NoTrans, 1, a, bb, 0, c); err != nil {
				b.Fatal(err)
			}
		}
		calls, shares := poolCounters.calls.Load(), poolCounters.callerShares.Load()
		waits, parks := poolCounters.waits.Load(), poolCounters.parks.Load()
		wparks := poolCounters.workerParks.Load()
		redos, takeovers, shy := redoCounts()
		var d []time.Duration
		for b.Loop() {
			t0 := time.Now()
			if err := gemmWith(cfg, NoTrans, NoTrans, 1, a, bb, 0, c); err != nil {
				b.Fatal(err)
			}
			d = append(d, time.Since(t0))
		}
		slices.Sort(d)
		us := func(q float64) float64 {
			return float64(d[min(len(d)-1, int(q*float64(len(d))))].Nanoseconds()) / 1e3
		}
		med, p95, mx := us(0.5), us(0.95), us(1)
		b.ReportMetric(med, "median-µs")
		b.ReportMetric(p95, "p95-µs")
		b.ReportMetric(mx, "max-µs")
		b.ReportMetric(mx/med, "max/median")
		b.ReportMetric(2*float64(n)*float64(n)*float64(n)/med/1e3, "median-GFLOP/s")
		if dc := float64(poolCounters.calls.Load() - calls); dc > 0 {
			b.ReportMetric(float64(poolCounters.callerShares.Load()-shares)/dc, "caller-shares/call")
			b.ReportMetric(float64(poolCounters.waits.Load()-waits)/dc, "waits/call")
			b.ReportMetric(float64(poolCounters.parks.Load()-parks)/dc, "parks/call")
			b.ReportMetric(float64(poolCounters.workerParks.Load()-wparks)/dc, "worker-parks/call")
			r, t, sh := redoCounts()
			b.ReportMetric(float64(r-redos)/dc, "redos/call")
			b.ReportMetric(float64(t-takeovers)/dc, "takeovers/call")
			b.ReportMetric(float64(sh-shy)/dc, "shy-parks/call")
		}
	})
}
