package asm

// reluGeneric is the reference ReLU: Go's max keeps NaN and orders −0 below
// +0, which is exactly the documented behaviour.
func reluGeneric[T float32 | float64](dst, x []T) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = max(v, 0)
	}
}

// reluGradGeneric is the reference ReLU derivative mask.
func reluGradGeneric[T float32 | float64](dst, g, x []T) {
	dst = dst[:len(x)]
	g = g[:len(x)]
	for i, v := range x {
		if v > 0 {
			dst[i] = g[i]
		} else {
			dst[i] = 0
		}
	}
}
