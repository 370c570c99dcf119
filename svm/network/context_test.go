package network

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/train"
)

// TestStepContextAbandoned cancels steps at spread-out moments (before the
// step, during the forward pass, during the backward products) and checks
// that a step either runs to its end, bitwise as Step, or returns ctx's
// error with the stepper's state exactly as before, so that the run
// continued afterwards is bitwise the uninterrupted one. An evaluation
// cancelled midway leaves the next one as it would have been.
func TestStepContextAbandoned(t *testing.T) {
	for _, reg := range []Regularization{RegPaper, RegTheory} {
		testStepContextAbandoned(t, reg)
	}
}

func testStepContextAbandoned(t *testing.T, reg Regularization) {
	rng := rand.New(rand.NewPCG(11, 12))
	const d, m, n, steps = 40, 640, 96, 6
	xf, y := netData(rng, n, d, svm.Hinge)
	x := to32(xf)
	cfg := Config{Loss: svm.Hinge, Lambda: 0.05, Objective: svm.ObjectiveMean, Reg: reg}
	build := func() *Stepper[float32] {
		s, err := NewStepper(mustNet[float32](t, d, m, 2, 1, 0, 5), x, y, x, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	state := func(s *Stepper[float32]) []byte {
		var b bytes.Buffer
		if err := s.SaveState(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	const eta = 0.5
	ref := build()
	refs := [][]byte{state(ref)}
	t0 := time.Now()
	for range steps {
		if err := ref.Step(all, eta); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, state(ref))
	}
	per := time.Since(t0) / steps
	evRef, err := ref.Evaluate()
	if err != nil {
		t.Fatal(err)
	}

	s := build()
	abandoned, completed := 0, 0
	for k := 1; k <= steps; k++ {
		for _, frac := range []float64{0, 0.1, 0.3, 0.6, 2} {
			ctx, cancel := context.WithCancel(context.Background())
			if frac == 0 {
				cancel()
			} else {
				time.AfterFunc(time.Duration(frac*float64(per)), cancel)
			}
			err := s.StepContext(ctx, all, eta)
			cancel()
			if err == nil {
				completed++
				if !bytes.Equal(state(s), refs[k]) {
					t.Fatalf("%v: step %d run to its end (cancel at %.1f of a step) differs from Step", reg, k, frac)
				}
				break
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%v: step %d: %v, want ctx's error", reg, k, err)
			}
			abandoned++
			if !bytes.Equal(state(s), refs[k-1]) {
				t.Fatalf("%v: step %d abandoned (cancel at %.1f of a step) changed the stepper", reg, k, frac)
			}
		}
		if s.Steps() != k {
			if err := s.Step(all, eta); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.EvaluateContext(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("%v: evaluation on a cancelled context: %v", reg, err)
	}
	ev, err := s.Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	if !bitsEqual(ev.Train, evRef.Train) || !bitsEqual(ev.Test, evRef.Test) || ev.Objective != evRef.Objective {
		t.Errorf("%v: the evaluation after interrupted steps differs from the uninterrupted run's", reg)
	}
	t.Logf("%v: %d attempts abandoned, %d run to their end (a step takes %v)", reg, abandoned, completed, per)
	if abandoned <= steps { // the pre-cancelled attempts alone
		t.Errorf("%v: no step was abandoned midway (%d abandoned in %d steps)", reg, abandoned, steps)
	}
}

// TestDriverResumesAbandonedStep runs a network under a train.Driver on
// minibatches, evaluating every step, and cancels it at spread-out
// moments: the Interrupted checkpoint, loaded into a fresh driver, ends
// the run with the uninterrupted run's weights and evaluations, bit for
// bit, once the evaluations recorded after the checkpoint's step are
// dropped (the resumed run repeats them).
func TestDriverResumesAbandonedStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const d, m, n, batch, steps = 30, 512, 80, 40, 8
	xf, y := netData(rng, n, d, svm.Hinge)
	x := to32(xf)
	cfg := Config{Loss: svm.Hinge, Lambda: 0.05, Objective: svm.ObjectiveMean, Reg: RegPaper, Batch: batch}
	type evalRec struct {
		step int
		obj  float64
	}
	newDriver := func() (*train.Driver, *Stepper[float32], *[]evalRec, *[]byte) {
		s, err := NewStepper(mustNet[float32](t, d, m, 2, 1, 0, 9), x, y, x, cfg)
		if err != nil {
			t.Fatal(err)
		}
		stream, err := train.NewBatchStream(n, batch, 4)
		if err != nil {
			t.Fatal(err)
		}
		evals, ckpt := new([]evalRec), new([]byte)
		dr := &train.Driver{Steppers: []train.Stepper{s}, Stream: stream, Steps: steps, LR: 0.5, LogAt: train.LogSteps(steps, steps)}
		dr.Recorder = train.RecorderFunc(func(r *train.Record) error {
			switch r.Event {
			case train.Evaluated:
				*evals = append(*evals, evalRec{r.Step, r.Evals[0].Objective})
			case train.Interrupted:
				*evals = slices.DeleteFunc(*evals, func(e evalRec) bool { return e.step > r.Step })
				var b bytes.Buffer
				if err := r.Save(&b); err != nil {
					return err
				}
				*ckpt = b.Bytes()
			}
			return nil
		})
		return dr, s, evals, ckpt
	}
	ref, refS, refEvals, _ := newDriver()
	t0 := time.Now()
	if _, err := ref.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	per := time.Since(t0) / steps
	want := state32(t, refS)
	midway := 0
	for _, frac := range []float64{0.5, 2.3, 3.7, 5.2, 6.9} {
		dr, _, evals, ckpt := newDriver()
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(time.Duration(frac*float64(per)), cancel)
		_, err := dr.Run(ctx)
		cancel()
		if err == nil {
			continue // finished first
		}
		if !errors.Is(err, context.Canceled) || *ckpt == nil {
			t.Fatalf("cancelled at %.1f steps: %v (checkpoint %d bytes)", frac, err, len(*ckpt))
		}
		if strings.Contains(err.Error(), "network step") {
			midway++
		}
		resumed, s2, _, _ := newDriver()
		if err := resumed.LoadState(bytes.NewReader(*ckpt)); err != nil {
			t.Fatal(err)
		}
		resumed.Recorder = train.RecorderFunc(func(r *train.Record) error {
			if r.Event == train.Evaluated {
				*evals = append(*evals, evalRec{r.Step, r.Evals[0].Objective})
			}
			return nil
		})
		if _, err := resumed.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(state32(t, s2), want) {
			t.Errorf("cancelled at %.1f steps (%v): the resumed run's weights differ from the uninterrupted run's", frac, err)
		}
		if !slices.Equal(*evals, *refEvals) {
			t.Errorf("cancelled at %.1f steps: evaluations %v, want %v", frac, *evals, *refEvals)
		}
	}
	t.Logf("%d of 5 runs stopped within a step (a step and its evaluation take %v)", midway, per)
}

func state32(t *testing.T, s *Stepper[float32]) []byte {
	var b bytes.Buffer
	if err := s.SaveState(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
