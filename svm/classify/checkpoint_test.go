package classify

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/internal/frame"
	"github.com/ntksvm/ntksvm/linalg"
)

// resumeCase is a fit at scale whose checkpoints are tested: its options
// (a budget forcing the route) and the points at which it is stopped.
type resumeCase struct {
	name  string
	o     Options
	route Route
	stops []int // sub-problems or CG iterations done when it is cancelled
}

// resumeCases are the routes of the fits at scale on scaleData: the
// one-vs-one pairs on Grams of their own, the same sub-problems on the
// shared on-demand Gram's rows, one-vs-rest and svm2 on the rows, and
// Falkon with its block of K_nM kept in float32.
func resumeCases(t *testing.T) []resumeCase {
	x, _, _ := scaleData()
	rows := Options{Grid: onePoint(10), rowsOnly: true}
	rows.MemBudget = smallBudget(t, rows, x.Rows, x.Cols, 4, x.Rows/4)
	ovr := Options{Grid: onePoint(10), Scheme: OneVsRest}
	ovr.MemBudget = smallBudget(t, ovr, x.Rows, x.Cols, 4, x.Rows/4)
	svm2 := rows
	svm2.Machine = SVM2
	return []resumeCase{
		{"svm ovo pairs", Options{Grid: onePoint(10), MemBudget: 4 << 20}, RouteOnDemand, []int{1, 3, 5, 6}},
		{"svm ovo rows", rows, RouteOnDemand, []int{1, 4}},
		{"svm ovr rows", ovr, RouteOnDemand, []int{1, 3}},
		{"svm2 ovo rows", svm2, RouteOnDemand, []int{2}},
		{"krr falkon", falkonOptions(t, x), RouteFalkon, []int{1, 4, 9}},
		{"krr eigenpro", Options{Machine: KRR, Grid: onePoint(10), Solver: SolverEigenPro, Epochs: 6, Seed: 3}, RouteEigenPro, []int{1, 4}},
	}
}

// falkonOptions returns options under which KRR on x runs Falkon with 120
// centres and keeps its one block of K_nM (360 rows) in float32.
func falkonOptions(t *testing.T, x linalg.Matrix[float64]) Options {
	t.Helper()
	o := Options{Machine: KRR, Grid: onePoint(10), Centres: 120, Seed: 3}
	for b := int64(1 << 20); b < 64<<20; b += b / 16 {
		o.MemBudget = b
		if p, err := o.PlanFit(x.Rows, x.Cols, 4); err == nil && p.Route == RouteFalkon && p.StoreBytes >= 360*120*4 {
			return o
		}
	}
	t.Fatal("no budget runs Falkon with its block of K_nM stored")
	return o
}

// fitScaleModel fits o on the scale data on threads threads and returns
// the saved model and the states handed to Checkpoint (the last one
// when cancel is nil), cancelling the fit once a state has stop units of
// work done.
func fitScaleModel(t *testing.T, o Options, threads, stop int) ([]byte, *ScaleState, error) {
	t.Helper()
	x, labels, _ := scaleData()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last *ScaleState
	o.Checkpoint = func(s *ScaleState) error {
		if last != nil && s.Done < last.Done {
			t.Errorf("a checkpoint of %d done after one of %d", s.Done, last.Done)
		}
		last = s
		if s.Done == stop {
			cancel()
		}
		return nil
	}
	o.Threads = threads
	linalg.SetThreads(threads)
	defer linalg.SetThreads(0)
	c := New(o)
	if err := c.Fit(ctx, x, labels); err != nil {
		return nil, last, err
	}
	var b bytes.Buffer
	if err := c.Save(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), last, nil
}

// TestScaleResume cancels a fit at scale after k sub-problems or CG
// iterations, writes and reads back its last checkpoint, resumes from it
// on another number of threads, and checks that the model equals the
// uninterrupted fit's (on 1 thread) byte for byte, for every route of
// resumeCases.
func TestScaleResume(t *testing.T) {
	x, labels, _ := scaleData()
	for _, tc := range resumeCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			want, full, err := fitScaleModel(t, tc.o, 1, -1)
			if err != nil {
				t.Fatal(err)
			}
			if full.Route() != tc.route || full.Spec.Route != tc.route.String() {
				t.Fatalf("route %v (%s), want %v", full.Route(), full.Spec.Route, tc.route)
			}
			if tc.route == RouteOnDemand && full.Done != full.Total {
				t.Fatalf("the last checkpoint has %d of %d sub-problems", full.Done, full.Total)
			}
			if tc.route == RouteOnDemand {
				// Every other sub-problem done, as a cancelled fit on
				// several threads may leave it.
				odd := *full
				odd.units = nil
				for i, su := range full.units {
					if i%2 == 1 {
						odd.units = append(odd.units, su)
					}
				}
				odd.Done = len(odd.units)
				o := tc.o
				o.Resume = &odd
				c := New(o)
				var got bytes.Buffer
				if err := c.Fit(context.Background(), x, labels); err != nil {
					t.Fatal(err)
				}
				c.Save(&got)
				if !bytes.Equal(got.Bytes(), want) {
					t.Error("resumed with every other sub-problem done: the model differs from the uninterrupted fit's")
				}
			}
			if last := tc.stops[len(tc.stops)-1]; last > full.Done {
				t.Fatalf("the fit is done after %d, the test stops it after %d", full.Done, last)
			}
			for i, stop := range tc.stops {
				// Interrupted on 1 or 2 threads (the pairs then run two at a
				// time, and a checkpoint may miss a sub-problem before one
				// it holds), resumed on the other number.
				threads := 1 + i%2
				_, st, err := fitScaleModel(t, tc.o, threads, stop)
				if stop < full.Done && !errors.Is(err, context.Canceled) {
					t.Fatalf("stopped after %d: %v, want context.Canceled", stop, err)
				}
				if st == nil || st.Done < stop || st.Done > full.Done {
					t.Fatalf("stopped after %d: last checkpoint %+v", stop, st)
				}
				var b bytes.Buffer
				if err := st.Save(&b); err != nil {
					t.Fatal(err)
				}
				back, err := ReadScaleState(&b)
				if err != nil {
					t.Fatal(err)
				}
				o := tc.o
				o.Resume, o.Threads = back, 3-threads
				var first ScaleProgress
				o.Progress = func(p ScaleProgress) {
					if first.Stage == "" && p.Stage != "preconditioner" {
						first = p
					}
				}
				linalg.SetThreads(3 - threads)
				c := New(o)
				err = c.Fit(context.Background(), x, labels)
				linalg.SetThreads(0)
				if err != nil {
					t.Fatal(err)
				}
				if first.Done < back.Done && back.Done < back.Total {
					t.Errorf("stopped after %d: the resumed fit's first progress is %d done", stop, first.Done)
				}
				var got bytes.Buffer
				if err := c.Save(&got); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want) {
					t.Errorf("resumed after %d of %d (checkpoint at %d): the model differs from the uninterrupted fit's", stop, full.Done, back.Done)
				}
			}
		})
	}
}

// TestScaleResumeRefused: a checkpoint is refused, with an error
// wrapping ErrResume that names what differs, by a fit of other data or
// options, before any sub-problem is solved or CG iteration run.
func TestScaleResumeRefused(t *testing.T) {
	x, labels, _ := scaleData()
	cases := resumeCases(t)
	pairs, rows, krr := cases[0].o, cases[1].o, cases[4].o
	states := map[string]*ScaleState{}
	for name, o := range map[string]Options{"pairs": pairs, "rows": rows, "krr": krr} {
		_, st, err := fitScaleModel(t, o, 1, 2)
		if !errors.Is(err, context.Canceled) || st == nil {
			t.Fatalf("%s: %v, state %v", name, err, st)
		}
		states[name] = st
	}
	otherLabels := slices.Clone(labels)
	otherLabels[7] = "b"
	otherX := x.Clone()
	otherX.Data[5] += 1e-9
	for _, tc := range []struct {
		name   string
		state  string
		edit   func(o *Options)
		x      linalg.Matrix[float64]
		labels []string
		want   string
	}{
		{"labels", "pairs", nil, x, otherLabels, "the training data (inputs, labels or class names) differ"},
		{"inputs", "rows", nil, otherX, labels, "the training data"},
		{"C", "pairs", func(o *Options) { o.Grid.Cs = []float64{1} }, x, labels, "C: 10 in the checkpoint, 1 here"},
		{"depth", "rows", func(o *Options) { o.Grid.Depths = []int{3} }, x, labels, "kernel: ntk L=2"},
		{"float32", "pairs", func(o *Options) { o.Float32 = true }, x, labels, "float64 in the checkpoint"},
		{"machine", "rows", func(o *Options) { o.Machine = SVM2 }, x, labels, "machine: svm in the checkpoint, svm2 here"},
		{"scheme", "pairs", func(o *Options) { o.Scheme = OneVsRest }, x, labels, "multi-class scheme: ovo in the checkpoint, ovr here"},
		{"standardise", "rows", func(o *Options) { o.NoStandardize = true }, x, labels, "standardised features: true in the checkpoint, false here"},
		{"unit norm", "pairs", func(o *Options) { o.UnitNorm = true }, x, labels, "examples scaled to unit norm: false in the checkpoint, true here"},
		{"own Grams", "pairs", func(o *Options) { o.rowsOnly = true }, x, labels, "sub-problems on dense Grams of their own (set by the memory budget): 6 of 6 in the checkpoint, 0 of 6 here"},
		{"dense", "pairs", func(o *Options) { o.MemBudget = 0 }, x, labels, "this one runs on the dense Gram"},
		{"route", "krr", func(o *Options) { o.Machine, o.MemBudget, o.AtScale = SVM, 0, true }, x, labels, "machine: krr in the checkpoint, svm here"},
		{"seed", "krr", func(o *Options) { o.Seed = 4 }, x, labels, "seed of the centres: 3 in the checkpoint, 4 here"},
		{"centres", "krr", func(o *Options) { o.Centres = 100 }, x, labels, "Falkon's centres: 120 in the checkpoint, 100 here"},
		{"leverage", "krr", func(o *Options) { o.Leverage = true }, x, labels, "centres by leverage scores"},
		{"stored blocks", "krr", func(o *Options) { o.MemBudget, o.AtScale = 0, true }, x, labels, "blocks of K_nM kept in float32 (StoreBytes): 1 in the state, 0 in this fit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := map[string]Options{"pairs": pairs, "rows": rows, "krr": krr}[tc.state]
			if tc.edit != nil {
				tc.edit(&o)
			}
			o.Resume = states[tc.state]
			o.Progress = func(p ScaleProgress) {
				if p.Done > 0 && p.Stage != "validation" {
					t.Errorf("progress %+v before the refusal", p)
				}
			}
			err := New(o).Fit(context.Background(), tc.x, tc.labels)
			if !errors.Is(err, ErrResume) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrResume naming %q", err, tc.want)
			}
		})
	}
}

// TestScaleStateRead: a saved state reads back to the same bytes; a
// truncated, corrupted or foreign file, and payloads that are
// inconsistent, are refused with frame's ErrState naming the problem.
func TestScaleStateRead(t *testing.T) {
	cases := resumeCases(t)
	for _, tc := range []resumeCase{cases[0], cases[4]} {
		_, st, err := fitScaleModel(t, tc.o, 1, 2)
		if !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := st.Save(&b); err != nil {
			t.Fatal(err)
		}
		raw := b.Bytes()
		back, err := ReadScaleState(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		var again bytes.Buffer
		back.Save(&again)
		if !bytes.Equal(again.Bytes(), raw) || back.Done != st.Done || back.Total != st.Total || back.Spec != st.Spec {
			t.Errorf("%s: the state does not read back as written", tc.name)
		}
		flip := bytes.Clone(raw)
		flip[len(flip)/2] ^= 4
		other := bytes.Clone(raw)
		copy(other, frame.DriverMagic)
		for _, bad := range []struct {
			name string
			b    []byte
			want string
		}{
			{"empty", nil, "truncated header"},
			{"truncated", raw[:len(raw)-9], "truncated"},
			{"corrupted", flip, "checksum mismatch"},
			{"foreign", other, "want a checkpoint of a fit at scale, got a training checkpoint"},
			{"text", []byte("route,done\n1,2\nand some more text to fill"), "not a checkpoint of a fit at scale"},
		} {
			if _, err := ReadScaleState(bytes.NewReader(bad.b)); !errors.Is(err, frame.ErrState) || !strings.Contains(err.Error(), bad.want) {
				t.Errorf("%s %s: %v, want ErrState naming %q", tc.name, bad.name, err, bad.want)
			}
		}
	}
}

// TestScaleResumeTakesState: a resumed fit takes the finished
// sub-problems from the state as they are (a bias changed in the state is
// the model's), and continues Falkon from the state's CG vectors (a
// changed search direction changes the model): it does not refit them.
func TestScaleResumeTakesState(t *testing.T) {
	x, labels, _ := scaleData()
	cases := resumeCases(t)
	for _, tc := range []resumeCase{cases[0], cases[1], cases[4]} {
		want, st, err := fitScaleModel(t, tc.o, 1, 2)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if st.cg != nil {
			st.cg.P.Data[0] += 1e-3
		} else {
			st.units[1].u.bias = 42
		}
		o := tc.o
		o.Resume = st
		c := New(o)
		if err := c.Fit(context.Background(), x, labels); err != nil {
			t.Fatal(err)
		}
		m, err := c.Model()
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		c.Save(&got)
		switch {
		case st.cg != nil && bytes.Equal(got.Bytes(), want):
			t.Errorf("%s: a changed CG direction left the model as it was", tc.name)
		case st.cg == nil && m.Outputs[st.units[1].at].Bias != 42:
			t.Errorf("%s: sub-problem %d's bias %v, the state's 42", tc.name, st.units[1].at, m.Outputs[st.units[1].at].Bias)
		}
	}
}
