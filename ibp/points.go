package ibp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// PointSelection chooses the points of a certifier to certify (paper
// Table 2 certifies the correctly classified points of a random subset).
type PointSelection struct {
	N           int    // a random subset of N points drawn with Seed; 0 or ≥ Len: all
	Seed        uint64 // seed of the subset
	CorrectOnly bool   // keep only the points whose output has the sign of their label
}

// SelectPoints returns the indices, increasing, of c's points that s
// selects: the subset first, then the correctly classified ones (an output
// of 0 counts as wrong). It also returns the accuracy of the outputs over
// all points against the labels y (±1 in the paper's task), NaN when y is
// nil. It returns an error if CorrectOnly is set without labels, if y does
// not have one label per point, or if no point is left.
func SelectPoints(c Certifier, y []float64, s PointSelection) ([]int, float64, error) {
	n := c.Len()
	acc := math.NaN()
	switch {
	case y == nil && s.CorrectOnly:
		return nil, 0, errors.New("selecting the correctly classified points needs labels")
	case y != nil && len(y) != n:
		return nil, 0, fmt.Errorf("%d labels for %d points", len(y), n)
	case s.N < 0:
		return nil, 0, fmt.Errorf("subset of %d points: want ≥ 0", s.N)
	}
	if y != nil {
		right := 0
		for i := range n {
			if correct(c.Output(i), y[i]) {
				right++
			}
		}
		acc = float64(right) / float64(n)
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	if s.N > 0 && s.N < n {
		rng := rand.New(rand.NewPCG(s.Seed, 0xce27))
		rng.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		idx = idx[:s.N]
		slices.Sort(idx)
	}
	if s.CorrectOnly {
		idx = slices.DeleteFunc(idx, func(i int) bool { return !correct(c.Output(i), y[i]) })
	}
	if len(idx) == 0 {
		return nil, 0, errors.New("no points to certify")
	}
	return idx, acc, nil
}

// correct reports whether the output's sign is the label's (0 is wrong).
func correct(out, y float64) bool { return out*y > 0 }
