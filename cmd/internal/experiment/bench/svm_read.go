package bench

import (
	"sync"

	"github.com/ntksvm/ntksvm/asm"
	"github.com/ntksvm/ntksvm/linalg"
)

// readSink keeps the baseline's sums alive.
var readSink float64

// readRows reads every row of k once on threads goroutines, each its
// own contiguous block of rows as in the step (linalg.Gemv splits the rows
// the same way), four rows side by side as the step reads them
// (asm.Sum32Rows4 and asm.Sum64Rows4, the pattern of
// asm.DotRows4F32F64): a pure streaming read at the full vector width, the
// memory read-bandwidth baseline of the step. Several concurrent streams
// keep more cache-line requests in flight than one, so a one-row-at-a-time
// baseline could be beaten by the step it measures. It returns the sum of
// the sums.
func readRows[T linalg.Float](k linalg.Matrix[T], threads int) float64 {
	threads = max(1, min(threads, k.Rows))
	sums := make([]float64, threads)
	var wg sync.WaitGroup
	for w := range threads {
		lo, hi := w*k.Rows/threads, (w+1)*k.Rows/threads
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[w] = sumRows(k, lo, hi)
		}()
	}
	wg.Wait()
	t := 0.0
	for _, v := range sums {
		t += v
	}
	return t
}

// sumRows is the sum of rows lo…hi-1 of k, four at a time.
func sumRows[T linalg.Float](k linalg.Matrix[T], lo, hi int) float64 {
	var s float64
	switch d := any(k.Data).(type) {
	case []float32:
		i := lo
		for ; i+4 <= hi; i += 4 {
			s += float64(asm.Sum32Rows4(d[i*k.Stride:], k.Stride, k.Cols))
		}
		for ; i < hi; i++ {
			s += float64(asm.Sum32(d[i*k.Stride:][:k.Cols]))
		}
	case []float64:
		i := lo
		for ; i+4 <= hi; i += 4 {
			s += asm.Sum64Rows4(d[i*k.Stride:], k.Stride, k.Cols)
		}
		for ; i < hi; i++ {
			s += asm.Sum64(d[i*k.Stride:][:k.Cols])
		}
	}
	return s
}
