package svm

import (
	"context"
	"fmt"

	"github.com/ntksvm/ntksvm/linalg"
)

// ExtractConfigFor returns the ExtractConfig of Theorem 4.1 for a network of
// width m trained by a NetworkStepper with cfg: the same loss and
// objective, SubtractInit unless KeepF0, and the function-space decay of
// the penalty (see DecayRate):
//
//	RegPaper:     Decay λ/m, DecayToZero (exact: f is linear in W_last)
//	RegTheory:    Decay λ,   DecayToInitAll (exact: the O(1/√m) linearisation
//	              residual ρ_t is computed and integrated into b)
//	RegLastLayer: Decay λ,   DecayToInit (exact: the hidden features' drift
//	              seen through W_last,0 is integrated into b)
//	RegNone:      Decay 0
//
// The quadrature is the trapezoid rule; set Rule to Left for a minibatch
// run. It returns an error wrapping ErrInput for an invalid cfg or width.
func ExtractConfigFor(cfg NetworkConfig, width int) (ExtractConfig, error) {
	ec := ExtractConfig{Loss: cfg.Loss, Objective: cfg.Objective, SubtractInit: !cfg.KeepF0}
	switch {
	case !cfg.Loss.Valid():
		return ec, inputErr("invalid loss %v", cfg.Loss)
	case cfg.Objective > Mean:
		return ec, inputErr("invalid objective %d", cfg.Objective)
	case width < 1:
		return ec, inputErr("width %d < 1", width)
	}
	rate, err := DecayRate(cfg.Reg.String(), cfg.Lambda, width)
	if err != nil {
		return ec, err
	}
	ec.Decay = rate
	switch cfg.Reg {
	case RegPaper:
		ec.Target = DecayToZero
	case RegTheory:
		ec.Target = DecayToInitAll
	case RegLastLayer:
		ec.Target = DecayToInit
	}
	return ec, nil
}

// RunObserved trains s for steps updates of the constant step eta and shows
// the run to the observers (an Extractor, say): every observer's Observe is
// called with the network at t = 0 before the first update, then after
// every update k at t = Σ η = k·η (summed as a Driver sums it), each time
// with the batch of the next update from that state (nil for the full
// batch). The batches come from stream, or are the full batch 0…n−1 when
// stream is nil; a stream is drawn one batch past the run (the batch of
// the update that would come next, which the last observation is given).
// After the observers, each (if not nil) is called with the number of
// updates done and t, at t = 0 too; its error stops the run and is
// returned as is. Observations share nothing with the steps: the network
// is read between updates only.
//
// It returns ctx's error (wrapped) when ctx is done before an update, and
// the first error of a step or an observer, naming the step.
func RunObserved[T linalg.Float](ctx context.Context, s *NetworkStepper[T], stream *BatchStream, eta float64, steps int, obs []NetworkObserver[T], each func(step int, t float64) error) error {
	if s == nil || steps < 0 {
		return inputErr("nil stepper or %d steps", steps)
	}
	n := s.x.Rows
	if stream != nil && stream.n != n {
		return inputErr("the stream has %d indices, the stepper %d training points", stream.n, n)
	}
	var full []int
	next := func(dst []int) []int {
		if stream == nil {
			return nil
		}
		b, _ := stream.Next()
		return append(dst[:0], b...)
	}
	if stream == nil {
		full = make([]int, n)
		for i := range full {
			full[i] = i
		}
	}
	cur, upcoming := next(nil), []int(nil)
	t := 0.0
	observe := func(k int, batch []int) error {
		for _, o := range obs {
			if err := o.Observe(s.net, t, batch); err != nil {
				return fmt.Errorf("svm: observing the network after %d updates: %w", k, err)
			}
		}
		if each != nil {
			return each(k, t)
		}
		return nil
	}
	if err := observe(0, cur); err != nil {
		return err
	}
	for k := 1; k <= steps; k++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("svm: network run stopped before update %d: %w", k, err)
		}
		batch := cur
		if stream == nil {
			batch = full
		}
		if err := s.Step(batch, eta); err != nil {
			return err
		}
		t = float64(k) * eta
		upcoming = next(upcoming)
		cur, upcoming = upcoming, cur
		if err := observe(k, cur); err != nil {
			return err
		}
	}
	return nil
}
