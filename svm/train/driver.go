package train

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/ntksvm/ntksvm/internal/atomicfile"
	"github.com/ntksvm/ntksvm/internal/frame"
)

// ErrInput is wrapped by every error about a bad configuration of the
// loop (a Driver's fields, a BatchStream's sizes). It is the same value as
// svm.ErrInput, so one errors.Is check covers a trainer and its loop.
var ErrInput = errors.New("svm: bad input")

// ErrState is wrapped by every error about a saved training state that
// cannot be restored: a BatchStream's, a stepper's or a Driver's
// checkpoint that is truncated, corrupted, of another version, or written
// by a trainer of another size or configuration.
var ErrState = frame.ErrState

func inputErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInput, fmt.Sprintf(format, args...))
}

// ObjectiveStepper is a Stepper that computes its training objective
// (Eval.Objective) without a full Evaluate. The Driver's early stop uses
// it when the watched stepper implements it, and Evaluate otherwise.
type ObjectiveStepper interface {
	Stepper
	Objective() (float64, error)
}

// trainSizer is implemented by steppers that know the size of their
// training set (svm.KernelStepper.TrainSize); the Driver checks it against
// the indices its batches cover.
type trainSizer interface{ TrainSize() int }

// Observer watches a training run between updates (the extraction of
// Theorem 4.1 is one): the Driver calls Observe with the state at step 0
// (before the first update, at t = 0) and after every update, step k at
// t = Σ η over steps 1…k. next is the batch of the update that comes next
// from that state (owned by the Driver, read-only, valid during the call
// only), or nil for the full batch. Observers read the steppers' models;
// they must not change them.
type Observer interface {
	Observe(step int, t float64, next []int) error
}

// Event says why a Recorder is called.
type Event uint8

const (
	// Evaluated: the step is in LogAt; Record.Evals holds every stepper's
	// evaluation of the state before the step's update.
	Evaluated Event = iota + 1
	// Stepped: the step's update has been applied by every stepper (and
	// the observers have seen it).
	Stepped
	// CheckpointDue: CheckpointEvery divides the step; Record.Save writes
	// the checkpoint, the recorder decides whether and where.
	CheckpointDue
	// Interrupted: ctx is done before the next update; Record.Save writes
	// a checkpoint from which the run resumes there. If the update was
	// abandoned after its evaluation was recorded (Evaluated with a Step
	// above this record's), the resumed run evaluates and records that
	// step again.
	Interrupted
)

// String returns the event's name.
func (e Event) String() string {
	switch e {
	case Evaluated:
		return "evaluated"
	case Stepped:
		return "stepped"
	case CheckpointDue:
		return "checkpoint due"
	case Interrupted:
		return "interrupted"
	}
	return fmt.Sprintf("Event(%d)", uint8(e))
}

// Record is what a Recorder is handed. It and its slices are owned by the
// Driver and valid during the call only.
type Record struct {
	Event Event
	// Step is, for Evaluated, the step whose update comes next (step 1 is
	// the initial state, as the log counts); for the other events the
	// number of updates applied (the step a checkpoint resumes after).
	Step int
	// T is Σ η over steps 1…Step (Step·LR for a constant step).
	T float64
	// Epoch is the epoch (from 0) of the batch of Step's update (for
	// Interrupted, of the next update); Step − 1 for the full batch (one
	// epoch per step).
	Epoch int
	// Evals[i] is the Eval of Steppers[i] (Evaluated only).
	Evals []*Eval
	// Save writes a checkpoint of the driver (Driver.SaveState); set for
	// CheckpointDue and Interrupted, nil otherwise.
	Save func(w io.Writer) error
	// Stats is where the driver stands, with its timings so far (its
	// slices are the driver's: read them during the call only).
	Stats RunStats
}

// Recorder receives a Driver's events: the evaluations of the training
// log, the progress after every update and the checkpoints (as
// gonum/optimize's Recorder receives an optimizer's). An error stops
// training and is returned by Run (for Interrupted, joined to ctx's).
type Recorder interface {
	Record(*Record) error
}

// RecorderFunc is a function used as a Recorder.
type RecorderFunc func(*Record) error

// Record calls f(r).
func (f RecorderFunc) Record(r *Record) error { return f(r) }

// Driver runs one or more Steppers in lockstep: it owns the batches (one
// BatchStream, or the full batch 0…N−1 in order), the step size schedule,
// the time t = Σ η, the evaluations, early stopping, cancellation,
// the observers and the checkpoints (reverse communication, as gonum's
// optimize drives a Method: the steppers step and evaluate when asked, the
// driver decides when).
//
// RunTo(ctx, last) does, for each step s = 1, 2, … up to last:
//
//  0. before the first update (step 0 not yet observed): every
//     Observer sees the initial state at t = 0;
//  1. if ctx is done: record Interrupted (with Save) and return ctx's
//     error, wrapped;
//  2. ηₛ = LR, or 1/(PegasosLambda·s); tₛ = s·LR, or tₛ₋₁ + ηₛ;
//  3. if s is in LogAt and there is a Recorder: Evaluate every stepper, in order, and record
//     Evaluated: the evaluation at a step comes before that step's update,
//     so step 1 is the initial state (as train_sgd.py logs at its
//     step_test steps);
//  4. draw step s's batch and call Step(batch, ηₛ) on every stepper, in
//     order, with the same slice;
//  5. every Observer sees the state after the update, with the next
//     batch; then record Stepped;
//  6. with Tol > 0, at the end of each epoch (every step for full batch):
//     stop if the objective of Steppers[TolStepper] changed by at most
//     Tol·max(|objective|, 1) since the previous check;
//  7. with CheckpointEvery > 0, every CheckpointEvery steps: record
//     CheckpointDue (with Save).
//
// A Driver's position (steps done, t, the stream, the early-stop state)
// persists across calls: RunTo and Run continue where the last call
// stopped, and LoadState puts the driver and its steppers where a
// checkpoint left them, so that the continued run is bit-identical to an
// uninterrupted one (observers keep their own state: a driver restored by
// LoadState does not show the restored step to them again). Configure the
// fields before the first run, SaveState or LoadState; TotalSteps (Steps
// or Epochs), LogAt, Tol, CheckpointEvery, Observers and Recorder may
// change between runs, the rest may not.
type Driver struct {
	// Steppers are the trainers, stepped in this order on the same batches.
	Steppers []Stepper
	// Observers watch the run after every update (see Observer).
	Observers []Observer
	// Stream supplies the minibatches; nil means full batch: every step is
	// handed 0…N−1 in order.
	Stream *BatchStream
	// N is the number of training points: required for full batch, and 0
	// or the Stream's n otherwise. Steppers with a method TrainSize() int
	// (svm.KernelStepper has one) must report the same n.
	N int

	// Steps is the number of updates; alternatively Epochs gives
	// Epochs·StepsPerEpoch() of them. Set exactly one.
	Steps, Epochs int
	// LR is the constant step η > 0. PegasosLambda > 0 replaces it with the
	// step ηₜ = 1/(λt) of kernelized Pegasos (paper App. A.1) with
	// λ = PegasosLambda.
	LR, PegasosLambda float64

	// LogAt lists the steps (1-based, ascending; see LogSteps) at which the
	// steppers are evaluated and the Recorder gets an Evaluated record.
	LogAt []int

	// Tol > 0 stops early when the objective of Steppers[TolStepper]
	// (from ObjectiveStepper.Objective if it has one, else from Evaluate)
	// changes by at most Tol·max(|objective|, 1) between two checks, one
	// after the last step of each epoch (every step for full batch).
	Tol        float64
	TolStepper int

	// CheckpointEvery > 0 records CheckpointDue every that many steps.
	CheckpointEvery int
	// Recorder, if set, receives the run's events (see Event).
	Recorder Recorder

	// The position: what SaveState writes besides the steppers' states.
	step      int     // updates applied
	t         float64 // Σ η over them (step·LR for a constant step)
	havePrev  bool    // prevObj holds an early-stop check
	prevObj   float64 // the objective at the last check
	converged bool    // stopped by Tol
	observed  bool    // the observers have seen the state at step

	all   []int // the full batch
	evals []*Eval
	rec   Record
	times timings
}

// timings are the durations a Driver measures, one entry per stepper or
// observer.
type timings struct {
	step, eval, observe []time.Duration
}

// RunStats is where a Driver stands, and how long its work took.
type RunStats struct {
	Steps     int     // updates applied
	T         float64 // Σ η over them (Steps·LR for a constant step, without summation error)
	Converged bool    // stopped early by Tol
	// StepTime[i] is the time Steppers[i] spent in Step, EvalTime[i] in
	// Evaluate and Objective (the log's evaluations and early stopping's
	// checks), and ObserveTime[j] the time Observers[j] spent in Observe,
	// summed over this driver's calls to Run and RunTo (not restored by
	// LoadState). The slices are the caller's.
	StepTime, EvalTime, ObserveTime []time.Duration
}

// Stats returns the driver's position and timings.
func (d *Driver) Stats() RunStats {
	return RunStats{Steps: d.step, T: d.t, Converged: d.converged,
		StepTime: slices.Clone(d.times.step), EvalTime: slices.Clone(d.times.eval), ObserveTime: slices.Clone(d.times.observe)}
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
	case slices.Contains(d.Observers, nil):
		return inputErr("driver with a nil observer")
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
	case d.CheckpointEvery > 0 && d.Recorder == nil:
		return inputErr("checkpoint every %d steps without a Recorder", d.CheckpointEvery)
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
	d.times.step = grow(d.times.step, len(d.Steppers))
	d.times.eval = grow(d.times.eval, len(d.Steppers))
	d.times.observe = grow(d.times.observe, len(d.Observers))
	return nil
}

// grow returns v with at least n entries, the new ones zero.
func grow(v []time.Duration, n int) []time.Duration {
	if len(v) < n {
		v = append(v, make([]time.Duration, n-len(v))...)
	}
	return v
}

// eta returns the step size of step s.
func (d *Driver) eta(s int) float64 {
	if d.PegasosLambda > 0 {
		return 1 / (d.PegasosLambda * float64(s))
	}
	return d.LR
}

// Run trains from the driver's position to TotalSteps: RunTo(ctx,
// TotalSteps()).
func (d *Driver) Run(ctx context.Context) (RunStats, error) {
	return d.RunTo(ctx, d.TotalSteps())
}

// RunTo trains from the driver's position up to step last (at most
// TotalSteps), unless early stopping has ended the run (see Driver for the
// order of the calls), and returns the position reached. A later call
// continues from there, so a run can be paused and inspected without
// changing the driver's fields. When ctx is done it returns, before the
// next update, an error wrapping ctx.Err() (so errors.Is(err,
// context.Canceled) holds), after recording Interrupted. A ContextStepper
// sees ctx in its evaluations and, if it is Steppers[0], in its steps: a
// step it abandons is not counted (the next run draws the same batch
// again), so the position recorded is still the last update's. Configuration
// errors wrap ErrInput.
func (d *Driver) RunTo(ctx context.Context, last int) (RunStats, error) {
	if err := d.check(); err != nil {
		return d.Stats(), err
	}
	last = min(last, d.TotalSteps())
	perEpoch := d.StepsPerEpoch()
	logPos := 0
	if !d.converged && d.step < last && !d.observed {
		if err := d.observe(0, 0); err != nil {
			return d.Stats(), err
		}
	}
	for !d.converged && d.step < last {
		s := d.step + 1
		epoch := s - 1
		if d.Stream != nil {
			epoch = d.Stream.nextEpoch()
		}
		if err := ctx.Err(); err != nil {
			return d.Stats(), d.interrupted(s, epoch, err)
		}
		eta := d.eta(s)
		t := float64(s) * eta // a constant step: s·η, not a sum that drifts by ulps over 10⁵ steps
		if d.PegasosLambda > 0 {
			t = d.t + eta
		}
		for logPos < len(d.LogAt) && d.LogAt[logPos] < s {
			logPos++
		}
		if d.Recorder != nil && logPos < len(d.LogAt) && d.LogAt[logPos] == s {
			if err := d.evaluate(ctx, s, t, epoch); err != nil {
				if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
					return d.Stats(), d.interrupted(s, epoch, err)
				}
				return d.Stats(), err
			}
		}
		batch := d.all
		if d.Stream != nil {
			batch, _ = d.Stream.Next()
		}
		for i, st := range d.Steppers {
			t0 := time.Now()
			var err error
			if cs, ok := st.(ContextStepper); ok && i == 0 {
				// Only the first stepper's update may be abandoned: once it
				// has been applied, the others must follow on the same batch.
				err = cs.StepContext(ctx, batch, eta)
			} else {
				err = st.Step(batch, eta)
			}
			d.times.step[i] += time.Since(t0)
			if err != nil {
				if cerr := ctx.Err(); i == 0 && cerr != nil && errors.Is(err, cerr) {
					if d.Stream != nil {
						d.Stream.unread(batch)
					}
					return d.Stats(), d.interrupted(s, epoch, err)
				}
				return d.Stats(), fmt.Errorf("svm: stepper %d: step %d: %w", i, s, err)
			}
		}
		d.step, d.t, d.observed = s, t, false
		if err := d.observe(s, t); err != nil {
			return d.Stats(), err
		}
		if err := d.record(Stepped, s, t, epoch, nil); err != nil {
			return d.Stats(), err
		}
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
			if err := d.record(CheckpointDue, s, t, epoch, d.SaveState); err != nil {
				return d.Stats(), fmt.Errorf("svm: checkpoint after step %d: %w", s, err)
			}
		}
	}
	return d.Stats(), nil
}

// interrupted records Interrupted at the driver's position, before step
// s (of epoch epoch), and returns err, the context's error or one wrapping
// it, wrapped.
func (d *Driver) interrupted(s, epoch int, err error) error {
	err = fmt.Errorf("svm: training stopped before step %d: %w", s, err)
	if rerr := d.record(Interrupted, d.step, d.t, epoch, d.SaveState); rerr != nil {
		err = fmt.Errorf("%w (recording the interruption: %w)", err, rerr)
	}
	return err
}

// evaluate evaluates every stepper before step s's update and records it;
// ContextSteppers stop on ctx.
func (d *Driver) evaluate(ctx context.Context, s int, t float64, epoch int) error {
	for i, st := range d.Steppers {
		t0 := time.Now()
		var ev *Eval
		var err error
		if cs, ok := st.(ContextStepper); ok {
			ev, err = cs.EvaluateContext(ctx)
		} else {
			ev, err = st.Evaluate()
		}
		d.times.eval[i] += time.Since(t0)
		if err != nil {
			return fmt.Errorf("svm: stepper %d: evaluation at step %d: %w", i, s, err)
		}
		d.evals[i] = ev
	}
	err := d.record(Evaluated, s, t, epoch, nil)
	clear(d.evals)
	return err
}

// observe shows the state after step updates to every observer, with the
// batch of the next update.
func (d *Driver) observe(step int, t float64) error {
	if len(d.Observers) == 0 {
		d.observed = true
		return nil
	}
	var next []int
	if d.Stream != nil {
		next = d.Stream.peek()
	}
	for j, o := range d.Observers {
		t0 := time.Now()
		err := o.Observe(step, t, next)
		d.times.observe[j] += time.Since(t0)
		if err != nil {
			return fmt.Errorf("svm: observer %d: after step %d: %w", j, step, err)
		}
	}
	d.observed = true
	return nil
}

// record hands an event to the Recorder, if there is one.
func (d *Driver) record(ev Event, step int, t float64, epoch int, save func(io.Writer) error) error {
	if d.Recorder == nil {
		return nil
	}
	r := &d.rec
	*r = Record{Event: ev, Step: step, T: t, Epoch: epoch, Save: save, Stats: RunStats{Steps: d.step, T: d.t, Converged: d.converged,
		StepTime: d.times.step, EvalTime: d.times.eval, ObserveTime: d.times.observe}}
	if ev == Evaluated {
		r.Evals = d.evals
	}
	return d.Recorder.Record(r)
}

// objective returns the objective of the stepper early stopping watches.
func (d *Driver) objective() (float64, error) {
	i := d.TolStepper
	st := d.Steppers[i]
	t0 := time.Now()
	defer func() { d.times.eval[i] += time.Since(t0) }()
	if o, ok := st.(ObjectiveStepper); ok {
		v, err := o.Objective()
		if err != nil {
			return 0, fmt.Errorf("svm: stepper %d: objective after step %d: %w", i, d.step, err)
		}
		return v, nil
	}
	ev, err := st.Evaluate()
	if err != nil {
		return 0, fmt.Errorf("svm: stepper %d: evaluation after step %d: %w", i, d.step, err)
	}
	return ev.Objective, nil
}

// A checkpoint is a frame with magic "NTKSVMCK" (the layout of internal/frame) whose payload is (integers uint64, floats IEEE-754 bits,
// little-endian):
//
//	steps done; t; early stop: have-previous flag, previous objective,
//	converged flag; the schedule: LR, PegasosLambda;
//	N (full batch) or 0 and the BatchStream's state (length, bytes);
//	the number of steppers, then each stepper's state (length, bytes)

// SaveState writes a checkpoint of the driver's position and of every
// stepper's state (Stepper.SaveState) to w. It is what Record.Save does.
// Call it after Run returns to checkpoint a finished or stopped run
// yourself, or from the Recorder: from an Evaluated record, which comes
// before its step's update and batch, the checkpoint resumes at that step.
func (d *Driver) SaveState(w io.Writer) error {
	return d.SaveStateContext(context.Background(), w)
}

// SaveStateContext is SaveState that stops once ctx is done, before each
// stepper's state and at the steppers' next write, returning an error
// wrapping ctx's; w may then have been written in part (write to a file
// that is committed only on success, as internal/atomicfile's). A caller
// with little time to save (an interrupted run) bounds the write this
// way.
func (d *Driver) SaveStateContext(ctx context.Context, w io.Writer) error {
	if err := d.check(); err != nil {
		return err
	}
	var e frame.Enc
	e.Int(d.step)
	e.F64(d.t)
	e.Int(b2i(d.havePrev))
	e.F64(d.prevObj)
	e.Int(b2i(d.converged))
	e.F64(d.LR)
	e.F64(d.PegasosLambda)
	if d.Stream == nil {
		e.Int(d.N)
	} else {
		e.Int(0)
		s, err := d.Stream.MarshalBinary()
		if err != nil {
			return err
		}
		e.Bytes(s)
	}
	e.Int(len(d.Steppers))
	var buf bytes.Buffer
	for i, st := range d.Steppers {
		if err := ctx.Err(); err != nil {
			return err
		}
		buf.Reset()
		if err := st.SaveState(atomicfile.ContextWriter(ctx, &buf)); err != nil {
			return fmt.Errorf("svm: stepper %d: saving its state: %w", i, err)
		}
		e.Bytes(buf.Bytes())
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return frame.Write(w, frame.DriverMagic, e.B)
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
	payload, err := frame.Read(r, frame.DriverMagic)
	if err != nil {
		return err
	}
	dc := frame.Dec{B: payload, What: frame.Name(frame.DriverMagic)}
	step, t := dc.Int(), dc.F64()
	havePrev, prevObj, converged := dc.Int(), dc.F64(), dc.Int()
	lr, peg := dc.F64(), dc.F64()
	n := dc.Int()
	var stream *BatchStream
	if dc.Err == nil && n == 0 {
		stream = new(BatchStream)
		if err := stream.UnmarshalBinary(dc.Bytes()); err != nil && dc.Err == nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	count := dc.Int()
	if dc.Err != nil {
		return dc.Err
	}
	switch {
	case step < 0 || havePrev < 0 || havePrev > 1 || converged < 0 || converged > 1:
		return frame.Errorf("checkpoint: step %d, flags %d %d", step, havePrev, converged)
	case d.Stream == nil && stream != nil:
		return frame.Errorf("checkpoint of a minibatch run (n = %d, B = %d), the driver is full batch", stream.n, stream.batch)
	case d.Stream != nil && stream == nil:
		return frame.Errorf("checkpoint of a full-batch run over %d points, the driver has a BatchStream", n)
	case stream == nil && n != d.N:
		return frame.Errorf("checkpoint of a full-batch run over %d points, the driver's N is %d", n, d.N)
	case stream != nil && (stream.n != d.Stream.n || stream.batch != d.Stream.batch):
		return frame.Errorf("checkpoint's BatchStream has n = %d, B = %d; the driver's has n = %d, B = %d",
			stream.n, stream.batch, d.Stream.n, d.Stream.batch)
	case math.Float64bits(peg) != math.Float64bits(d.PegasosLambda):
		return frame.Errorf("checkpoint with Pegasos λ = %v, the driver has %v", peg, d.PegasosLambda)
	case peg == 0 && math.Float64bits(lr) != math.Float64bits(d.LR):
		return frame.Errorf("checkpoint with learning rate η = %v, the driver has %v", lr, d.LR)
	case count != len(d.Steppers):
		return frame.Errorf("checkpoint of %d steppers, the driver has %d", count, len(d.Steppers))
	}
	states := make([][]byte, count)
	for i := range states {
		states[i] = dc.Bytes()
	}
	if err := dc.Done(); err != nil {
		return err
	}
	for i, st := range d.Steppers {
		br := bytes.NewReader(states[i])
		if err := st.LoadState(br); err != nil {
			return fmt.Errorf("checkpoint: stepper %d: %w", i, err)
		}
		if br.Len() > 0 {
			return frame.Errorf("checkpoint: stepper %d left %d bytes of its state unread", i, br.Len())
		}
	}
	if stream != nil {
		*d.Stream = *stream
	}
	d.step, d.t = step, t
	d.havePrev, d.prevObj, d.converged = havePrev == 1, prevObj, converged == 1
	d.observed = true
	return nil
}
