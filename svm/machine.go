package svm

import (
	"errors"
	"fmt"
	"math"

	"github.com/ntksvm/ntksvm/linalg"
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

// KernelFunc computes the cross kernel dst = K(A, X) (dst is A.Rows×X.Rows)
// from inputs stored one point per row, e.g. the NTK of package ntk.
type KernelFunc func(dst linalg.Matrix[float64], a, x linalg.Matrix[float64]) error

// PredictFunc sets dst = g(A) for the inputs a (one point per row), with
// the kernel function kf and the machine's training inputs x. It computes
// K(A, X) in blocks of at most blockRows rows (0 means a block of about
// 64 MiB) so memory stays bounded.
func (m *KernelMachine) PredictFunc(dst []float64, kf KernelFunc, a, x linalg.Matrix[float64], blockRows int) error {
	if x.Rows != len(m.Alpha) {
		return inputErr("%d training inputs for a machine of %d points", x.Rows, len(m.Alpha))
	}
	if a.Cols != x.Cols {
		return inputErr("inputs have %d features, training inputs %d", a.Cols, x.Cols)
	}
	if len(dst) != a.Rows {
		return inputErr("%d predictions for %d inputs", len(dst), a.Rows)
	}
	if blockRows <= 0 {
		blockRows = max(1, (64<<20)/8/max(1, x.Rows))
	}
	for i0 := 0; i0 < a.Rows; i0 += blockRows {
		i1 := min(a.Rows, i0+blockRows)
		k := linalg.New[float64](i1-i0, x.Rows)
		if err := kf(k, a.Slice(i0, i1, 0, a.Cols), x); err != nil {
			return err
		}
		if err := m.Predict(dst[i0:i1], NewDense(k)); err != nil {
			return err
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
