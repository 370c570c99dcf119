package linalg

// This file holds the plain, obviously correct algorithms. The fast paths are
// tested against them; they are not used on hot paths.

// gemmRef computes C = alpha·op(A)·op(B) + beta·C with float64 accumulation
// (the naive reference of the tests). beta == 0 overwrites C, so NaN in C
// does not propagate, as in BLAS.
func gemmRef[T Float](tA, tB bool, alpha T, a, b Matrix[T], beta T, c Matrix[T]) {
	k := a.Cols
	if tA {
		k = a.Rows
	}
	for i := range c.Rows {
		for j := range c.Cols {
			var s float64
			for p := range k {
				var av, bv T
				if tA {
					av = a.Data[p*a.Stride+i]
				} else {
					av = a.Data[i*a.Stride+p]
				}
				if tB {
					bv = b.Data[j*b.Stride+p]
				} else {
					bv = b.Data[p*b.Stride+j]
				}
				s += float64(av) * float64(bv)
			}
			ci := &c.Data[i*c.Stride+j]
			if beta == 0 {
				*ci = T(float64(alpha) * s)
			} else {
				*ci = T(float64(alpha)*s + float64(beta)*float64(*ci))
			}
		}
	}
}
