package eigenpro

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// BenchmarkBlock times the kernel block of an EigenPro step, K(X_B, X)
// for a batch of m rows against n points of d = 784 features (float32,
// NTK of depth 1–3, through ntk.Prepared.Into), beside the bare GEMM
// X_B·Xᵀ of the same shape in the same loop, so that load on the host
// touches both alike. It reports both as GFLOP/s of the product's
// 2·m·n·d flops and their ratio (block/gemm; 1 would be a free recursion).
func BenchmarkBlock(b *testing.B) {
	const d = 784
	for _, shape := range []struct{ m, n int }{{512, 20000}} {
		r := rand.New(rand.NewPCG(1, 1))
		x := linalg.New[float32](shape.n, d)
		for i := range x.Data {
			x.Data[i] = float32(r.Float64())
		}
		z := x.Slice(0, shape.m, 0, d)
		out := linalg.New[float32](shape.m, shape.n)
		for _, depth := range []int{1, 2, 3} {
			p, err := ntk.Prepare(x, ntk.DefaultSpec(depth))
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("L=%d/m=%d,n=%d,d=%d", depth, shape.m, shape.n, d), func(b *testing.B) {
				var tg, tk time.Duration
				for b.Loop() {
					t0 := time.Now()
					if err := linalg.CrossGram(z, x, out); err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					if err := p.Into(context.Background(), z, nil, ntk.Options{}, out); err != nil {
						b.Fatal(err)
					}
					tg, tk = tg+t1.Sub(t0), tk+time.Since(t1)
				}
				flop := 2 * float64(shape.m) * float64(shape.n) * d * float64(b.N)
				b.ReportMetric(flop/tg.Seconds()/1e9, "gemm-GFLOP/s")
				b.ReportMetric(flop/tk.Seconds()/1e9, "block-GFLOP/s")
				b.ReportMetric(tg.Seconds()/tk.Seconds(), "ratio")
			})
		}
	}
}
