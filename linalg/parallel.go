package linalg

// ParallelFor calls fn on contiguous chunks [lo, hi) that cover [0, n)
// exactly once, and returns when every call has returned. It uses at most
// Threads() chunks (so SetThreads bounds it as it bounds Gemm) and at most
// ⌊n/minChunk⌋, so that each chunk has at least minChunk elements when
// there is more than one; chunk c of k is [c·n/k, (c+1)·n/k). The chunks run
// on the caller's goroutine and the package's persistent workers (or
// goroutines of their own when the workers are busy, for instance when fn
// itself calls ParallelFor). fn must be safe to call concurrently on
// different chunks; with one chunk, fn(0, n) runs on the caller's
// goroutine. n ≤ 0 calls nothing; minChunk < 1 counts as 1.
func ParallelFor(n, minChunk int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	minChunk = max(minChunk, 1)
	chunks := min(Threads(), n/minChunk)
	if chunks <= 1 {
		fn(0, n)
		return
	}
	parallel(chunks, func(c int) { fn(c*n/chunks, (c+1)*n/chunks) })
}
