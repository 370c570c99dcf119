//go:build gc && !purego

package asm

import "math"

// NEON kernels in smo_arm64.s, for a length that is a positive multiple
// of 2. They leave each lane's state in out; the wrappers below reduce the
// two lanes (ties to the larger index, as the Go twins) and finish the
// tail in Go.

// smoLanes2 is the state of the two lanes: the best value (the selection:
// the largest b²/q, the least −b²/q bit for bit negated), its index (−1:
// none) and, for the selection, the least v.
type smoLanes2 struct {
	best [2]float64
	idx  [2]int64
	gmin [2]float64
}

//go:noescape
func smoSelectNEON(g, sgn, lowPen, diag, ki []float64, gmax, qii, shift float64, i int, out *smoLanes2)

//go:noescape
func smoUpdateNEON(g, sgn, upPen, ki, kj []float64, d float64, out *smoLanes2)

//go:noescape
func axpyUnfusedNEON(alpha float64, x, y []float64)

// fillSMOArch gives the NEON set its SMO kernels.
func fillSMOArch(k *Kernels) {
	if k.name != "neon" {
		return
	}
	k.smoSelect64 = smoSelectLanes
	k.smoUpdate64 = smoUpdateLanes
	k.axpyUnfused64 = axpyUnfusedVec(2, axpyUnfusedNEON)
}

func smoSelectLanes(g, sgn, lowPen, diag, ki []float64, gmax, qii, shift float64, i int) (int, float64) {
	n2 := len(g) &^ 1
	j, best, gmin := -1, math.Inf(1), math.Inf(1)
	if n2 > 0 {
		var out smoLanes2
		smoSelectNEON(g[:n2], sgn[:n2], lowPen[:n2], diag[:n2], ki[:n2], gmax, qii, shift, i, &out)
		for l := range 2 {
			gmin = min(gmin, out.gmin[l])
			if t := int(out.idx[l]); t >= 0 {
				if obj := -out.best[l]; obj < best || (obj == best && t > j) {
					j, best = t, obj
				}
			}
		}
	}
	j, _, gmin = smoSelectGo(g, sgn, lowPen, diag, ki, gmax, qii, shift, i, n2, j, best, gmin)
	return j, gmin
}

func smoUpdateLanes(g, sgn, upPen, ki, kj []float64, d float64) (int, float64) {
	n2 := len(g) &^ 1
	next, vmax := -1, math.Inf(-1)
	if n2 > 0 {
		var out smoLanes2
		smoUpdateNEON(g[:n2], sgn[:n2], upPen[:n2], ki[:n2], kj[:n2], d, &out)
		for l := range 2 {
			if t := int(out.idx[l]); t >= 0 && (out.best[l] > vmax || (out.best[l] == vmax && t > next)) {
				next, vmax = t, out.best[l]
			}
		}
	}
	return smoNone(smoUpdateGo(g, sgn, upPen, ki, kj, d, n2, next, vmax))
}
