package ibp

import (
	"fmt"
	"math"

	"github.com/ntksvm/ntksvm/linalg"
)

// Preprocess is a map that a machine applies to its inputs before the
// kernel: every coordinate x_j ↦ (x_j − Mean_j)/Scale_j (no Mean and Scale:
// the coordinates as they are), then, with UnitNorm, the row scaled to the
// Euclidean norm √d (a row of zeros stays zero). A certifier built with
// one takes its points, and measures its balls, in the units before the
// map: a model that standardises its features is certified in the units of
// the data a user gives it.
//
// The ball is carried through the map soundly (see the package
// documentation): with w_j = 1/Scale_j, an ℓ∞ ball of radius δ moves the
// standardised point by at most δ·‖w‖₂ in ℓ2 and coordinate j by at most
// δ·w_j; an ℓ2 ball of radius r moves it by at most r·max_j w_j. UnitNorm
// then maps a ball of ℓ2 radius ε around u ≠ 0 into the set of points at
// an angle at most arcsin(ε/‖u‖) from u, scaled to the norm √d: a ball of
// radius √d·√(2(1 − √(1 − t²))), t = ε/‖u‖, on the sphere, or, when t ≥ 1
// (the ball reaches the origin), the whole sphere and the origin.
type Preprocess struct {
	Mean, Scale []float64
	UnitNorm    bool
}

// check returns an error unless p is a map of d features.
func (p *Preprocess) check(d int) error {
	if len(p.Mean) != len(p.Scale) || (len(p.Mean) != 0 && len(p.Mean) != d) {
		return fmt.Errorf("ibp: preprocessing has %d means and %d scales for %d features", len(p.Mean), len(p.Scale), d)
	}
	for j := range p.Mean {
		if !finite(p.Mean[j]) || !(p.Scale[j] > 0) || math.IsInf(p.Scale[j], 0) {
			return fmt.Errorf("ibp: preprocessing of feature %d: mean %v, scale %v: want finite, scale > 0", j, p.Mean[j], p.Scale[j])
		}
	}
	return nil
}

// affine returns (x − Mean)/Scale row by row (a copy), or x itself when p
// has no Mean and Scale.
func (p *Preprocess) affine(x linalg.Matrix[float64]) linalg.Matrix[float64] {
	if len(p.Mean) == 0 {
		return x
	}
	y := linalg.New[float64](x.Rows, x.Cols)
	for i := range x.Rows {
		out := y.Row(i)
		for j, v := range x.Row(i) {
			out[j] = (v - p.Mean[j]) / p.Scale[j]
		}
	}
	return y
}

// apply returns the rows of x mapped by p (x itself for a nil p or the
// identity).
func (p *Preprocess) apply(x linalg.Matrix[float64]) linalg.Matrix[float64] {
	if p == nil {
		return x
	}
	y := p.affine(x)
	if !p.UnitNorm {
		return y
	}
	if len(p.Mean) == 0 {
		y = linalg.New[float64](x.Rows, x.Cols)
		for i := range x.Rows {
			copy(y.Row(i), x.Row(i))
		}
	}
	for i := range y.Rows {
		linalg.ScaleToRootLen(y.Row(i))
	}
	return y
}

// onSphere maps the geometry g of a ball around u (‖u‖ = un, before the
// scaling to the norm √d) to that of its image under UnitNorm; the
// Hölder terms do not survive the map.
func onSphere(g geometry, un, sd float64) geometry {
	out := geometry{nL: sd, nU: sd}
	t := g.eps / un // +Inf or NaN when un = 0
	switch {
	case !(t < 1):
		// The ball reaches the origin (or u is the origin): x' is 0 or
		// anywhere on the sphere.
		out.eps, out.nL = 2*sd, 0
		if un == 0 {
			out.eps = sd
		}
	default:
		// The chord of the largest angle θ, sin θ = t: 2 sin(θ/2) =
		// √(2(1 − cos θ)) = t·√(2/(1 + cos θ)), without cancellation.
		out.eps = min(sd*t*math.Sqrt(2/(1+math.Sqrt(1-t*t))), 2*sd)
	}
	return out
}
