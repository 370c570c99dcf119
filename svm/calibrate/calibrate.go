// Package calibrate turns the decision values of binary kernel machines
// into class probabilities, as libsvm does for its probability models:
// Platt's sigmoid P(y = +1 | f) = 1/(1 + exp(A·f + B)) fitted to held-out
// decision values by the Newton method with backtracking of Lin, Lin and
// Weng ("A note on Platt's probabilistic outputs for support vector
// machines", Machine Learning 68, 2007; libsvm's sigmoid_train), and the
// pairwise probabilities of one-vs-one machines coupled into one
// distribution over the classes by the second method of Wu, Lin and Weng
// ("Probability estimates for multi-class classification by pairwise
// coupling", JMLR 5, 2004; libsvm's multiclass_probability).
//
// The package knows nothing of kernels or models: it takes numbers and
// returns numbers.
package calibrate

import (
	"errors"
	"fmt"
	"math"
)

// ErrInput is wrapped by the errors about bad input.
var ErrInput = errors.New("calibrate: bad input")

// Sigmoid is Platt's model of the probability of the positive class given
// a decision value f: 1/(1 + exp(A·f + B)). A is negative when larger
// decision values mean the positive class.
type Sigmoid struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// Prob returns 1/(1 + exp(A·f + B)), computed without overflow.
func (s Sigmoid) Prob(f float64) float64 {
	z := f*s.A + s.B
	if z >= 0 {
		e := math.Exp(-z)
		return e / (1 + e)
	}
	return 1 / (1 + math.Exp(z))
}

// FitSigmoid fits Platt's sigmoid to the decision values dec of examples
// whose class is positive where pos is true: it minimises the
// cross-entropy against Platt's regularised targets (n₊+1)/(n₊+2) for the
// positives and 1/(n₋+2) for the negatives by Newton's method on (A, B)
// with a backtracking line search (Lin, Lin and Weng 2007, Algorithm 1:
// libsvm's sigmoid_train, with its constants: at most 100 iterations,
// gradient below 1e-5, Hessian shifted by 1e-12, steps down to 1e-10).
// The decision values should be held out (cross-validated): on the
// training points themselves they are too confident.
//
// It reports whether Newton's method converged (libsvm keeps the last
// iterate either way, and so does FitSigmoid).
func FitSigmoid(dec []float64, pos []bool) (s Sigmoid, converged bool, err error) {
	if len(dec) == 0 || len(dec) != len(pos) {
		return s, false, fmt.Errorf("%w: %d decision values and %d labels", ErrInput, len(dec), len(pos))
	}
	var prior1, prior0 float64
	for i, f := range dec {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return s, false, fmt.Errorf("%w: decision value %d is %v", ErrInput, i, f)
		}
		if pos[i] {
			prior1++
		} else {
			prior0++
		}
	}
	const (
		maxIter = 100
		minStep = 1e-10
		sigma   = 1e-12
		eps     = 1e-5
	)
	hi, lo := (prior1+1)/(prior1+2), 1/(prior0+2)
	t := make([]float64, len(dec))
	for i := range t {
		t[i] = lo
		if pos[i] {
			t[i] = hi
		}
	}
	// The cross-entropy at (A, B), written so that no exp overflows.
	value := func(a, b float64) float64 {
		var f float64
		for i, d := range dec {
			z := d*a + b
			if z >= 0 {
				f += t[i]*z + math.Log1p(math.Exp(-z))
			} else {
				f += (t[i]-1)*z + math.Log1p(math.Exp(z))
			}
		}
		return f
	}
	a, b := 0.0, math.Log((prior0+1)/(prior1+1))
	fval := value(a, b)
	for range maxIter {
		h11, h22, h21, g1, g2 := sigma, sigma, 0.0, 0.0, 0.0
		for i, d := range dec {
			z := d*a + b
			var p, q float64
			if z >= 0 {
				e := math.Exp(-z)
				p, q = e/(1+e), 1/(1+e)
			} else {
				e := math.Exp(z)
				p, q = 1/(1+e), e/(1+e)
			}
			d2 := p * q
			h11 += d * d * d2
			h22 += d2
			h21 += d * d2
			d1 := t[i] - p
			g1 += d * d1
			g2 += d1
		}
		if math.Abs(g1) < eps && math.Abs(g2) < eps {
			return Sigmoid{A: a, B: b}, true, nil
		}
		det := h11*h22 - h21*h21
		dA := -(h22*g1 - h21*g2) / det
		dB := -(-h21*g1 + h11*g2) / det
		gd := g1*dA + g2*dB
		step := 1.0
		for step >= minStep {
			na, nb := a+step*dA, b+step*dB
			if nf := value(na, nb); nf < fval+1e-4*step*gd {
				a, b, fval = na, nb, nf
				break
			}
			step /= 2
		}
		if step < minStep {
			return Sigmoid{A: a, B: b}, false, nil // the line search failed: libsvm stops here too
		}
	}
	return Sigmoid{A: a, B: b}, false, nil
}

// MinProb bounds the pairwise probabilities Couple uses to
// [MinProb, 1 − MinProb], as libsvm does: a probability of exactly 0 or 1
// would make the coupling's system singular.
const MinProb = 1e-7

// Couple sets p to the class probabilities that agree best with the
// pairwise probabilities r, where r[i*k+j] (i ≠ j) is the probability of
// class i given that the class is i or j, and r[j*k+i] = 1 − r[i*k+j]:
// the minimiser of Σᵢ Σ_{j≠i} (r_ji pᵢ − r_ij pⱼ)² over the simplex, the
// second method of Wu, Lin and Weng (2004), found by their fixed-point
// iteration (libsvm's multiclass_probability: at most max(100, k)
// sweeps, until every |(Qp)ₜ − pᵀQp| < 0.005/k). The diagonal of r is not
// read. It reports whether the iteration converged; p is a distribution
// either way. It panics if len(r) ≠ k² for k = len(p) (a programmer's
// error).
func Couple(p, r []float64) (converged bool) {
	k := len(p)
	if len(r) != k*k {
		panic(fmt.Sprintf("calibrate: %d pairwise probabilities for %d classes", len(r), k))
	}
	if k == 0 {
		return true
	}
	q := make([]float64, k*k)
	for t := range k {
		p[t] = 1 / float64(k)
		for j := range k {
			if j == t {
				continue
			}
			q[t*k+t] += r[j*k+t] * r[j*k+t]
			q[t*k+j] = -r[j*k+t] * r[t*k+j]
		}
	}
	qp := make([]float64, k)
	maxIter := max(100, k)
	eps := 0.005 / float64(k)
	for range maxIter {
		var pqp float64
		for t := range k {
			qp[t] = 0
			for j := range k {
				qp[t] += q[t*k+j] * p[j]
			}
			pqp += p[t] * qp[t]
		}
		worst := 0.0
		for t := range k {
			worst = max(worst, math.Abs(qp[t]-pqp))
		}
		if worst < eps {
			return true
		}
		for t := range k {
			diff := (-qp[t] + pqp) / q[t*k+t]
			p[t] += diff
			pqp = (pqp + diff*(diff*q[t*k+t]+2*qp[t])) / (1 + diff) / (1 + diff)
			for j := range k {
				qp[j] = (qp[j] + diff*q[t*k+j]) / (1 + diff)
				p[j] /= 1 + diff
			}
		}
	}
	return false
}
