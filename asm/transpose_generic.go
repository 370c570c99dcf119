package asm

// transposeGo is the Go twin of Transpose32 and Transpose64:
// dst[j*ldd+i] = src[i*lds+j] for i < m, j < n, one row of dst at a time.
// Arguments are checked by the exported wrappers; m and n are positive.
func transposeGo[T float32 | float64](dst []T, ldd int, src []T, lds, m, n int) {
	for j := range n {
		d := dst[j*ldd : j*ldd+m]
		s := src[j:]
		for i := range d {
			d[i] = s[i*lds]
		}
	}
}

// scaledTransposeGo is the Go twin of ScaledTranspose32 and
// ScaledTranspose64: transposeGo for alpha = 1, else the same loop with
// the product alpha·s.
func scaledTransposeGo[T float32 | float64](dst []T, ldd int, src []T, lds, m, n int, alpha T) {
	if alpha == 1 {
		transposeGo(dst, ldd, src, lds, m, n)
		return
	}
	for j := range n {
		d := dst[j*ldd : j*ldd+m]
		s := src[j:]
		for i := range d {
			d[i] = alpha * s[i*lds]
		}
	}
}
