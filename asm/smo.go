package asm

import "math"

// Kernels of the kernel machines' solvers: the two passes over the
// variables that each step of the SMO solver for a support-vector dual with
// a bias makes (libsvm's second-order working-set selection, WSS2 of Fan,
// Chen and Lin, JMLR 2005), choosing the second variable j of the pair, and
// updating the gradient while choosing the first variable of the next step. Variable t has the sign sgn[t] = ±1 and
// the gradient g[t] of the dual ½aᵀQa + pᵀa; membership of I_up and I_low
// is given as penalties added to −sgn[t]·g[t] (0 for a member; −Inf outside
// I_up, +Inf outside I_low), so that the loops have no branch on it.
//
// Both are exact: the vector kernels compute every value with the Go
// twin's operations in its order (no fused multiply-add) and break ties
// as it does, towards the larger index, so a solver gets the same steps
// whichever kernel set runs. Inputs must not hold NaN.

// SMOSelect64 chooses the second variable of an SMO step whose first is i
// (libsvm's WSS2). With v_t = lowPen[t] − sgn[t]·g[t], it returns gmin,
// the least v_t, and j, the t ≠ i with b_t = gmax − v_t > 0 that minimises
// −b_t²/q_t, where q_t = ((qii + diag[t]) + shift) − 2·ki[t] (a q_t ≤ 0
// counts as 1e-12); on ties the largest such t, and −1 when there is none.
// It panics unless sgn, lowPen, diag and ki have len(g) elements.
func SMOSelect64(g, sgn, lowPen, diag, ki []float64, gmax, qii, shift float64, i int) (j int, gmin float64) {
	return active.SMOSelect64(g, sgn, lowPen, diag, ki, gmax, qii, shift, i)
}

// SMOUpdate64 moves the gradient after an SMO step of size d on a pair
// whose kernel rows are ki and kj, g[t] += (sgn[t]·d)·(ki[t] − kj[t]), and
// returns the first variable of the next step: the t that maximises
// v_t = upPen[t] − sgn[t]·g[t] (the new g), the largest such t on ties,
// with that maximum, or −1 and −Inf when every v_t is −Inf. It panics
// unless sgn, upPen, ki and kj have len(g) elements.
func SMOUpdate64(g, sgn, upPen, ki, kj []float64, d float64) (next int, vmax float64) {
	return active.SMOUpdate64(g, sgn, upPen, ki, kj, d)
}

// AxpyUnfused64 sets y[i] += alpha·x[i] for every i, the product rounded
// before the sum (as Go computes y[i] += float64(alpha*x[i])): the decision
// values of a kernel machine summed one support vector at a time over many
// points, bit for bit the sums taken point by point in Go. It panics if
// len(x) != len(y).
func AxpyUnfused64(alpha float64, x, y []float64) { active.AxpyUnfused64(alpha, x, y) }

// AxpyUnfused64 is the package-level AxpyUnfused64 on this kernel set.
func (k *Kernels) AxpyUnfused64(alpha float64, x, y []float64) {
	if len(x) != len(y) {
		panic("asm: AxpyUnfused64: len(x) != len(y)")
	}
	k.axpyUnfused64(alpha, x, y)
}

// SMOSelect64 is the package-level SMOSelect64 on this kernel set.
func (k *Kernels) SMOSelect64(g, sgn, lowPen, diag, ki []float64, gmax, qii, shift float64, i int) (j int, gmin float64) {
	n := len(g)
	if len(sgn) != n || len(lowPen) != n || len(diag) != n || len(ki) != n {
		panic("asm: SMOSelect64: mismatched lengths")
	}
	return k.smoSelect64(g, sgn, lowPen, diag, ki, gmax, qii, shift, i)
}

// SMOUpdate64 is the package-level SMOUpdate64 on this kernel set.
func (k *Kernels) SMOUpdate64(g, sgn, upPen, ki, kj []float64, d float64) (next int, vmax float64) {
	n := len(g)
	if len(sgn) != n || len(upPen) != n || len(ki) != n || len(kj) != n {
		panic("asm: SMOUpdate64: mismatched lengths")
	}
	return k.smoUpdate64(g, sgn, upPen, ki, kj, d)
}

// fillSMO gives a set without its own SMO kernels the Go twins.
func fillSMO(k *Kernels) {
	if k.smoSelect64 == nil {
		k.smoSelect64 = func(g, sgn, lowPen, diag, ki []float64, gmax, qii, shift float64, i int) (int, float64) {
			j, _, gmin := smoSelectGo(g, sgn, lowPen, diag, ki, gmax, qii, shift, i, 0, -1, math.Inf(1), math.Inf(1))
			return j, gmin
		}
	}
	if k.axpyUnfused64 == nil {
		k.axpyUnfused64 = axpyUnfusedGo
	}
	if k.smoUpdate64 == nil {
		k.smoUpdate64 = func(g, sgn, upPen, ki, kj []float64, d float64) (int, float64) {
			next, vmax := smoUpdateGo(g, sgn, upPen, ki, kj, d, 0, -1, math.Inf(-1))
			return smoNone(next, vmax)
		}
	}
}

// axpyUnfusedVec returns the AxpyUnfused64 wrapper that runs blocks on the
// longest prefix that is a multiple of vec elements and the Go twin on the
// rest.
func axpyUnfusedVec(vec int, blocks func(alpha float64, x, y []float64)) func(alpha float64, x, y []float64) {
	return func(alpha float64, x, y []float64) {
		n := len(x) - len(x)%vec
		if n > 0 {
			blocks(alpha, x[:n], y[:n])
		}
		axpyUnfusedGo(alpha, x[n:], y[n:len(x)])
	}
}

// smoNone maps a maximum of −Inf to "no variable".
func smoNone(next int, vmax float64) (int, float64) {
	if vmax == math.Inf(-1) {
		return -1, vmax
	}
	return next, vmax
}
