package svm

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
)

// ObjectiveStepper is a Stepper that computes its training objective
// (Eval.Objective) without a full Evaluate. The Driver's early stop uses
// it when the watched stepper implements it, and Evaluate otherwise.
type ObjectiveStepper interface {
	Stepper
	Objective() (float64, error)
}

// trainSizer is implemented by steppers that know the size of their
// training set (KernelStepper.TrainSize); the Driver checks it against the
// indices its batches cover.
type trainSizer interface{ TrainSize() int }

// CheckpointFunc receives a checkpoint of a Driver after step updates:
// write writes it (Driver.SaveState) to w, and the function decides where
// it goes, e.g. a file replaced atomically. An error stops training and
// is returned by Run.
type CheckpointFunc func(step int, write func(w io.Writer) error) error

// Driver runs one or more Steppers in lockstep: it owns the batches (one
// BatchStream, or the full batch 0…N−1 in order), the step size schedule,
// the time t = Σ η, the evaluations, early stopping, cancellation and
// checkpoints (reverse communication, as gonum's optimize drives a Method:
// the steppers step and evaluate when asked, the driver decides when).
//
// Run does, for each step s = 1, 2, … up to TotalSteps:
//
//  1. if ctx is done: write a checkpoint (if Checkpoint is set) and return
//     ctx's error, wrapped;
//  2. ηₛ = LR, or 1/(PegasosLambda·s); tₛ = s·LR, or tₛ₋₁ + ηₛ;
//  3. if s is in LogAt and Log is set: Evaluate every stepper, in order,
//     then Log(s, tₛ, epoch of step s's batch, evals): the evaluation at a
//     step comes before that step's update, so step 1 is the initial state
//     (as train_sgd.py logs at its step_test steps);
//  4. draw step s's batch and call Step(batch, ηₛ) on every stepper, in
//     order, with the same slice;
//  5. with Tol > 0, at the end of each epoch (every step for full batch):
//     stop if the objective of Steppers[TolStepper] changed by at most
//     Tol·max(|objective|, 1) since the previous check;
//  6. with CheckpointEvery > 0, every CheckpointEvery steps: checkpoint.
//
// A Driver's position (steps done, t, the stream, the early-stop state)
// persists across calls: Run continues where the last Run stopped, and
// LoadState puts the driver and its steppers where a checkpoint left them,
// so that the continued run is bit-identical to an uninterrupted one.
// Configure the fields before the first Run, SaveState or LoadState;
// TotalSteps (Steps or Epochs), LogAt, Log, Tol and the checkpoint fields
// may change between runs, the rest may not.
type Driver struct {
	// Steppers are the trainers, stepped in this order on the same batches.
	Steppers []Stepper
	// Stream supplies the minibatches; nil means full batch: every step is
	// handed 0…N−1 in order.
	Stream *BatchStream
	// N is the number of training points: required for full batch, and 0
	// or the Stream's n otherwise. Steppers with a method TrainSize() int
	// (KernelStepper has one) must report the same n.
	N int

	// Steps is the number of updates; alternatively Epochs gives
	// Epochs·StepsPerEpoch() of them. Set exactly one.
	Steps, Epochs int
	// LR is the constant step η > 0. PegasosLambda > 0 replaces it with the
	// step ηₜ = 1/(λt) of kernelized Pegasos (paper App. A.1) with
	// λ = PegasosLambda.
	LR, PegasosLambda float64

	// LogAt lists the steps (1-based, ascending; see LogSteps) at which the
	// steppers are evaluated and Log is called with the step, t (Σ η up to
	// and including this step's η), the epoch (from 0) of the step's batch
	// (step − 1 for full batch: one epoch per step) and evals[i], the Eval
	// of Steppers[i], valid during the call only. An error from Log stops
	// training and is returned by Run as is; the driver is then still
	// before that step's update.
	LogAt []int
	Log   func(step int, t float64, epoch int, evals []*Eval) error

	// Tol > 0 stops early when the objective of Steppers[TolStepper]
	// (from ObjectiveStepper.Objective if it has one, else from Evaluate)
	// changes by at most Tol·max(|objective|, 1) between two checks, one
	// after the last step of each epoch (every step for full batch).
	Tol        float64
	TolStepper int

	// Checkpoint, if set, receives a checkpoint every CheckpointEvery
	// steps (0: never) and when ctx is done.
	Checkpoint      CheckpointFunc
	CheckpointEvery int

	// The position: what SaveState writes besides the steppers' states.
	step      int     // updates applied
	t         float64 // Σ η over them (step·LR for a constant step)
	havePrev  bool    // prevObj holds an early-stop check
	prevObj   float64 // the objective at the last check
	converged bool    // stopped by Tol

	all   []int // the full batch
	evals []*Eval
}

// RunStats is where a Driver stands.
type RunStats struct {
	Steps     int     // updates applied
	T         float64 // Σ η over them (Steps·LR for a constant step, without summation error)
	Converged bool    // stopped early by Tol
}

// Stats returns the driver's position.
func (d *Driver) Stats() RunStats {
	return RunStats{Steps: d.step, T: d.t, Converged: d.converged}
}

// StepsPerEpoch returns the Stream's ⌈n/B⌉, or 1 for full batch.
func (d *Driver) StepsPerEpoch() int {
	if d.Stream != nil {
		return d.Stream.StepsPerEpoch()
	}
	return 1
}

// TotalSteps returns Steps, or Epochs·StepsPerEpoch().
func (d *Driver) TotalSteps() int {
	if d.Steps > 0 {
		return d.Steps
	}
	return d.Epochs * d.StepsPerEpoch()
}

func (d *Driver) check() error {
	switch {
	case len(d.Steppers) == 0:
		return inputErr("driver without steppers")
	case slices.Contains(d.Steppers, nil):
		return inputErr("driver with a nil stepper")
	case d.Stream == nil && d.N < 1:
		return inputErr("full batch over N = %d points; want N ≥ 1", d.N)
	case d.Stream != nil && d.N != 0 && d.N != d.Stream.n:
		return inputErr("BatchStream is over %d indices, the driver's N is %d", d.Stream.n, d.N)
	case d.Steps < 0 || d.Epochs < 0 || (d.Steps > 0) == (d.Epochs > 0):
		return inputErr("steps = %d, epochs = %d; want exactly one ≥ 1", d.Steps, d.Epochs)
	case !(d.PegasosLambda >= 0) || math.IsInf(d.PegasosLambda, 0):
		return inputErr("Pegasos λ = %v; want a finite λ ≥ 0 (0: constant step)", d.PegasosLambda)
	case d.PegasosLambda == 0 && (!(d.LR > 0) || math.IsInf(d.LR, 0)):
		return inputErr("learning rate η = %v; want a finite η > 0", d.LR)
	case !slices.IsSorted(d.LogAt):
		return inputErr("log steps are not ascending")
	case d.Tol < 0 || math.IsNaN(d.Tol):
		return inputErr("tolerance %v; want ≥ 0", d.Tol)
	case d.TolStepper < 0 || d.TolStepper >= len(d.Steppers):
		return inputErr("early stop on stepper %d of %d", d.TolStepper, len(d.Steppers))
	case d.CheckpointEvery < 0:
		return inputErr("checkpoint every %d steps; want ≥ 0", d.CheckpointEvery)
	case d.CheckpointEvery > 0 && d.Checkpoint == nil:
		return inputErr("checkpoint every %d steps without a Checkpoint function", d.CheckpointEvery)
	}
	n := d.N
	if d.Stream != nil {
		n = d.Stream.n
	}
	for i, st := range d.Steppers {
		if s, ok := st.(trainSizer); ok && s.TrainSize() != n {
			return inputErr("stepper %d has %d training points, the driver's batches cover %d", i, s.TrainSize(), n)
		}
	}
	if d.Stream == nil && len(d.all) != d.N {
		d.all = make([]int, d.N)
		for i := range d.all {
			d.all[i] = i
		}
	}
	if len(d.evals) != len(d.Steppers) {
		d.evals = make([]*Eval, len(d.Steppers))
	}
	return nil
}

// eta returns the step size of step s.
func (d *Driver) eta(s int) float64 {
	if d.PegasosLambda > 0 {
		return 1 / (d.PegasosLambda * float64(s))
	}
	return d.LR
}

// Run trains from the driver's position to TotalSteps, unless early
// stopping has ended the run (see Driver for the order of the calls), and
// returns the position reached. When ctx is done
// it returns, before the next update, an error wrapping ctx.Err() (so
// errors.Is(err, context.Canceled) holds), after writing a checkpoint if
// Checkpoint is set. Configuration errors wrap ErrInput.
func (d *Driver) Run(ctx context.Context) (RunStats, error) {
	if err := d.check(); err != nil {
		return d.Stats(), err
	}
	total := d.TotalSteps()
	perEpoch := d.StepsPerEpoch()
	logPos := 0
	for !d.converged && d.step < total {
		s := d.step + 1
		if err := ctx.Err(); err != nil {
			err = fmt.Errorf("svm: training stopped before step %d: %w", s, err)
			if d.Checkpoint != nil {
				if cerr := d.Checkpoint(d.step, d.SaveState); cerr != nil {
					err = fmt.Errorf("%w (checkpoint not written: %w)", err, cerr)
				}
			}
			return d.Stats(), err
		}
		eta := d.eta(s)
		t := float64(s) * eta // a constant step: s·η, not a sum that drifts by ulps over 10⁵ steps
		if d.PegasosLambda > 0 {
			t = d.t + eta
		}
		epoch := s - 1
		if d.Stream != nil {
			epoch = d.Stream.nextEpoch()
		}
		for logPos < len(d.LogAt) && d.LogAt[logPos] < s {
			logPos++
		}
		if d.Log != nil && logPos < len(d.LogAt) && d.LogAt[logPos] == s {
			for i, st := range d.Steppers {
				ev, err := st.Evaluate()
				if err != nil {
					return d.Stats(), fmt.Errorf("svm: stepper %d: evaluation at step %d: %w", i, s, err)
				}
				d.evals[i] = ev
			}
			if err := d.Log(s, t, epoch, d.evals); err != nil {
				return d.Stats(), err
			}
		}
		batch := d.all
		if d.Stream != nil {
			batch, _ = d.Stream.Next()
		}
		for i, st := range d.Steppers {
			if err := st.Step(batch, eta); err != nil {
				return d.Stats(), fmt.Errorf("svm: stepper %d: step %d: %w", i, s, err)
			}
		}
		d.step, d.t = s, t
		if d.Tol > 0 && s%perEpoch == 0 {
			obj, err := d.objective()
			if err != nil {
				return d.Stats(), err
			}
			if d.havePrev && math.Abs(obj-d.prevObj) <= d.Tol*max(math.Abs(obj), 1) {
				d.converged = true
			} else {
				d.havePrev, d.prevObj = true, obj
			}
		}
		if d.CheckpointEvery > 0 && s%d.CheckpointEvery == 0 {
			if err := d.Checkpoint(s, d.SaveState); err != nil {
				return d.Stats(), fmt.Errorf("svm: checkpoint after step %d: %w", s, err)
			}
		}
	}
	return d.Stats(), nil
}

// objective returns the objective of the stepper early stopping watches.
func (d *Driver) objective() (float64, error) {
	st := d.Steppers[d.TolStepper]
	if o, ok := st.(ObjectiveStepper); ok {
		v, err := o.Objective()
		if err != nil {
			return 0, fmt.Errorf("svm: stepper %d: objective after step %d: %w", d.TolStepper, d.step, err)
		}
		return v, nil
	}
	ev, err := st.Evaluate()
	if err != nil {
		return 0, fmt.Errorf("svm: stepper %d: evaluation after step %d: %w", d.TolStepper, d.step, err)
	}
	return ev.Objective, nil
}

// A checkpoint is a frame with magic "NTKSVMCK" (see the frame layout in
// state.go) whose payload is (integers uint64, floats IEEE-754 bits,
// little-endian):
//
//	steps done; t; early stop: have-previous flag, previous objective,
//	converged flag; the schedule: LR, PegasosLambda;
//	N (full batch) or 0 and the BatchStream's state (length, bytes);
//	the number of steppers, then each stepper's state (length, bytes)

// SaveState writes a checkpoint of the driver's position and of every
// stepper's state (Stepper.SaveState) to w. It is what Checkpoint's write
// function does. Call it after Run returns to checkpoint a finished or
// stopped run yourself, or from Log, which runs before its step's update
// and batch: the checkpoint then resumes at that step.
func (d *Driver) SaveState(w io.Writer) error {
	if err := d.check(); err != nil {
		return err
	}
	var e enc
	e.int(d.step)
	e.f64(d.t)
	e.int(b2i(d.havePrev))
	e.f64(d.prevObj)
	e.int(b2i(d.converged))
	e.f64(d.LR)
	e.f64(d.PegasosLambda)
	if d.Stream == nil {
		e.int(d.N)
	} else {
		e.int(0)
		s, err := d.Stream.MarshalBinary()
		if err != nil {
			return err
		}
		e.bytes(s)
	}
	e.int(len(d.Steppers))
	var buf bytes.Buffer
	for i, st := range d.Steppers {
		buf.Reset()
		if err := st.SaveState(&buf); err != nil {
			return fmt.Errorf("svm: stepper %d: saving its state: %w", i, err)
		}
		e.bytes(buf.Bytes())
	}
	return writeFrame(w, driverMagic, e.b)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// LoadState restores the driver's position and every stepper's state from
// a checkpoint written by SaveState, so that Run continues bit-identically.
// The driver must have the same batches (full batch over the same N, or a
// stream of the same n and B; its state is replaced), the same schedule
// and the same number of steppers, each built as the saved one was. A
// checkpoint that is truncated, corrupted or does not match is rejected
// with an error wrapping ErrState that names the mismatch; the driver's
// position and stream are then left as they were, but the steppers before
// the one whose state failed to load have been restored already.
func (d *Driver) LoadState(r io.Reader) error {
	if err := d.check(); err != nil {
		return err
	}
	payload, err := readFrame(r, driverMagic)
	if err != nil {
		return err
	}
	dc := dec{b: payload, what: magicNames[driverMagic]}
	step, t := dc.int(), dc.f64()
	havePrev, prevObj, converged := dc.int(), dc.f64(), dc.int()
	lr, peg := dc.f64(), dc.f64()
	n := dc.int()
	var stream *BatchStream
	if dc.err == nil && n == 0 {
		stream = new(BatchStream)
		if err := stream.UnmarshalBinary(dc.bytes()); err != nil && dc.err == nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	count := dc.int()
	if dc.err != nil {
		return dc.err
	}
	switch {
	case step < 0 || havePrev < 0 || havePrev > 1 || converged < 0 || converged > 1:
		return stateErr("checkpoint: step %d, flags %d %d", step, havePrev, converged)
	case d.Stream == nil && stream != nil:
		return stateErr("checkpoint of a minibatch run (n = %d, B = %d), the driver is full batch", stream.n, stream.batch)
	case d.Stream != nil && stream == nil:
		return stateErr("checkpoint of a full-batch run over %d points, the driver has a BatchStream", n)
	case stream == nil && n != d.N:
		return stateErr("checkpoint of a full-batch run over %d points, the driver's N is %d", n, d.N)
	case stream != nil && (stream.n != d.Stream.n || stream.batch != d.Stream.batch):
		return stateErr("checkpoint's BatchStream has n = %d, B = %d; the driver's has n = %d, B = %d",
			stream.n, stream.batch, d.Stream.n, d.Stream.batch)
	case math.Float64bits(peg) != math.Float64bits(d.PegasosLambda):
		return stateErr("checkpoint with Pegasos λ = %v, the driver has %v", peg, d.PegasosLambda)
	case peg == 0 && math.Float64bits(lr) != math.Float64bits(d.LR):
		return stateErr("checkpoint with learning rate η = %v, the driver has %v", lr, d.LR)
	case count != len(d.Steppers):
		return stateErr("checkpoint of %d steppers, the driver has %d", count, len(d.Steppers))
	}
	states := make([][]byte, count)
	for i := range states {
		states[i] = dc.bytes()
	}
	if err := dc.done(); err != nil {
		return err
	}
	for i, st := range d.Steppers {
		br := bytes.NewReader(states[i])
		if err := st.LoadState(br); err != nil {
			return fmt.Errorf("checkpoint: stepper %d: %w", i, err)
		}
		if br.Len() > 0 {
			return stateErr("checkpoint: stepper %d left %d bytes of its state unread", i, br.Len())
		}
	}
	if stream != nil {
		*d.Stream = *stream
	}
	d.step, d.t = step, t
	d.havePrev, d.prevObj, d.converged = havePrev == 1, prevObj, converged == 1
	return nil
}
