package svm

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// observeRun trains a network of width m by a NetworkStepper with cfg under
// RunObserved, with an Extractor configured by ExtractConfigFor (its
// Target replaced by target if ≥ 0), and returns the last report.
func observeRun(t *testing.T, cfg NetworkConfig, m int, bias float64, stream *BatchStream, rule Quadrature, target int) *ExtractReport {
	t.Helper()
	x, y, xt := extractData(3, 12, 5, 4)
	net, err := ntk.NewNetwork[float64](x.Cols, m, 1, 1, bias, 8)
	if err != nil {
		t.Fatal(err)
	}
	ec, err := ExtractConfigFor(cfg, m)
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
	s, err := NewNetworkStepper(net, x, y, xt, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var calls int
	each := func(k int, tm float64) error {
		if k != calls {
			return fmt.Errorf("step %d, want %d", k, calls)
		}
		calls++
		return nil
	}
	const eta, steps = 0.01, 200
	if err := RunObserved(context.Background(), s, stream, eta, steps, []NetworkObserver[float64]{e}, each); err != nil {
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

// TestRunObservedModes wires NetworkStepper, RunObserved and Extractor for
// every regularisation mode (ExtractConfigFor) and checks that the kernel
// machine K_T a + b equals the network to GD's O(η) on a tiny problem,
// with f₀ subtracted or kept, and with biases under RegTheory (its penalty
// decays them). For RegTheory it also shows that the linearisation
// residual the Extractor integrates into b is needed (the last-layer drift
// alone misses) and that it shrinks with the width.
func TestRunObservedModes(t *testing.T) {
	// GD's O(η) error against the trapezoid rule: the sum objective on 12
	// points makes η = 0.01 a long step (at η = 0.005 it halves).
	const tol = 1.5e-2
	for _, reg := range []Regularization{RegPaper, RegTheory, RegLastLayer, RegNone} {
		for _, keep := range []bool{false, true} {
			cfg := NetworkConfig{Loss: Logistic, Objective: Sum, Lambda: 0.5, Reg: reg, KeepF0: keep}
			r := observeRun(t, cfg, 256, 0, nil, Trapezoid, -1)
			t.Logf("%v keepF0=%v: max|NN − KM| train %.2e test %.2e, run-dependent b %.2e", reg, keep, r.TrainMaxAbs, r.TestMaxAbs, r.DriftMaxAbs)
			if !(r.TrainMaxAbs < tol && r.TestMaxAbs < tol) {
				t.Errorf("%v keepF0=%v: max|NN − KM| = %.3g, %.3g", reg, keep, r.TrainMaxAbs, r.TestMaxAbs)
			}
		}
	}
	cfg := NetworkConfig{Loss: Squared, Objective: Mean, Lambda: 1, Reg: RegTheory}
	r := observeRun(t, cfg, 256, 0.5, nil, Trapezoid, -1)
	if !(r.TrainMaxAbs < tol && r.TestMaxAbs < tol) {
		t.Errorf("theory with biases: max|NN − KM| = %.3g, %.3g", r.TrainMaxAbs, r.TestMaxAbs)
	}
	cfg = NetworkConfig{Loss: Logistic, Objective: Sum, Lambda: 0.5, Reg: RegTheory}
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

// TestRunObservedMinibatch: with a BatchStream, each observation gets the
// batch of the next update, so the Left rule follows SGD to O(η), for the
// sum objective (scale n/|B|) as for the mean.
func TestRunObservedMinibatch(t *testing.T) {
	for _, obj := range []Objective{Sum, Mean} {
		bs, err := NewBatchStream(12, 4, 3)
		if err != nil {
			t.Fatal(err)
		}
		cfg := NetworkConfig{Loss: Logistic, Objective: obj, Lambda: 0.1, Reg: RegPaper, Batch: 4}
		r := observeRun(t, cfg, 256, 0, bs, Left, -1)
		t.Logf("%v: max|NN − KM| train %.2e test %.2e", obj, r.TrainMaxAbs, r.TestMaxAbs)
		// The sum's steps are n/|B| = 3 times longer: GD's O(η) error too.
		if !(r.TrainMaxAbs < 2e-2) {
			t.Errorf("%v: max|NN − KM| = %.3g", obj, r.TrainMaxAbs)
		}
	}
}

// TestRunObservedErrors: bad arguments, a cancelled context and a failing
// hook give errors.
func TestRunObservedErrors(t *testing.T) {
	x, y, _ := extractData(3, 6, 0, 2)
	net, _ := ntk.NewNetwork[float64](2, 8, 1, 1, 0, 1)
	s, err := NewNetworkStepper(net, x, y, linalg.Matrix[float64]{}, NetworkConfig{Loss: Hinge, Reg: RegNone})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := RunObserved[float64](ctx, nil, nil, 0.1, 1, nil, nil); !errors.Is(err, ErrInput) {
		t.Errorf("nil stepper: %v", err)
	}
	bs, _ := NewBatchStream(5, 2, 1)
	if err := RunObserved(ctx, s, bs, 0.1, 1, nil, nil); !errors.Is(err, ErrInput) {
		t.Errorf("stream of another size: %v", err)
	}
	if err := RunObserved(ctx, s, nil, -1, 1, nil, nil); !errors.Is(err, ErrInput) {
		t.Errorf("negative step: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := RunObserved(cctx, s, nil, 0.1, 1, nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	stop := errors.New("stop")
	if err := RunObserved(ctx, s, nil, 0.1, 3, nil, func(k int, _ float64) error {
		if k == 2 {
			return stop
		}
		return nil
	}); err != stop {
		t.Errorf("hook error: %v", err)
	}
	if _, err := ExtractConfigFor(NetworkConfig{Loss: Hinge, Reg: Regularization(9)}, 4); !errors.Is(err, ErrInput) {
		t.Errorf("bad mode: %v", err)
	}
	if _, err := ExtractConfigFor(NetworkConfig{Loss: Hinge}, 0); !errors.Is(err, ErrInput) {
		t.Errorf("width 0: %v", err)
	}
}
