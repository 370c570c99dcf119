package reproduce

import (
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment/equiv"
)

// TestFig1Rows: the row compares the largest gaps of the narrowest and
// the widest run at the first step size over the whole runs; the note
// gives the same ratio up to each decade of t, runs at the other step
// size left out.
func TestFig1Rows(t *testing.T) {
	run := func(width int, lr float64, gaps map[float64]float64) equiv.RunResult {
		r := equiv.RunResult{RunSpec: equiv.RunSpec{Width: width, LR: lr}}
		for _, tt := range []float64{0.1, 1, 5, 10, 50, 100} {
			r.Evals = append(r.Evals, equiv.Eval{T: tt, Gaps: []equiv.Gap{{TrainMax: equiv.Num(gaps[tt])}}})
		}
		r.MaxGap = []equiv.Gap{{TrainMax: equiv.Num(gaps[100])}}
		return r
	}
	s := &equiv.Summary{Config: equiv.Config{LRs: []float64{0.1, 0.01}}, Runs: []equiv.RunResult{
		run(10000, 0.1, map[float64]float64{0.1: 0.001, 1: 0.002, 5: 0.01, 10: 0.02, 50: 0.05, 100: 0.1}),
		run(900, 0.1, map[float64]float64{0.1: 0.004, 1: 0.006, 5: 0.03, 10: 0.08, 50: 0.3, 100: 0.2}),
		run(100, 0.01, map[float64]float64{0.1: 9, 1: 9, 5: 9, 10: 9, 50: 9, 100: 9}), // another η̂: ignored
	}}
	rows := fig1Rows(s, "")
	if len(rows) != 1 || rows[0].Ours != 2 || rows[0].Paper != "3.33" {
		t.Fatalf("rows %+v, want one with ours 0.2/0.1 = 2 and paper √(10000/900) = 3.33", rows)
	}
	note := fig1Horizons(s)
	for _, want := range []string{"width 900 over that at width 10000", "t ≤ 1: 3 (0.006 / 0.002)", "t ≤ 10: 4 (0.08 / 0.02)", "t ≤ 100: 3 (0.3 / 0.1)", "= 3.33"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
	if strings.Contains(note, "t ≤ 1000") {
		t.Errorf("note %q goes past the runs' last t = 100", note)
	}
	s.Runs = s.Runs[:1]
	if rows, note := fig1Rows(s, ""), fig1Horizons(s); rows != nil || note != "" {
		t.Errorf("one run: rows %v, note %q; want none", rows, note)
	}
}

// TestTrackedSpread: the spread is the kernel machine (model 1) minus the
// network (model 0), smallest to largest, and absent without tracked points.
func TestTrackedSpread(t *testing.T) {
	e := &equiv.Eval{Models: []equiv.ModelEval{
		{TrackTrain: []equiv.Num{0.1, 0.5, -0.2}},
		{TrackTrain: []equiv.Num{0.7, 0.08, -0.4}},
	}}
	if got, want := trackedSpread(e), "; SVM − NN at the 3 tracked training points -0.42 … +0.60"; got != want {
		t.Errorf("trackedSpread = %q, want %q", got, want)
	}
	if got := trackedSpread(&equiv.Eval{Models: []equiv.ModelEval{{}, {}}}); got != "" {
		t.Errorf("no tracked points: %q, want \"\"", got)
	}
}
