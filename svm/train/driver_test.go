package train

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
)

// fakeStepper records every call in a shared transcript.
type fakeStepper struct {
	name  string
	rec   *[]string
	state float64
	ev    Eval
}

func (f *fakeStepper) Step(batch []int, eta float64) error {
	*f.rec = append(*f.rec, fmt.Sprintf("%s step %v η=%g", f.name, batch, eta))
	f.state++
	return nil
}

func (f *fakeStepper) Evaluate() (*Eval, error) {
	*f.rec = append(*f.rec, f.name+" evaluate")
	f.ev.Objective = f.state
	return &f.ev, nil
}

func (f *fakeStepper) SaveState(w io.Writer) error {
	*f.rec = append(*f.rec, f.name+" save")
	_, err := fmt.Fprintf(w, "%g", f.state)
	return err
}

func (f *fakeStepper) LoadState(r io.Reader) error {
	_, err := fmt.Fscan(r, &f.state)
	return err
}

// TestDriverCallOrder checks the documented order of the calls with two
// fake steppers: evaluations before the step's update, the same batches
// as a BatchStream of the same seed, the Pegasos schedule, early-stop
// evaluations once per epoch and periodic checkpoints.
func TestDriverCallOrder(t *testing.T) {
	var rec []string
	a, b := &fakeStepper{name: "a", rec: &rec}, &fakeStepper{name: "b", rec: &rec}
	stream, _ := NewBatchStream(7, 3, 11)
	logAt := []int{1, 3, 4}
	d := &Driver{Steppers: []Stepper{a, b}, Stream: stream, Epochs: 3, PegasosLambda: 2, LogAt: logAt,
		Tol: 1e-300, TolStepper: 1, CheckpointEvery: 2,
		Recorder: RecorderFunc(func(r *Record) error {
			switch r.Event {
			case Evaluated:
				rec = append(rec, fmt.Sprintf("log %d t=%.6f epoch %d objectives %g %g", r.Step, r.T, r.Epoch, r.Evals[0].Objective, r.Evals[1].Objective))
			case CheckpointDue:
				rec = append(rec, fmt.Sprintf("checkpoint %d", r.Step))
				return r.Save(io.Discard)
			}
			return nil
		})}
	if d.TotalSteps() != 9 {
		t.Fatalf("3 epochs of ⌈7/3⌉ steps: TotalSteps %d, want 9", d.TotalSteps())
	}
	if _, err := d.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var want []string
	ref, _ := NewBatchStream(7, 3, 11)
	tt := 0.0
	for s := 1; s <= 9; s++ {
		eta := 1 / (2 * float64(s))
		tt += eta
		if slices.Contains(logAt, s) {
			want = append(want, "a evaluate", "b evaluate",
				fmt.Sprintf("log %d t=%.6f epoch %d objectives %d %d", s, tt, (s-1)/3, s-1, s-1))
		}
		batch, _ := ref.Next()
		want = append(want, fmt.Sprintf("a step %v η=%g", batch, eta), fmt.Sprintf("b step %v η=%g", batch, eta))
		if s%3 == 0 {
			want = append(want, "b evaluate") // the early-stop check on TolStepper
		}
		if s%2 == 0 {
			want = append(want, fmt.Sprintf("checkpoint %d", s), "a save", "b save")
		}
	}
	if !slices.Equal(rec, want) {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(rec, "\n"), strings.Join(want, "\n"))
	}

	// A Recorder error is returned as is, before that step's update.
	rec = rec[:0]
	stop := errors.New("stop")
	a.state, b.state = 0, 0
	d2 := &Driver{Steppers: []Stepper{a}, N: 4, Steps: 5, LR: 1, LogAt: []int{2},
		Recorder: RecorderFunc(func(r *Record) error {
			if r.Event == Evaluated {
				return stop
			}
			return nil
		})}
	st, err := d2.Run(context.Background())
	if err != stop || st.Steps != 1 || a.state != 1 {
		t.Errorf("Recorder error: %v after %d steps (stepper state %g); want the error after 1", err, st.Steps, a.state)
	}
	if want := []string{"a step [0 1 2 3] η=1", "a evaluate"}; !slices.Equal(rec, want) {
		t.Errorf("full batch calls %q, want %q", rec, want)
	}
}

// TestDriverCancelCheckpointFails checks that a failed checkpoint at
// cancellation is reported along with the cancellation.
func TestDriverCancelCheckpointFails(t *testing.T) {
	var rec []string
	disk := errors.New("disk full")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := &Driver{Steppers: []Stepper{&fakeStepper{name: "a", rec: &rec}}, N: 3, Steps: 5, LR: 1,
		Recorder: RecorderFunc(func(r *Record) error {
			if r.Save != nil {
				return disk
			}
			return nil
		})}
	st, err := d.Run(ctx)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, disk) || st.Steps != 0 || len(rec) != 0 {
		t.Errorf("err %v after %d steps, calls %q", err, st.Steps, rec)
	}
	d.CheckpointEvery = 2
	if _, err := d.Run(context.Background()); !errors.Is(err, disk) || d.Stats().Steps != 2 {
		t.Errorf("periodic checkpoint failure: err %v after %d steps", err, d.Stats().Steps)
	}
}

// TestDriverTimeIsStepsTimesLR checks that a constant step's time is
// s·η at every log and at the end (10⁴ summed steps of 0.1 would give
// 1000.0000000001588), and that a Pegasos schedule's time is the sum.
func TestDriverTimeIsStepsTimesLR(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lr, peg float64
		want    func(s int) float64
	}{
		{"constant", 0.1, 0, func(s int) float64 { return float64(s) * 0.1 }},
		{"pegasos", 0, 0.5, func(s int) float64 {
			sum := 0.0
			for k := 1; k <= s; k++ {
				sum += 1 / (0.5 * float64(k))
			}
			return sum
		}},
	} {
		var rec []string
		var ts []float64
		d := &Driver{Steppers: []Stepper{&fakeStepper{name: "a", rec: &rec}}, N: 3, Steps: 10000, LR: tc.lr, PegasosLambda: tc.peg,
			LogAt: []int{1, 10, 9999, 10000}, Recorder: RecorderFunc(func(r *Record) error {
				if r.Event == Evaluated {
					ts = append(ts, r.T)
				}
				return nil
			})}
		st, err := d.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range []int{1, 10, 9999, 10000} {
			if ts[i] != tc.want(s) {
				t.Errorf("%s: t at step %d = %v, want %v", tc.name, s, ts[i], tc.want(s))
			}
		}
		if st.T != tc.want(10000) {
			t.Errorf("%s: T = %v, want %v", tc.name, st.T, tc.want(10000))
		}
	}
}

func TestDriverRejectsBadConfig(t *testing.T) {
	var rec []string
	f := &fakeStepper{name: "a", rec: &rec}
	stream, _ := NewBatchStream(5, 2, 1)
	for name, d := range map[string]*Driver{
		"no steppers":  {N: 3, Steps: 1, LR: 1},
		"nil stepper":  {Steppers: []Stepper{nil}, N: 3, Steps: 1, LR: 1},
		"no N":         {Steppers: []Stepper{f}, Steps: 1, LR: 1},
		"N ≠ stream":   {Steppers: []Stepper{f}, Stream: stream, N: 4, Steps: 1, LR: 1},
		"no steps":     {Steppers: []Stepper{f}, N: 3, LR: 1},
		"both":         {Steppers: []Stepper{f}, N: 3, Steps: 2, Epochs: 1, LR: 1},
		"lr":           {Steppers: []Stepper{f}, N: 3, Steps: 1, LR: math.Inf(1)},
		"pegasos":      {Steppers: []Stepper{f}, N: 3, Steps: 1, PegasosLambda: -1},
		"unsorted":     {Steppers: []Stepper{f}, N: 3, Steps: 1, LR: 1, LogAt: []int{2, 1}},
		"tol":          {Steppers: []Stepper{f}, N: 3, Steps: 1, LR: 1, Tol: math.NaN()},
		"tol stepper":  {Steppers: []Stepper{f}, N: 3, Steps: 1, LR: 1, TolStepper: 1},
		"no sink":      {Steppers: []Stepper{f}, N: 3, Steps: 1, LR: 1, CheckpointEvery: 1},
		"neg interval": {Steppers: []Stepper{f}, N: 3, Steps: 1, LR: 1, CheckpointEvery: -1},
	} {
		if _, err := d.Run(context.Background()); !errors.Is(err, ErrInput) {
			t.Errorf("%s: err %v, want ErrInput", name, err)
		}
	}
	if len(rec) != 0 {
		t.Errorf("a rejected driver called its stepper: %q", rec)
	}
	if _, err := (&Driver{Steppers: []Stepper{f}, Stream: stream, Epochs: 1, LR: 1}).Run(context.Background()); err != nil {
		t.Errorf("N = 0 with a stream: %v", err)
	}
}
