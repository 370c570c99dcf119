package linalg

import (
	"fmt"
	"sync"
	"testing"
)

// TestParallelFor checks that the chunks cover [0, n) exactly once, are at
// least minChunk long when there are several, and number at most
// Threads().
func TestParallelFor(t *testing.T) {
	defer SetThreads(0)
	for _, th := range []int{1, 2, 3, 8} {
		SetThreads(th)
		for _, n := range []int{-1, 0, 1, 5, 511, 512, 1023, 1024, 1500, 4097} {
			for _, minChunk := range []int{0, 1, 100, 512, 5000} {
				var mu sync.Mutex
				hits := make([]int, max(n, 0))
				var lens []int
				ParallelFor(n, minChunk, func(lo, hi int) {
					mu.Lock()
					defer mu.Unlock()
					lens = append(lens, hi-lo)
					for i := lo; i < hi; i++ {
						hits[i]++
					}
				})
				name := fmt.Sprintf("threads=%d n=%d minChunk=%d", th, n, minChunk)
				for i, h := range hits {
					if h != 1 {
						t.Fatalf("%s: element %d covered %d times", name, i, h)
					}
				}
				if len(lens) > th {
					t.Errorf("%s: %d chunks, more than the %d threads", name, len(lens), th)
				}
				for _, l := range lens {
					if len(lens) > 1 && l < minChunk {
						t.Errorf("%s: chunk of %d elements among %d", name, l, len(lens))
					}
				}
				if n <= 0 && len(lens) != 0 {
					t.Errorf("%s: %d calls", name, len(lens))
				}
			}
		}
	}
}

func ExampleParallelFor() {
	x := make([]float64, 10000)
	ParallelFor(len(x), 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			x[i] = float64(i) // each chunk writes its own elements only
		}
	})
	fmt.Println(x[0], x[len(x)-1])
	// Output: 0 9999
}
