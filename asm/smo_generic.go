package asm

// The conversions to float64 below round each product, which keeps the
// compiler from fusing it into the sum that follows (as it may on arm64, or
// on amd64 with GOAMD64=v3): the twins compute what the vector kernels do.

// smoSelectGo is the Go twin of SMOSelect64 from variable from on, given
// the state (j, best objective, gmin) of the variables before it; it
// returns the state after the last.
func smoSelectGo(g, sgn, lowPen, diag, ki []float64, gmax, qii, shift float64, i, from, j int, best, gmin float64) (int, float64, float64) {
	n := len(g)
	sgn, lowPen, diag, ki = sgn[:n], lowPen[:n], diag[:n], ki[:n]
	for t := from; t < n; t++ {
		v := lowPen[t] - float64(sgn[t]*g[t])
		gmin = min(gmin, v)
		if b := gmax - v; b > 0 && t != i {
			quad := qii + diag[t] + shift - 2*ki[t]
			if quad <= 0 {
				quad = 1e-12
			}
			if obj := -b * b / quad; obj <= best {
				best, j = obj, t
			}
		}
	}
	return j, best, gmin
}

// smoUpdateGo is the Go twin of SMOUpdate64 from variable from on, given
// the state (next, vmax) of the variables before it. It returns −Inf with
// an index when every v_t is −Inf; the wrappers map that to −1.
func smoUpdateGo(g, sgn, upPen, ki, kj []float64, d float64, from, next int, vmax float64) (int, float64) {
	n := len(g)
	sgn, upPen, ki, kj = sgn[:n], upPen[:n], ki[:n], kj[:n]
	for t := from; t < n; t++ {
		gt := g[t] + float64(float64(sgn[t]*d)*(ki[t]-kj[t]))
		g[t] = gt
		if v := upPen[t] - float64(sgn[t]*gt); v >= vmax {
			next, vmax = t, v
		}
	}
	return next, vmax
}

// axpyUnfusedGo is the Go twin of AxpyUnfused64; the conversion keeps
// the compiler from fusing the product into the sum.
func axpyUnfusedGo(alpha float64, x, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += float64(alpha * v)
	}
}
