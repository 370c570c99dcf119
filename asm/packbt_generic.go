package asm

// packBTransGo returns the Go twin of PackBTrans32 and PackBTrans64 for a
// set with NR = nr: dst[p*nr+j] = src[j*ld+p] for p < kb, j < nr, one row
// of B at a time. Arguments are checked by the exported wrappers.
func packBTransGo[T float32 | float64](nr int) func(dst, src []T, ld, kb int) {
	return func(dst, src []T, ld, kb int) {
		if kb == 0 {
			return
		}
		dst = dst[:kb*nr]
		for j := range nr {
			for p, v := range src[j*ld : j*ld+kb] {
				dst[p*nr+j] = v
			}
		}
	}
}
