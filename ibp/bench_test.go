package ibp

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/ntksvm/ntksvm/ntk"
)

// BenchmarkCertifyKRR times the full-test-set certificate of a 2-layer NTK
// machine shaped like the paper's Table 3 (n = 12,665 training points,
// d = 784, 2,115 points; -short: n = 2,000, 300 points) on synthetic
// pixel-like data, with the authors' search. It reports the bounds
// evaluated and the time per (point, training point) pair of a bound.
func BenchmarkCertifyKRR(b *testing.B) {
	n, d, p := 12665, 784, 2115
	if testing.Short() {
		n, p = 2000, 300
	}
	rng := rand.New(rand.NewPCG(1, 1))
	km := randMachine(rng, n, d, ntk.DefaultSpec(1))
	for i := range km.Alpha {
		km.Alpha[i] *= 1e-3
	}
	z := randMatrix(rng, p, d)
	c, err := NewKernel(context.Background(), km, z, KernelOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var bounds int
	for b.Loop() {
		rs, err := CertifyAll(context.Background(), c, nil, Linf, KernelSearch(), 0, nil)
		if err != nil {
			b.Fatal(err)
		}
		bounds = 0
		for _, r := range rs {
			bounds += r.Bounds
		}
	}
	b.ReportMetric(float64(bounds), "bounds/op")
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(sec*1e9*float64(runtime.GOMAXPROCS(0))/float64(bounds)/float64(n), "ns/pair/thread")
}
