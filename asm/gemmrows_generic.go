package asm

// gemmRowsGo is the Go twin of GemmRows32:
// c[r*ldc+i] += Σ_p a[r*lda+p]·b[p*RowsNR+i], each sum from zero in
// increasing p. Arguments are checked by the exported wrapper.
func gemmRowsGo(kc int, a []float32, lda int, b, c []float32, ldc int, _ []float32) {
	var acc [RowsNR]float32
	b = b[:kc*RowsNR]
	for r := range RowsMR {
		acc = [RowsNR]float32{}
		ar := a[r*lda : r*lda+kc]
		for p, x := range ar {
			bp := b[p*RowsNR : p*RowsNR+RowsNR]
			for i, y := range bp {
				acc[i] += x * y
			}
		}
		cr := c[r*ldc : r*ldc+RowsNR]
		for i, v := range acc {
			cr[i] += v
		}
	}
}
