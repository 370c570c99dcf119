package experiment

import (
	"fmt"

	"github.com/ntksvm/ntksvm/linalg"
)

// Data is the data of an experiment (equiv, genbound, reproduce):
// training and test points, one per row, with their ±1 targets.
type Data struct {
	Name  string
	X     linalg.Matrix[float64]
	Y     []float64
	XTest linalg.Matrix[float64]
	YTest []float64
}

// First checks the shapes of e and returns its first nTrain training and
// nTest test points (0: all of them), sharing e's storage. It returns an
// error naming the problem for no training points, targets that do not
// match the points, test points of another dimension, or more points asked
// for than e has.
func (e *Data) First(nTrain, nTest int) (*Data, error) {
	switch {
	case e == nil || e.X.Rows == 0:
		return nil, fmt.Errorf("no training data")
	case len(e.Y) != e.X.Rows || len(e.YTest) != e.XTest.Rows:
		return nil, fmt.Errorf("%d training targets for %d points, %d test targets for %d points", len(e.Y), e.X.Rows, len(e.YTest), e.XTest.Rows)
	case e.XTest.Rows > 0 && e.XTest.Cols != e.X.Cols:
		return nil, fmt.Errorf("test points have %d features, training points %d", e.XTest.Cols, e.X.Cols)
	case nTrain < 0 || nTrain > e.X.Rows:
		return nil, fmt.Errorf("n-train %d: the data has %d training points", nTrain, e.X.Rows)
	case nTest < 0 || nTest > e.XTest.Rows:
		return nil, fmt.Errorf("n-test %d: the data has %d test points", nTest, e.XTest.Rows)
	}
	sub := *e
	if nTrain > 0 {
		sub.X, sub.Y = e.X.Slice(0, nTrain, 0, e.X.Cols), e.Y[:nTrain]
	}
	if nTest > 0 {
		sub.XTest, sub.YTest = e.XTest.Slice(0, nTest, 0, e.XTest.Cols), e.YTest[:nTest]
	}
	return &sub, nil
}
