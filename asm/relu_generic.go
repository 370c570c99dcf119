package asm

// reluGeneric is the reference ReLU. It passes a NaN through bit for bit
// (Go's max would clear its sign on amd64 and quiet it on arm64) and maps
// −0 to +0.
func reluGeneric[T float32 | float64](dst, x []T) {
	dst = dst[:len(x)]
	for i, v := range x {
		if v > 0 || v != v {
			dst[i] = v
		} else {
			dst[i] = 0
		}
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
