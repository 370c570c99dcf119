package extract

import (
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/network"
	"github.com/ntksvm/ntksvm/svm/train"

	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// observerFunc is a function used as a train.Observer.
type observerFunc func(step int, t float64, next []int) error

func (f observerFunc) Observe(step int, t float64, next []int) error { return f(step, t, next) }

// observeRun trains a network of width m by a network.Stepper with cfg on a
// train.Driver, watched by an Extractor (Extractor.Watch) configured by
// ConfigFor (its an Extractor configured by ConfigFor (its Target
// replaced by target if ≥ 0), and returns the last report.
func observeRun(t *testing.T, cfg network.Config, m int, bias float64, stream *train.BatchStream, rule Quadrature, target int) *Report {
	t.Helper()
	x, y, xt := extractData(3, 12, 5, 4)
	net, err := ntk.NewNetwork[float64](x.Cols, m, 1, 1, bias, 8)
	if err != nil {
		t.Fatal(err)
	}
	ec, err := ConfigFor(cfg, m)
	if err != nil {
		t.Fatal(err)
	}
	ec.Rule = rule
	if target >= 0 {
		ec.Target = DecayTarget(target)
	}
	e, err := NewExtractor(x, y, xt, ec)
	if err != nil {
		t.Fatal(err)
	}
	s, err := network.NewStepper(net, x, y, xt, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var calls int
	each := observerFunc(func(k int, tm float64, _ []int) error {
		if k != calls {
			return fmt.Errorf("step %d, want %d", k, calls)
		}
		calls++
		return nil
	})
	const eta, steps = 0.01, 200
	d := &train.Driver{Steppers: []train.Stepper{s}, Observers: []train.Observer{e.Watch(s), each}, Stream: stream, Steps: steps, LR: eta}
	if stream == nil {
		d.N = x.Rows
	}
	if _, err := d.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if calls != steps+1 {
		t.Fatalf("each called %d times, want %d", calls, steps+1)
	}
	r, err := e.Report()
	if err != nil {
		t.Fatal(err)
	}
	if d := r.T - steps*eta; d > 1e-12 || d < -1e-12 {
		t.Errorf("T = %v, want %v", r.T, steps*eta)
	}
	// The Extractor sees what the stepper reports.
	ev, err := s.Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := extractDiff(ev.Train, r.TrainNN); d > 1e-12 {
		t.Errorf("the Extractor's outputs differ from the stepper's by %.3g", d)
	}
	return r
}

// TestWatchModes wires network.Stepper, Driver and Extractor for
// every regularisation mode (ConfigFor) and checks that the kernel
// machine K_T a + b equals the network to GD's O(η) on a tiny problem,
// with f₀ subtracted or kept, and with biases under network.RegTheory (its penalty
// decays them). For network.RegTheory it also shows that the linearisation
// residual the Extractor integrates into b is needed (the last-layer drift
// alone misses) and that it shrinks with the width.
func TestWatchModes(t *testing.T) {
	// GD's O(η) error against the trapezoid rule: the sum objective on 12
	// points makes η = 0.01 a long step (at η = 0.005 it halves).
	const tol = 1.5e-2
	for _, reg := range []network.Regularization{network.RegPaper, network.RegTheory, network.RegLastLayer, network.RegNone} {
		for _, keep := range []bool{false, true} {
			cfg := network.Config{Loss: svm.Logistic, Objective: svm.ObjectiveSum, Lambda: 0.5, Reg: reg, KeepF0: keep}
			r := observeRun(t, cfg, 256, 0, nil, Trapezoid, -1)
			t.Logf("%v keepF0=%v: max|NN − KM| train %.2e test %.2e, run-dependent b %.2e", reg, keep, r.TrainMaxAbs, r.TestMaxAbs, r.DriftMaxAbs)
			if !(r.TrainMaxAbs < tol && r.TestMaxAbs < tol) {
				t.Errorf("%v keepF0=%v: max|NN − KM| = %.3g, %.3g", reg, keep, r.TrainMaxAbs, r.TestMaxAbs)
			}
		}
	}
	cfg := network.Config{Loss: svm.Squared, Objective: svm.ObjectiveMean, Lambda: 1, Reg: network.RegTheory}
	r := observeRun(t, cfg, 256, 0.5, nil, Trapezoid, -1)
	if !(r.TrainMaxAbs < tol && r.TestMaxAbs < tol) {
		t.Errorf("theory with biases: max|NN − KM| = %.3g, %.3g", r.TrainMaxAbs, r.TestMaxAbs)
	}
	cfg = network.Config{Loss: svm.Logistic, Objective: svm.ObjectiveSum, Lambda: 0.5, Reg: network.RegTheory}
	wrong := observeRun(t, cfg, 256, 0, nil, Trapezoid, int(DecayToInit))
	if wrong.TrainMaxAbs < 10*tol {
		t.Errorf("theory mode with the last-layer drift only: max|NN − KM| = %.3g; the test does not tell the targets apart", wrong.TrainMaxAbs)
	}
	narrow := observeRun(t, cfg, 32, 0, nil, Trapezoid, -1)
	wide := observeRun(t, cfg, 2048, 0, nil, Trapezoid, -1)
	t.Logf("theory: run-dependent b %.2e at m = 32, %.2e at m = 2048; last-layer drift alone misses by %.2e", narrow.DriftMaxAbs, wide.DriftMaxAbs, wrong.TrainMaxAbs)
	if !(wide.DriftMaxAbs < narrow.DriftMaxAbs/2) {
		t.Errorf("the linearisation residual does not shrink with width: %.3g → %.3g", narrow.DriftMaxAbs, wide.DriftMaxAbs)
	}
}

// TestWatchMinibatch: with a train.BatchStream, each observation gets the
// batch of the next update, so the Left rule follows SGD to O(η), for the
// sum objective (scale n/|B|) as for the mean.
func TestWatchMinibatch(t *testing.T) {
	for _, obj := range []svm.Objective{svm.ObjectiveSum, svm.ObjectiveMean} {
		bs, err := train.NewBatchStream(12, 4, 3)
		if err != nil {
			t.Fatal(err)
		}
		cfg := network.Config{Loss: svm.Logistic, Objective: obj, Lambda: 0.1, Reg: network.RegPaper, Batch: 4}
		r := observeRun(t, cfg, 256, 0, bs, Left, -1)
		t.Logf("%v: max|NN − KM| train %.2e test %.2e", obj, r.TrainMaxAbs, r.TestMaxAbs)
		// The sum's steps are n/|B| = 3 times longer: GD's O(η) error too.
		if !(r.TrainMaxAbs < 2e-2) {
			t.Errorf("%v: max|NN − KM| = %.3g", obj, r.TrainMaxAbs)
		}
	}
}

// TestWatchErrors: a bad driver, a cancelled context and a failing
// observer give errors.
func TestWatchErrors(t *testing.T) {
	x, y, _ := extractData(3, 6, 0, 2)
	net, _ := ntk.NewNetwork[float64](2, 8, 1, 1, 0, 1)
	s, err := network.NewStepper(net, x, y, linalg.Matrix[float64]{}, network.Config{Loss: svm.Hinge, Reg: network.RegNone})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run := func(ctx context.Context, st *network.Stepper[float64], stream *train.BatchStream, eta float64, steps int, obs ...train.Observer) error {
		e, err := NewExtractor(x, y, linalg.Matrix[float64]{}, Config{Loss: svm.Hinge})
		if err != nil {
			t.Fatal(err)
		}
		d := &train.Driver{Steppers: []train.Stepper{s}, Observers: append([]train.Observer{e.Watch(st)}, obs...), Stream: stream, Steps: steps, LR: eta}
		if stream == nil {
			d.N = x.Rows
		}
		_, err = d.Run(ctx)
		return err
	}
	if err := run(ctx, nil, nil, 0.1, 1); !errors.Is(err, svm.ErrInput) {
		t.Errorf("nil stepper: %v", err)
	}
	bs, _ := train.NewBatchStream(5, 2, 1)
	if err := run(ctx, s, bs, 0.1, 1); !errors.Is(err, svm.ErrInput) {
		t.Errorf("stream of another size: %v", err)
	}
	if err := run(ctx, s, nil, -1, 1); !errors.Is(err, svm.ErrInput) {
		t.Errorf("negative step: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := run(cctx, s, nil, 0.1, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	stop := errors.New("stop")
	if err := run(ctx, s, nil, 0.1, 3, observerFunc(func(k int, _ float64, _ []int) error {
		if k == 2 {
			return stop
		}
		return nil
	})); !errors.Is(err, stop) {
		t.Errorf("observer error: %v", err)
	}
	if _, err := ConfigFor(network.Config{Loss: svm.Hinge, Reg: network.Regularization(9)}, 4); !errors.Is(err, svm.ErrInput) {
		t.Errorf("bad mode: %v", err)
	}
	if _, err := ConfigFor(network.Config{Loss: svm.Hinge}, 0); !errors.Is(err, svm.ErrInput) {
		t.Errorf("width 0: %v", err)
	}
}
