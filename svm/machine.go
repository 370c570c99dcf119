package svm

import (
	"errors"
	"fmt"
	"math"

	"github.com/ntksvm/ntksvm/svm/train"
)

// ErrInput is wrapped by every error about bad user data (shapes, labels,
// hyper-parameters). It is train.ErrInput, so one errors.Is check covers a
// trainer and the loop that runs it.
var ErrInput = train.ErrInput

// ErrDiverged is wrapped by the error of a training step that made the
// iterate NaN or infinite: the step size is too large for the problem (or
// the kernel's scale). The state after that step is unusable.
var ErrDiverged = errors.New("svm: the training diverged")

func inputErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInput, fmt.Sprintf(format, args...))
}

// KernelMachine is g(x) = Σᵢ αᵢ K(x, xᵢ) + b over n training points
// (paper eq. 15; b = 0 for the paper's homogeneous machines).
type KernelMachine struct {
	Alpha []float64 // the kernel-expansion weights αᵢ, one per training point
	Bias  float64   // b; 0 unless the machine was trained with a bias
}

// Predict sets dst = K(A, X)·α + b for the cross kernel k with Rows() test
// points and Cols() = len(α) training points.
func (m *KernelMachine) Predict(dst []float64, k KernelMatrix) error {
	r, c := k.Dims()
	if c != len(m.Alpha) {
		return inputErr("kernel matrix has %d columns, the machine %d training points", c, len(m.Alpha))
	}
	if len(dst) != r {
		return inputErr("%d predictions for a kernel matrix of %d rows", len(dst), r)
	}
	k.MulVec(dst, m.Alpha)
	if m.Bias != 0 {
		for i := range dst {
			dst[i] += m.Bias
		}
	}
	return nil
}

// Accuracy returns the fraction of i with sign(out[i]) = y[i], where
// outputs with |out| < 1e-6 count as 0 and so are never correct (the
// authors' convention in train_sgd.py: the accuracy of g ≡ 0 is 0).
func Accuracy(out, y []float64) float64 {
	if len(out) == 0 {
		return 0
	}
	right := 0
	for i, o := range out {
		if math.Abs(o) >= 1e-6 && (o > 0) == (y[i] > 0) {
			right++
		}
	}
	return float64(right) / float64(len(out))
}

// MeanLoss returns (1/n) Σ l(out[i], y[i]).
func MeanLoss(l Loss, out, y []float64) float64 {
	if len(out) == 0 {
		return 0
	}
	var s float64
	for i, o := range out {
		s += l.Value(o, y[i])
	}
	return s / float64(len(out))
}

// checkLabels validates y for a loss: finite, and ±1 for classification.
// CheckTargets checks targets y for the loss: finite, and −1 or +1 for
// the classification losses. The error names the first bad row and wraps
// ErrInput.
func (l Loss) CheckTargets(y []float64) error { return checkLabels(l, y) }

func checkLabels(l Loss, y []float64) error {
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return inputErr("label %d is %v", i, v)
		}
		if l.Classification() && v != 1 && v != -1 {
			return inputErr("label %d is %v; the %s loss needs labels −1 or +1", i, v, l.Name())
		}
	}
	return nil
}
