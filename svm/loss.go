package svm

import (
	"fmt"
	"math"
	"strings"
)

// Loss is one of the losses of paper Table 1: l(z, y) with z the model
// output and y the target, and its (sub)derivative ∂l/∂z. The zero Loss is
// not valid; use ParseLoss or the constants.
type Loss struct {
	kind    lossKind
	Epsilon float64 // the ε of the ε-insensitive loss; ignored by the others
}

type lossKind uint8

const (
	lossInvalid lossKind = iota
	lossHinge
	lossSquaredHinge
	lossSquared
	lossEpsInsensitive
	lossLogistic
)

// The losses of paper Table 1. EpsInsensitive has ε = 0; set Loss.Epsilon
// (or use EpsInsensitiveLoss) for another ε.
var (
	Hinge          = Loss{kind: lossHinge}          // max(0, 1 − yz): the (1-norm) soft-margin SVM
	SquaredHinge   = Loss{kind: lossSquaredHinge}   // max(0, 1 − yz)²: the 2-norm soft-margin SVM
	Squared        = Loss{kind: lossSquared}        // (y − z)²: kernel (ridge) regression
	EpsInsensitive = Loss{kind: lossEpsInsensitive} // max(0, |y − z| − ε): support vector regression
	Logistic       = Loss{kind: lossLogistic}       // log(1 + e^{−yz}): ℓ2-regularised logistic regression
)

// EpsInsensitiveLoss returns the ε-insensitive loss max(0, |y − z| − ε).
func EpsInsensitiveLoss(eps float64) Loss { return Loss{kind: lossEpsInsensitive, Epsilon: eps} }

var lossNames = map[lossKind]string{
	lossHinge:          "hinge",
	lossSquaredHinge:   "squared-hinge",
	lossSquared:        "squared",
	lossEpsInsensitive: "eps-insensitive",
	lossLogistic:       "logistic",
}

// ParseLoss returns the loss named "hinge", "squared-hinge", "squared",
// "eps-insensitive" or "logistic". The ε-insensitive loss gets ε = 0; set
// its Epsilon field afterwards.
func ParseLoss(name string) (Loss, error) {
	for k, n := range lossNames {
		if n == name {
			return Loss{kind: k}, nil
		}
	}
	names := make([]string, 0, len(lossNames))
	for k := lossHinge; k <= lossLogistic; k++ {
		names = append(names, lossNames[k])
	}
	return Loss{}, fmt.Errorf("svm: unknown loss %q (want one of %s)", name, strings.Join(names, ", "))
}

// Code returns a small integer naming the loss's kind, stable across
// versions: saved training states record it.
func (l Loss) Code() uint8 { return uint8(l.kind) }

// LossFromCode returns the loss (ε = 0) whose Code is c, and whether
// there is one.
func LossFromCode(c uint8) (Loss, bool) {
	_, ok := lossNames[lossKind(c)]
	return Loss{kind: lossKind(c)}, ok
}

// Name returns the loss's name as ParseLoss accepts it, or "invalid".
func (l Loss) Name() string {
	if n, ok := lossNames[l.kind]; ok {
		return n
	}
	return "invalid"
}

// Valid reports whether l is one of the losses (and ε ≥ 0 for the
// ε-insensitive loss).
func (l Loss) Valid() bool {
	return l.kind >= lossHinge && l.kind <= lossLogistic &&
		(l.kind != lossEpsInsensitive || l.Epsilon >= 0 && !math.IsInf(l.Epsilon, 1))
}

// String returns the name, with ε for the ε-insensitive loss.
func (l Loss) String() string {
	if l.kind == lossEpsInsensitive {
		return fmt.Sprintf("%s(ε=%g)", l.Name(), l.Epsilon)
	}
	return l.Name()
}

// Classification reports whether the loss is a margin loss of yz with
// labels in {−1, +1} (hinge, squared hinge, logistic).
func (l Loss) Classification() bool {
	return l.kind == lossHinge || l.kind == lossSquaredHinge || l.kind == lossLogistic
}

// Value returns l(z, y). The logistic loss is computed without overflow:
// log(1 + e^{−m}) = max(−m, 0) + log1p(e^{−|m|}) with m = yz.
// It panics on an invalid Loss (a programmer error).
func (l Loss) Value(z, y float64) float64 {
	switch l.kind {
	case lossHinge:
		return max(0, 1-y*z)
	case lossSquaredHinge:
		h := max(0, 1-y*z)
		return h * h
	case lossSquared:
		d := y - z
		return d * d
	case lossEpsInsensitive:
		return max(0, math.Abs(y-z)-l.Epsilon)
	case lossLogistic:
		m := y * z
		return max(-m, 0) + math.Log1p(math.Exp(-math.Abs(m)))
	}
	panic("svm: invalid Loss")
}

// Deriv returns the (sub)derivative ∂l(z, y)/∂z. At the kinks it takes
// the value of the side away from the loss's zero set: hinge gives
// −y·1[yz < 1] (0 at yz = 1, as paper eq. 16), the ε-insensitive loss
// gives −sign(y − z)·1[|y − z| > ε]. The logistic derivative
// −y/(1 + e^{yz}) is computed without overflow.
func (l Loss) Deriv(z, y float64) float64 {
	switch l.kind {
	case lossHinge:
		if y*z < 1 {
			return -y
		}
		return 0
	case lossSquaredHinge:
		return -2 * y * max(0, 1-y*z)
	case lossSquared:
		return 2 * (z - y)
	case lossEpsInsensitive:
		switch d := y - z; {
		case d > l.Epsilon:
			return -1
		case d < -l.Epsilon:
			return 1
		}
		return 0
	case lossLogistic:
		m := y * z
		// σ(−m) = 1/(1 + e^{m}), evaluated on the side that does not overflow.
		var s float64
		if m >= 0 {
			e := math.Exp(-m)
			s = e / (1 + e)
		} else {
			s = 1 / (1 + math.Exp(m))
		}
		return -y * s
	}
	panic("svm: invalid Loss")
}
