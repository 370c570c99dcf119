package extract

import (
	"fmt"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/network"
	"github.com/ntksvm/ntksvm/svm/train"
)

func inputErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", svm.ErrInput, fmt.Sprintf(format, args...))
}

// ConfigFor returns the Config of Theorem 4.1 for a network of
// width m trained by a network.Stepper with cfg: the same loss and
// objective, SubtractInit unless KeepF0, and the function-space decay of
// the penalty (see DecayRate):
//
//	network.RegPaper:     Decay λ/m, DecayToZero (exact: f is linear in W_last)
//	network.RegTheory:    Decay λ,   DecayToInitAll (exact: the O(1/√m) linearisation
//	              residual ρ_t is computed and integrated into b)
//	network.RegLastLayer: Decay λ,   DecayToInit (exact: the hidden features' drift
//	              seen through W_last,0 is integrated into b)
//	network.RegNone:      Decay 0
//
// The quadrature is the trapezoid rule; set Rule to Left for a minibatch
// run. It returns an error wrapping svm.ErrInput for an invalid cfg or width.
func ConfigFor(cfg network.Config, width int) (Config, error) {
	ec := Config{Loss: cfg.Loss, Objective: cfg.Objective, SubtractInit: !cfg.KeepF0}
	switch {
	case !cfg.Loss.Valid():
		return ec, inputErr("invalid loss %v", cfg.Loss)
	case cfg.Objective > svm.ObjectiveMean:
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
	case network.RegPaper:
		ec.Target = DecayToZero
	case network.RegTheory:
		ec.Target = DecayToInitAll
	case network.RegLastLayer:
		ec.Target = DecayToInit
	}
	return ec, nil
}

// Watch returns the train.Observer that shows the network trained by s to
// the extractor: a Driver running s with it among its Observers calls
// Observe with s's network at t = 0 before the first update and after
// every update, with the batch of the next update (nil for the full
// batch). The Driver must run s with a constant step for the Trapezoid
// rule's intervals to be the steps' (the time is the Driver's t = Σ η).
func (e *Extractor[T]) Watch(s *network.Stepper[T]) train.Observer {
	return watcher[T]{e: e, s: s}
}

// watcher is the Observer Watch returns.
type watcher[T linalg.Float] struct {
	e *Extractor[T]
	s *network.Stepper[T]
}

func (w watcher[T]) Observe(step int, t float64, next []int) error {
	if w.s == nil {
		return inputErr("watching a nil network stepper")
	}
	return w.e.Observe(w.s.Network(), t, next)
}
