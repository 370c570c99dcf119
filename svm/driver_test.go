package svm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/svm/train"
)

// driverData is a small problem with an odd n (so epochs end on a partial
// batch) and a held-out set.
type driverData struct {
	k, kt KernelMatrix
	y, yt []float64
}

func newDriverData() *driverData {
	rng := rand.New(rand.NewPCG(21, 22))
	x, y := blobs(rng, 23, 0.8)
	xt, yt := blobs(rng, 7, 0.8)
	return &driverData{k: NewDense(rbfGram(x, x, 0.5)), kt: NewDense(rbfGram(xt, x, 0.5)), y: y, yt: yt}
}

// steppers builds fresh kernel steppers, one per configuration.
func (dd *driverData) steppers(t *testing.T, cfgs ...KernelStepperConfig) ([]train.Stepper, []*KernelStepper) {
	t.Helper()
	var st []train.Stepper
	var ks []*KernelStepper
	for _, c := range cfgs {
		s, err := NewKernelStepper(dd.k, dd.y, c)
		if err != nil {
			t.Fatal(err)
		}
		st, ks = append(st, s), append(ks, s)
	}
	return st, ks
}

// bitsDiff returns the first index where a and b differ bitwise (or in
// length), or −1.
func bitsDiff(a, b []float64) int {
	for i := range min(len(a), len(b)) {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// flatLog records every evaluation as one flat row: step, t, epoch, then
// per stepper its objective, training and test outputs.
type flatLog [][]float64

func (l *flatLog) log(stop func(step int)) func(int, float64, int, []*train.Eval) error {
	return func(step int, t float64, epoch int, evals []*train.Eval) error {
		row := []float64{float64(step), t, float64(epoch)}
		for _, e := range evals {
			row = append(row, e.Objective)
			row = append(row, e.Train...)
			row = append(row, e.Test...)
		}
		*l = append(*l, row)
		if stop != nil {
			stop(step)
		}
		return nil
	}
}

func (l flatLog) diff(t *testing.T, name string, want flatLog) {
	t.Helper()
	if len(l) != len(want) {
		t.Fatalf("%s: %d log rows, want %d", name, len(l), len(want))
	}
	for r := range l {
		if i := bitsDiff(l[r], want[r]); i >= 0 {
			t.Fatalf("%s: log row %d (step %g) differs at column %d: %v, want %v", name, r, want[r][0], i, l[r], want[r])
		}
	}
}

func allSteps(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i + 1
	}
	return s
}

// TestDriverLockstep drives two kernel machines with different λ (and
// losses) on one stream and checks that each equals its solo run by Train,
// bitwise, in the log and in the final α and g.
func TestDriverLockstep(t *testing.T) {
	dd := newDriverData()
	const steps, lr, seed = 30, 0.3, 5
	a := KernelStepperConfig{Loss: Hinge, Lambda: 0.05, Objective: ObjectiveMean}
	b := KernelStepperConfig{Loss: Logistic, Lambda: 0.4, Objective: ObjectiveSum}
	for _, tc := range []struct {
		name  string
		batch int
		decay Decay
	}{
		{"full", 0, DecayLazy},
		{"minibatch-lazy", 4, DecayLazy},
		{"minibatch-exact", 4, DecayExact},
		{"minibatch-last-partial", 6, DecayExact},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ca, cb := a, b
			ca.Decay, cb.Decay = tc.decay, tc.decay
			st, ks := dd.steppers(t, ca, cb)
			type entry struct {
				step       int
				t, obj     float64
				alpha, out []float64
			}
			var both [2][]entry
			d := &train.Driver{Steppers: st, N: len(dd.y), Steps: steps, LR: lr, LogAt: train.LogSteps(steps, 12),
				Recorder: logRec(func(step int, tt float64, epoch int, evals []*train.Eval) error {
					for i, e := range evals {
						both[i] = append(both[i], entry{step, tt, e.Objective, slices.Clone(ks[i].alpha), slices.Clone(e.Train)})
					}
					return nil
				}, nil)}
			if tc.batch > 0 {
				d.Stream, _ = train.NewBatchStream(len(dd.y), tc.batch, seed)
			}
			if _, err := d.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			for i, c := range []KernelStepperConfig{ca, cb} {
				var solo []entry
				res, err := trainLogged(context.Background(), dd.k, dd.y, SubgradientConfig{Loss: c.Loss, Lambda: c.Lambda, Objective: c.Objective,
					Decay: c.Decay, LR: lr, Batch: tc.batch, Seed: seed, Steps: steps, LogAt: train.LogSteps(steps, 12)},
					FitHooks{TrackTrain: allSteps(len(dd.y))[:len(dd.y)-1], // every index but the last, to use TrackTrain
						Log: func(p *Progress) error {
							solo = append(solo, entry{p.Step, p.T, p.Objective, slices.Clone(p.Alpha), slices.Clone(p.TrainOut)})
							return nil
						}})
				if err != nil {
					t.Fatal(err)
				}
				if len(solo) != len(both[i]) {
					t.Fatalf("stepper %d: %d log entries, solo %d", i, len(both[i]), len(solo))
				}
				for j, s := range solo {
					e := both[i][j]
					// TrackTrain lists indices 1…n−1 (allSteps is 1-based).
					if e.step != s.step || bitsDiff([]float64{e.t, e.obj}, []float64{s.t, s.obj}) >= 0 ||
						bitsDiff(e.alpha, s.alpha) >= 0 || bitsDiff(e.out[1:], s.out) >= 0 {
						t.Fatalf("stepper %d, log at step %d differs from the solo run", i, s.step)
					}
				}
				if bitsDiff(ks[i].alpha, res.Machine.Alpha) >= 0 || bitsDiff(ks[i].g, res.Outputs) >= 0 {
					t.Errorf("stepper %d: final α or g differ from the solo run", i)
				}
			}
		})
	}
}

// TestDriverResume cancels a run from the log callback, resumes it from the
// checkpoint written at cancellation (and from every periodic one) on new
// steppers and a new stream, and checks that the log and the final α and g
// are bit-identical to an uninterrupted run.
func TestDriverResume(t *testing.T) {
	dd := newDriverData()
	for _, tc := range []struct {
		name            string
		batch           int
		decay           Decay
		pegasos, tol    float64
		steps, cancelAt int
		every           int
		converges       bool
	}{
		{name: "full-lazy", decay: DecayLazy, steps: 30, cancelAt: 11, every: 4},
		{name: "full-exact-pegasos", decay: DecayExact, pegasos: 0.5, steps: 30, cancelAt: 11, every: 4},
		{name: "minibatch-lazy", batch: 5, decay: DecayLazy, steps: 40, cancelAt: 13, every: 7},
		{name: "minibatch-exact", batch: 5, decay: DecayExact, steps: 40, cancelAt: 13, every: 7},
		{name: "minibatch-lazy-epoch-end", batch: 5, decay: DecayLazy, steps: 40, cancelAt: 15, every: 5},
		{name: "full-tol", decay: DecayLazy, tol: 1e-5, steps: 1000, cancelAt: 20, every: 9, converges: true},
		{name: "minibatch-exact-tol", batch: 8, decay: DecayExact, tol: 2e-4, steps: 3000, cancelAt: 31, every: 10, converges: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfgs := []KernelStepperConfig{
				{Loss: Squared, Lambda: 0.3, Objective: ObjectiveMean, Decay: tc.decay, Test: &EvalSet{K: dd.kt, Y: dd.yt}},
				{Loss: Hinge, Lambda: 0.05, Objective: ObjectiveSum, Decay: tc.decay},
			}
			newDriver := func(seed uint64) (*train.Driver, []*KernelStepper) {
				st, ks := dd.steppers(t, cfgs...)
				d := &train.Driver{Steppers: st, N: len(dd.y), Steps: tc.steps, LR: 0.02, PegasosLambda: tc.pegasos,
					LogAt: allSteps(tc.steps), Tol: tc.tol}
				if tc.batch > 0 {
					d.Stream, _ = train.NewBatchStream(len(dd.y), tc.batch, seed)
				}
				return d, ks
			}
			// The uninterrupted run.
			ref, refKS := newDriver(7)
			var want flatLog
			ref.Recorder = logRec(want.log(nil), nil)
			refStats, err := ref.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if refStats.Converged != tc.converges || tc.converges && refStats.Steps <= tc.cancelAt+tc.every {
				t.Fatalf("reference run: converged %v after %d steps; the test wants converged = %v after step %d",
					refStats.Converged, refStats.Steps, tc.converges, tc.cancelAt+tc.every)
			}

			// The run cancelled from the callback at cancelAt.
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			run, _ := newDriver(7)
			var got flatLog
			checkpoints := map[int][]byte{}
			run.CheckpointEvery = tc.every
			run.Recorder = logRec(got.log(func(step int) {
				if step == tc.cancelAt {
					cancel()
				}
			}), func(step int, write func(io.Writer) error) error {
				var b bytes.Buffer
				if err := write(&b); err != nil {
					return err
				}
				checkpoints[step] = b.Bytes()
				return nil
			})
			stats, err := run.Run(ctx)
			if !errors.Is(err, context.Canceled) || stats.Steps != tc.cancelAt {
				t.Fatalf("cancelled run: %d steps, err %v; want %d steps and context.Canceled", stats.Steps, err, tc.cancelAt)
			}
			if _, ok := checkpoints[tc.cancelAt]; !ok {
				t.Fatalf("no checkpoint at cancellation (step %d); have %v", tc.cancelAt, checkpoints)
			}
			if len(checkpoints) != tc.cancelAt/tc.every+1 && tc.cancelAt%tc.every != 0 {
				t.Errorf("%d checkpoints, want %d periodic and one at cancellation", len(checkpoints), tc.cancelAt/tc.every)
			}
			got.diff(t, "before cancellation", want[:tc.cancelAt])

			if tc.converges {
				// A checkpoint between the last two early-stop checks: the
				// resumed run must remember the previous objective.
				pre, _ := newDriver(7)
				pre.Steps = refStats.Steps - 1
				if _, err := pre.Run(context.Background()); err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				if err := pre.SaveState(&b); err != nil {
					t.Fatal(err)
				}
				checkpoints[pre.Steps] = b.Bytes()
			}
			for at, cp := range checkpoints {
				// A new stream with another seed: its state must come from the checkpoint.
				res, resKS := newDriver(99)
				if err := res.LoadState(bytes.NewReader(cp)); err != nil {
					t.Fatalf("resume from step %d: %v", at, err)
				}
				wantT := 0.0 // the t of step at, which its log line carries
				if at > 0 {
					wantT = want[at-1][1]
				}
				if s := res.Stats(); s.Steps != at || bitsDiff([]float64{s.T}, []float64{wantT}) >= 0 {
					t.Fatalf("resumed at %+v, want step %d", s, at)
				}
				var rest flatLog
				res.Recorder = logRec(rest.log(nil), nil)
				st, err := res.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("resumed from step %d", at)
				rest.diff(t, name, want[at:])
				if st.Steps != refStats.Steps || st.T != refStats.T || st.Converged != refStats.Converged {
					t.Errorf("%s: stats %+v, want %+v", name, st, refStats)
				}
				for i := range refKS {
					if bitsDiff(resKS[i].alpha, refKS[i].alpha) >= 0 || bitsDiff(resKS[i].g, refKS[i].g) >= 0 {
						t.Errorf("%s: stepper %d's final α or g differ", name, i)
					}
				}
			}
		})
	}
}

// TestDriverCheckpointRejected feeds a driver checkpoints that are
// corrupted or do not match it.
func TestDriverCheckpointRejected(t *testing.T) {
	dd := newDriverData()
	base := []KernelStepperConfig{
		{Loss: Hinge, Lambda: 0.05, Objective: ObjectiveMean},
		{Loss: Squared, Lambda: 0.3, Objective: ObjectiveSum, Decay: DecayExact},
	}
	build := func(batch int, lr float64, cfgs ...KernelStepperConfig) *train.Driver {
		st, _ := dd.steppers(t, cfgs...)
		d := &train.Driver{Steppers: st, N: len(dd.y), Steps: 20, LR: lr}
		if batch > 0 {
			d.Stream, _ = train.NewBatchStream(len(dd.y), batch, 3)
		}
		return d
	}
	src := build(4, 0.1, base...)
	src.Steps = 6
	if _, err := src.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var good bytes.Buffer
	if err := src.SaveState(&good); err != nil {
		t.Fatal(err)
	}
	var stepperState bytes.Buffer
	src.Steppers[0].SaveState(&stepperState)
	mod := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good.Bytes())) }
	with := func(i int, f func(*KernelStepperConfig)) []KernelStepperConfig {
		c := slices.Clone(base)
		f(&c[i])
		return c
	}
	for _, tc := range []struct {
		name string
		data []byte
		d    *train.Driver
		want string
	}{
		{"truncated", good.Bytes()[:good.Len()-3], nil, "truncated"},
		{"empty", nil, nil, "truncated header"},
		{"flipped byte", mod(func(b []byte) []byte { b[40] ^= 1; return b }), nil, "checksum mismatch"},
		{"version", mod(func(b []byte) []byte { b[8] = 9; return b }), nil, "version 9"},
		{"not a checkpoint", []byte("hello, world: not a checkpoint at all"), nil, "not a training checkpoint"},
		{"stepper state", stepperState.Bytes(), nil, "want a training checkpoint, got a kernel-machine stepper state"},
		{"other λ", good.Bytes(), build(4, 0.1, with(1, func(c *KernelStepperConfig) { c.Lambda = 0.31 })...), "stepper 1: svm: bad training state: kernel-machine state with λ = 0.3, this machine has λ = 0.31"},
		{"other loss", good.Bytes(), build(4, 0.1, with(0, func(c *KernelStepperConfig) { c.Loss = SquaredHinge })...), "hinge loss"},
		{"other decay", good.Bytes(), build(4, 0.1, with(1, func(c *KernelStepperConfig) { c.Decay = DecayLazy })...), "exact decay, this machine has lazy"},
		{"other objective", good.Bytes(), build(4, 0.1, with(0, func(c *KernelStepperConfig) { c.Objective = ObjectiveSum })...), "objective mean"},
		{"full batch", good.Bytes(), build(0, 0.1, base...), "the driver is full batch"},
		{"other batch size", good.Bytes(), build(5, 0.1, base...), "B = 4; the driver's has n = 23, B = 5"},
		{"other lr", good.Bytes(), build(4, 0.2, base...), "learning rate η = 0.1, the driver has 0.2"},
		{"one stepper", good.Bytes(), build(4, 0.1, base[0]), "checkpoint of 2 steppers, the driver has 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.d
			if d == nil {
				d = build(4, 0.1, base...)
			}
			err := d.LoadState(bytes.NewReader(tc.data))
			if !errors.Is(err, train.ErrState) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v; want ErrState with %q", err, tc.want)
			}
			if st := d.Stats(); st.Steps != 0 || st.T != 0 || st.Converged {
				t.Errorf("position changed by a rejected checkpoint: %+v", d.Stats())
			}
		})
	}

	// The stepper on its own: other targets, other size.
	var ks bytes.Buffer
	src.Steppers[0].SaveState(&ks)
	y2 := slices.Clone(dd.y)
	y2[3] = -y2[3]
	s2, _ := NewKernelStepper(dd.k, y2, base[0])
	if err := s2.LoadState(bytes.NewReader(ks.Bytes())); !errors.Is(err, train.ErrState) || !strings.Contains(err.Error(), "other training targets") {
		t.Errorf("other targets: %v", err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	x, y := blobs(rng, 5, 1)
	s3, _ := NewKernelStepper(NewDense(rbfGram(x, x, 1)), y, base[0])
	if err := s3.LoadState(bytes.NewReader(ks.Bytes())); !errors.Is(err, train.ErrState) || !strings.Contains(err.Error(), "23 training points, this machine has 5") {
		t.Errorf("other size: %v", err)
	}
}

// TestDriverRejectsWrongSize: a stepper of another training size than
// the driver's batches is refused.
func TestDriverRejectsWrongSize(t *testing.T) {
	dd := newDriverData()
	st, _ := dd.steppers(t, KernelStepperConfig{Loss: Hinge})
	if _, err := (&train.Driver{Steppers: st, N: 22, Steps: 1, LR: 1}).Run(context.Background()); !errors.Is(err, ErrInput) ||
		!strings.Contains(err.Error(), "stepper 0 has 23 training points, the driver's batches cover 22") {
		t.Errorf("stepper of 23 points on batches of 22: %v", err)
	}
}

func TestKernelStepperRejectsBadSteps(t *testing.T) {
	dd := newDriverData()
	_, ks := dd.steppers(t, KernelStepperConfig{Loss: Hinge, Lambda: 0.1})
	for name, tc := range map[string]struct {
		batch []int
		eta   float64
	}{
		"eta 0":     {[]int{1}, 0},
		"eta NaN":   {[]int{1}, math.NaN()},
		"eta inf":   {[]int{1}, math.Inf(1)},
		"empty":     {nil, 0.1},
		"negative":  {[]int{1, -1}, 0.1},
		"too large": {[]int{23}, 0.1},
	} {
		if err := ks[0].Step(tc.batch, tc.eta); !errors.Is(err, ErrInput) {
			t.Errorf("%s: err %v, want ErrInput", name, err)
		}
	}
	if slices.ContainsFunc(ks[0].alpha, func(a float64) bool { return a != 0 }) {
		t.Error("a rejected step changed α")
	}
	if _, err := NewKernelStepper(dd.k, dd.y[:3], KernelStepperConfig{Loss: Hinge}); !errors.Is(err, ErrInput) {
		t.Errorf("3 targets: %v", err)
	}
}

// logRec is a Recorder that hands the Evaluated records to log and the
// checkpoints (CheckpointDue, Interrupted) to save, either may be nil.
func logRec(log func(step int, t float64, epoch int, evals []*train.Eval) error, save func(step int, write func(io.Writer) error) error) train.Recorder {
	return train.RecorderFunc(func(r *train.Record) error {
		switch {
		case r.Event == train.Evaluated && log != nil:
			return log(r.Step, r.T, r.Epoch, r.Evals)
		case r.Save != nil && save != nil:
			return save(r.Step, r.Save)
		}
		return nil
	})
}
