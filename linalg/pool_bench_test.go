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
// parked, and how often a worker parked. Run it with a fixed count, for
// instance 200 products each:
//
//	go test -run '^$' -bench PoolProducts -benchtime 200x ./linalg
//
// testdata/poolbench/run.sh runs it with and without a second process
// keeping one core busy, against an older revision in alternated rounds.
func BenchmarkPoolProducts(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{64, 128, 256, 512} {
		benchPoolProduct[float32](b, rng, "float32", n)
		benchPoolProduct[float64](b, rng, "float64", n)
	}
}

func benchPoolProduct[T Float](b *testing.B, rng *rand.Rand, dtype string, n int) {
	a := randMatrix[T](rng, n, n, 0)
	bb := randMatrix[T](rng, n, n, 0)
	c := New[T](n, n)
	cfg := gemmConfig{threads: 2}
	b.Run(fmt.Sprintf("%s/threads=2/m=%d,n=%d,k=%d", dtype, n, n, n), func(b *testing.B) {
		for range 3 { // warm-up: workers started, caches and pages touched
			if err := gemmWith(cfg, NoTrans, NoTrans, 1, a, bb, 0, c); err != nil {
				b.Fatal(err)
			}
		}
		calls, shares := poolCounters.calls.Load(), poolCounters.callerShares.Load()
		waits, parks := poolCounters.waits.Load(), poolCounters.parks.Load()
		wparks := poolCounters.workerParks.Load()
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
		}
	})
}

// BenchmarkPoolTail measures the pool's tail against the machine's own:
// each iteration runs one 2-thread product and one 1-thread product of
// the same square size, alternated so that both see the same machine,
// and reports each one's p99/median and their ratio (tail-ratio: 1 means
// the pool adds no tail of its own to what the machine does to a single
// thread). Run it with a fixed count on an otherwise idle machine:
//
//	go test -run '^$' -bench PoolTail -benchtime 1000x -count 3 ./linalg
func BenchmarkPoolTail(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, n := range []int{64, 128, 256, 512} {
		benchPoolTail[float32](b, rng, "float32", n)
		benchPoolTail[float64](b, rng, "float64", n)
	}
}

func benchPoolTail[T Float](b *testing.B, rng *rand.Rand, dtype string, n int) {
	a := randMatrix[T](rng, n, n, 0)
	bb := randMatrix[T](rng, n, n, 0)
	c := New[T](n, n)
	b.Run(fmt.Sprintf("%s/m=%d,n=%d,k=%d", dtype, n, n, n), func(b *testing.B) {
		cfgs := [2]gemmConfig{{threads: 1}, {threads: 2}}
		var d [2][]time.Duration
		for range 3 { // warm-up: workers started, caches and pages touched
			for _, cfg := range cfgs {
				if err := gemmWith(cfg, NoTrans, NoTrans, 1, a, bb, 0, c); err != nil {
					b.Fatal(err)
				}
			}
		}
		for it := 0; b.Loop(); it++ {
			for k := range 2 {
				t := (it + k) % 2 // alternate which goes first
				t0 := time.Now()
				if err := gemmWith(cfgs[t], NoTrans, NoTrans, 1, a, bb, 0, c); err != nil {
					b.Fatal(err)
				}
				d[t] = append(d[t], time.Since(t0))
			}
		}
		var tail [2]float64
		for t := range d {
			slices.Sort(d[t])
			q := func(p float64) float64 { return float64(d[t][min(len(d[t])-1, int(p*float64(len(d[t]))))]) }
			tail[t] = q(0.99) / q(0.5)
			b.ReportMetric(q(0.5)/1e3, fmt.Sprintf("median-µs-%dt", t+1))
		}
		b.ReportMetric(tail[0], "p99/median-1t")
		b.ReportMetric(tail[1], "p99/median-2t")
		b.ReportMetric(tail[1]/tail[0], "tail-ratio")
	})
}
