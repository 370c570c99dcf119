package equiv

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ntksvm/ntksvm/cmd/internal/present/progress"
	"github.com/ntksvm/ntksvm/linalg"
)

// synthetic returns n training and nt test points in d dimensions with
// labels ±1 from the sign of a fixed linear function (pixels in [0, 1]).
func synthetic(n, nt, d int) *Data {
	rng := rand.New(rand.NewPCG(7, 7))
	w := make([]float64, d)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	gen := func(k int) (linalg.Matrix[float64], []float64) {
		x := linalg.New[float64](k, d)
		y := make([]float64, k)
		for i := range k {
			s := 0.0
			for j, v := range x.Row(i) {
				_ = v
				x.Row(i)[j] = rng.Float64()
				s += w[j] * (x.Row(i)[j] - 0.5)
			}
			y[i] = 1
			if s < 0 {
				y[i] = -1
			}
		}
		return x, y
	}
	data := &Data{Name: "synthetic"}
	data.X, data.Y = gen(n)
	data.XTest, data.YTest = gen(nt)
	return data
}

// small is a fast configuration on synthetic data.
func small() Config {
	c, _ := Preset("custom", false)
	c.NTrain, c.NTest = 0, 0
	c.Widths = []int{64}
	c.Steps = 30
	c.Evals = 12
	c.LRs = []float64{0.5}
	c.Lambda = 0.01
	return c
}

// parseXML fails the test unless b is well-formed XML.
func parseXML(t *testing.T, name string, b []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	for {
		_, err := dec.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("%s: not XML: %v", name, err)
		}
	}
}

func TestPresets(t *testing.T) {
	f, err := Preset("fig1", false)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Preset: "fig1", Loss: "hinge", Objective: "mean", Reg: "paper", Lambda: 0.001, Kernel: KernelAnalytic, Seed: 6,
		NTrain: 128, NTest: 128, Depth: 2, Widths: []int{10000, 900}, LRs: []float64{0.1, 0.01}, TMax: 1000, Evals: 100}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("fig1 = %+v\nwant %+v", f, want)
	}
	runs := f.Runs(128)
	wantRuns := []RunSpec{{10000, 0.1, 10000, 6}, {900, 0.1, 10000, 6}, {10000, 0.01, 100000, 6}}
	if !reflect.DeepEqual(runs, wantRuns) {
		t.Errorf("fig1 runs = %v, want %v", runs, wantRuns)
	}
	a, err := Preset("figA1", false)
	if err != nil {
		t.Fatal(err)
	}
	wantA := Config{Preset: "figA1", Loss: "hinge", Objective: "mean", Reg: "paper", Decay: "lazy", Lambda: 0.001, Kernel: KernelAnalytic, Seed: 6,
		Depth: 1, Widths: []int{10000}, LRs: []float64{1}, Batch: 64, Epochs: 300, Evals: 300,
		TrackTrain: []int{2761, 8419, 10196, 4714, 8527}, TrackTest: []int{848, 1305, 1721, 26, 1953}}
	if !reflect.DeepEqual(a, wantA) {
		t.Errorf("figA1 = %+v\nwant %+v", a, wantA)
	}
	if r := a.Runs(12665); len(r) != 1 || r[0].Steps != 59400 {
		t.Errorf("figA1 runs = %v, want one of 59400 steps", r)
	}
	q, _ := Preset("fig1", true)
	if !q.Quick || len(q.Reductions) == 0 || q.MaxSteps != 1000 || !slices.Equal(q.Widths, []int{2000, 900}) {
		t.Errorf("quick fig1 = %+v", q)
	}
	if r := q.Runs(128); r[2].Steps != 1000 || r[0].Steps != 1000 {
		t.Errorf("quick fig1 runs = %v", r)
	}
	qa, _ := Preset("figA1", true)
	if qa.Widths[0] != 2000 || qa.Epochs != 10 || qa.Runs(12665)[0].Steps != 1980 {
		t.Errorf("quick figA1 = %+v", qa)
	}
	if _, err := Preset("fig2", false); !errors.Is(err, ErrConfig) {
		t.Errorf("unknown preset: %v", err)
	}
	for _, name := range Presets {
		c, err := Preset(name, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
	}{
		{"loss", func(c *Config) { c.Loss = "zero-one" }},
		{"reg", func(c *Config) { c.Reg = "l1" }},
		{"objective", func(c *Config) { c.Objective = "median" }},
		{"decay", func(c *Config) { c.Decay = "slow" }},
		{"lambda", func(c *Config) { c.Lambda = -1 }},
		{"lambda NaN", func(c *Config) { c.Lambda = math.NaN() }},
		{"width", func(c *Config) { c.Widths = []int{0} }},
		{"duplicate width", func(c *Config) { c.Widths = []int{8, 8} }},
		{"no width", func(c *Config) { c.Widths = nil }},
		{"depth", func(c *Config) { c.Depth = 0 }},
		{"lr", func(c *Config) { c.LRs = []float64{0} }},
		{"batch", func(c *Config) { c.Batch = -1 }},
		{"two lengths", func(c *Config) { c.Epochs = 3 }},
		{"no length", func(c *Config) { c.Steps = 0 }},
		{"kernel", func(c *Config) { c.Kernel = "rbf" }},
		{"evals", func(c *Config) { c.Evals = 0 }},
		{"track", func(c *Config) { c.TrackTrain = []int{-1} }},
	} {
		c := small()
		tc.edit(&c)
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: Validate = %v, want ErrConfig", tc.name, err)
		}
	}
	c := small()
	c.TrackTrain = []int{100}
	if _, err := Run(context.Background(), c, synthetic(20, 10, 6), Options{Out: t.TempDir()}); !errors.Is(err, ErrConfig) {
		t.Errorf("tracked point out of range: %v", err)
	}
	c = small()
	c.NTrain = 50
	if _, err := Run(context.Background(), c, synthetic(20, 10, 6), Options{Out: t.TempDir()}); !errors.Is(err, ErrConfig) {
		t.Errorf("n-train beyond the data: %v", err)
	}
}

func TestMapping(t *testing.T) {
	c := small()
	c.Reg, c.Batch, c.Lambda = "paper", 64, 0.001
	p, err := c.parse()
	if err != nil {
		t.Fatal(err)
	}
	m := c.mapping(p, 10000, 12665)
	if m.KernelDecay != "lazy" || m.KernelLambda != 0.001 || math.Abs(m.KernelEq7-0.064) > 1e-15 ||
		math.Abs(m.KernelRate-0.064/12665) > 1e-18 || float64(m.NetworkDecay) != 1e-7 || m.Matched {
		t.Errorf("paper mapping = %+v", m)
	}
	c.Reg, c.Decay = "theory", ""
	p, _ = c.parse()
	m = c.mapping(p, 10000, 12665)
	if m.KernelDecay != "exact" || m.KernelRate != 0.001 || float64(m.NetworkDecay) != 0.001 || !m.Matched {
		t.Errorf("theory mapping = %+v", m)
	}
	c.Reg = "none"
	p, _ = c.parse()
	if m = c.mapping(p, 100, 128); m.KernelLambda != 0 || !m.Matched {
		t.Errorf("none mapping = %+v", m)
	}
}

func TestFitLogLog(t *testing.T) {
	for _, tc := range []struct{ b, a float64 }{{-0.5, 1}, {-1, 3}, {0.25, -2}} {
		var x, y []float64
		for _, m := range []float64{256, 1024, 4096, 16384} {
			x = append(x, m)
			y = append(y, math.Exp(tc.a+tc.b*math.Log(m)))
		}
		slope, se, icpt := FitLogLog(x, y)
		if math.Abs(slope-tc.b) > 1e-12 || se > 1e-12 || math.Abs(icpt-tc.a) > 1e-9 {
			t.Errorf("line %v: slope %v, se %v, intercept %v", tc, slope, se, icpt)
		}
	}
	// Known residuals: log y = (0, 1, 0) over log x = (0, 1, 2) has slope 0,
	// RSS 2/3 and SE √(2/3/1/2) = 0.5773….
	slope, se, _ := FitLogLog([]float64{1, math.E, math.E * math.E}, []float64{1, math.E, 1})
	if math.Abs(slope) > 1e-12 || math.Abs(se-math.Sqrt(1.0/3)) > 1e-12 {
		t.Errorf("slope %v, se %v; want 0, %v", slope, se, math.Sqrt(1.0/3))
	}
	if _, se, _ := FitLogLog([]float64{1, 2}, []float64{1, 2}); !math.IsNaN(se) {
		t.Errorf("two points: se %v, want NaN", se)
	}
	if s, _, _ := FitLogLog([]float64{1}, []float64{1}); !math.IsNaN(s) {
		t.Errorf("one point: slope %v, want NaN", s)
	}
}

func readAll(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRunWritesOutputs(t *testing.T) {
	c := small()
	c.Kernel = KernelBoth
	c.Widths = []int{32, 128, 512}
	c.LRs = []float64{0.5, 0.25}
	dir := t.TempDir()
	var log bytes.Buffer
	s, err := Run(context.Background(), c, synthetic(24, 12, 8), Options{Out: dir, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if s.Status != "complete" || len(s.Runs) != 4 {
		t.Fatalf("status %q, %d runs", s.Status, len(s.Runs))
	}
	if !strings.Contains(log.String(), "estimated time") {
		t.Errorf("no estimate in the log:\n%s", log.String())
	}
	for _, name := range []string{CurvesFile, SummaryFile, "config.json", Fig1File, GapFile, SweepFile, SweepSVG} {
		b := readAll(t, dir, name)
		if strings.HasSuffix(name, ".svg") {
			parseXML(t, name, b)
		}
	}
	head, rows, err := ReadCurves(readAll(t, dir, CurvesFile))
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, r := range s.Runs {
		want += len(r.Evals)
		if !r.Complete || r.Done != r.Steps || len(r.Models) != 3 {
			t.Errorf("run %+v", r.RunSpec)
		}
	}
	if len(rows) != want || len(head) != len(rows[0]) {
		t.Errorf("curves: %d rows (want %d), %d columns in the header and %d in a row", len(rows), want, len(head), len(rows[0]))
	}
	if !slices.Contains(head, "gap_km_emp_train_max") || !slices.Contains(head, "nn_train_out_2") {
		t.Errorf("curves header %v", head)
	}
	var back Summary
	if err := json.Unmarshal(readAll(t, dir, SummaryFile), &back); err != nil {
		t.Fatal(err)
	}
	if back.Sweep == nil || len(back.Sweep.Widths) != 3 || math.IsNaN(float64(back.Sweep.SE)) {
		t.Errorf("sweep %+v", back.Sweep)
	}
	// Step 1 is the initial state: every output 0.
	for _, m := range s.Runs[0].Evals[0].Models {
		for _, v := range m.TrackTrain {
			if v != 0 {
				t.Errorf("output %v at step 1, want 0", v)
			}
		}
	}
	// The empirical kernel machine follows a wide network more closely
	// than the analytic one does at the smallest width... at least it
	// tracks it: the gap is far below the outputs' size.
	last := s.Runs[2].Evals[len(s.Runs[2].Evals)-1]
	if g := float64(last.Gaps[1].TrainMax); !(g < 0.2) {
		t.Errorf("m = 512: empirical-kernel gap %v", g)
	}
	cfg, err := ReadConfig(dir)
	if err != nil || !reflect.DeepEqual(cfg, c) {
		t.Errorf("ReadConfig = %+v, %v", cfg, err)
	}
}

func TestMinibatchFigA1(t *testing.T) {
	c := small()
	c.Batch, c.Steps, c.Epochs = 8, 0, 4
	c.Reg, c.Decay = "paper", ""
	dir := t.TempDir()
	s, err := Run(context.Background(), c, synthetic(20, 10, 6), Options{Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	if s.Runs[0].Steps != 12 || s.Runs[0].Mapping.KernelDecay != "lazy" {
		t.Errorf("run %+v mapping %+v", s.Runs[0].RunSpec, s.Runs[0].Mapping)
	}
	parseXML(t, FigA1File, readAll(t, dir, FigA1File))
}

// countCtx is a context whose Err reports cancellation after limit calls:
// the Driver asks once per step, so it interrupts at a chosen step.
type countCtx struct {
	context.Context
	n, limit int
}

func (c *countCtx) Err() error {
	c.n++
	if c.n > c.limit {
		return context.Canceled
	}
	return nil
}

func TestResumeBitIdentical(t *testing.T) {
	c := small()
	c.Widths = []int{48, 96}
	c.Kernel = KernelBoth
	c.Batch, c.Steps, c.Epochs = 6, 0, 5
	c.Reg = "theory"
	data := synthetic(20, 10, 6)
	ref := t.TempDir()
	if _, err := Run(context.Background(), c, data, Options{Out: ref}); err != nil {
		t.Fatal(err)
	}
	want := readAll(t, ref, CurvesFile)
	for _, limit := range []int{5, 23, 27} { // in run 1; in run 2 (after the 20 steps of run 1)
		dir := t.TempDir()
		_, err := Run(&countCtx{Context: context.Background(), limit: limit}, c, data, Options{Out: dir, CheckpointEvery: 3})
		if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) {
			t.Fatalf("limit %d: interrupted run returned %v", limit, err)
		}
		var s Summary
		if err := json.Unmarshal(readAll(t, dir, SummaryFile), &s); err != nil || s.Status != "interrupted" {
			t.Fatalf("limit %d: summary status %q, %v", limit, s.Status, err)
		}
		for i, r := range s.Runs { // an unfinished run reports its largest gap so far
			var mx float64
			for _, e := range r.Evals {
				mx = max(mx, float64(e.Gaps[0].TrainMax))
			}
			if len(r.Evals) > 0 && (len(r.MaxGap) == 0 || float64(r.MaxGap[0].TrainMax) != mx) {
				t.Errorf("limit %d: run %d's max gap %v, want %g over its %d evaluations", limit, i+1, r.MaxGap, mx, len(r.Evals))
			}
		}
		cfg, err := ReadConfig(dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(context.Background(), cfg, data, Options{Out: dir, Resume: true}); err != nil {
			t.Fatalf("limit %d: resume: %v", limit, err)
		}
		if got := readAll(t, dir, CurvesFile); !bytes.Equal(got, want) {
			t.Errorf("limit %d: resumed curves differ from the uninterrupted run", limit)
		}
		if _, err := os.Stat(filepath.Join(dir, "run1.ckpt")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("limit %d: checkpoint left behind after the run finished", limit)
		}
	}
}

// TestResumedSecondsAdd: a run's Seconds is the sum over its sessions: the
// checkpoint written at an interrupt carries the interrupted session's
// training time, which the resumed session adds to (the clock advances a
// second per reading).
func TestResumedSecondsAdd(t *testing.T) {
	c := small()
	c.Widths = []int{48}
	c.Batch, c.Steps, c.Epochs = 6, 0, 5
	data := synthetic(20, 10, 6)
	var tick time.Time
	clock := func() time.Time { tick = tick.Add(time.Second); return tick }
	dir := t.TempDir()
	_, err := Run(&countCtx{Context: context.Background(), limit: 12}, c, data, Options{Out: dir, CheckpointEvery: 100, Now: clock})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("interrupted run returned %v", err)
	}
	var s1 Summary
	if err := json.Unmarshal(readAll(t, dir, SummaryFile), &s1); err != nil {
		t.Fatal(err)
	}
	cfg, err := ReadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := Run(context.Background(), cfg, data, Options{Out: dir, Resume: true, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	first, total := s1.Runs[0].Seconds, s2.Runs[0].Seconds
	if first < 3 || total < first+3 {
		t.Errorf("seconds: %g after the interrupted session, %g in all; want the second to add to the first", first, total)
	}
}

func TestNaNStops(t *testing.T) {
	c := small()
	c.Loss, c.LRs = "squared", []float64{1e30}
	dir := t.TempDir()
	_, err := Run(context.Background(), c, synthetic(20, 10, 6), Options{Out: dir, CheckpointEvery: 1})
	if err == nil || !strings.Contains(err.Error(), "step") || errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v, want a NaN/Inf error naming the step", err)
	}
	var s Summary
	if err := json.Unmarshal(readAll(t, dir, SummaryFile), &s); err != nil || !strings.HasPrefix(s.Status, "failed") {
		t.Errorf("status %q, %v", s.Status, err)
	}
}

func TestMemoryRefused(t *testing.T) {
	c := small()
	c.Widths = []int{1 << 20}
	c.Depth = 3
	_, err := Run(context.Background(), c, synthetic(20, 10, 6), Options{Out: t.TempDir(), MemAvailable: 1 << 30})
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "GiB") {
		t.Fatalf("err = %v", err)
	}
}

func TestEstimateOnly(t *testing.T) {
	c := small()
	dir := t.TempDir()
	var log bytes.Buffer
	s, err := Run(context.Background(), c, synthetic(20, 10, 6), Options{Out: dir, Log: &log, EstimateOnly: true})
	if err != nil || s.Status != "estimate" || s.Estimate <= 0 {
		t.Fatalf("status %q estimate %v err %v", s.Status, s.Estimate, err)
	}
}

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	now := func() func() time.Time {
		t0 := time.Unix(0, 0)
		return func() time.Time { t0 = t0.Add(time.Second); return t0 }
	}()
	p := progress.New(&b, false, "run", 20).Unit("steps").Clock(now)
	for range 20 {
		p.Add(1)
	}
	p.Done()
	if !strings.Contains(b.String(), "ETA") || !strings.Contains(b.String(), "20/20 steps in") {
		t.Errorf("progress:\n%s", b.String())
	}
	b.Reset()
	p = progress.New(&b, true, "run", 20).Unit("steps").Clock(now)
	p.Add(1)
	if !strings.Contains(b.String(), "\r\033[K") || !strings.Contains(b.String(), "[") {
		t.Errorf("terminal progress: %q", b.String())
	}
}

func TestSweepSeeds(t *testing.T) {
	c := small()
	c.Widths, c.Seeds, c.Steps = []int{32, 64, 128}, 2, 10
	s, err := Run(context.Background(), c, synthetic(16, 8, 5), Options{Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Runs) != 6 || s.Runs[3].Seed != c.Seed+1 || s.Sweep == nil || s.Sweep.Seeds != 2 || len(s.Sweep.Widths) != 3 {
		t.Fatalf("runs %d, sweep %+v", len(s.Runs), s.Sweep)
	}
	if s.Runs[0].Evals[1].Models[0].TrackTrain[0] == s.Runs[3].Evals[1].Models[0].TrackTrain[0] {
		t.Errorf("two seeds gave the same network")
	}
}

// TestFreshRunDropsOldState checks that a run started without Resume in a
// directory holding another configuration's finished runs cannot later be
// resumed from them: interrupted and resumed, it gives the curves of its
// own uninterrupted run.
func TestFreshRunDropsOldState(t *testing.T) {
	c := small()
	c.Batch, c.Steps, c.Epochs = 6, 0, 5
	data := synthetic(20, 10, 6)
	ref := t.TempDir()
	if _, err := Run(context.Background(), c, data, Options{Out: ref}); err != nil {
		t.Fatal(err)
	}
	want := readAll(t, ref, CurvesFile)

	dir := t.TempDir()
	other := c
	other.Seed++
	if _, err := Run(context.Background(), other, data, Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	_, err := Run(&countCtx{Context: context.Background(), limit: 5}, c, data, Options{Out: dir, CheckpointEvery: 3})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("interrupted run returned %v", err)
	}
	if _, err := Run(context.Background(), c, data, Options{Out: dir, Resume: true}); err != nil {
		t.Fatalf("resume: %v", err)
	}
	if got := readAll(t, dir, CurvesFile); !bytes.Equal(got, want) {
		t.Error("resumed curves differ from the uninterrupted run: the other configuration's state was used")
	}
}

// TestRemaining checks the share of the training left in an interrupted
// experiment, read back from its summary: the steps not done, weighted by
// each run's network size; 0 once complete, 1 for another configuration.
func TestRemaining(t *testing.T) {
	c := small()
	c.Widths = []int{48, 96}
	c.Batch, c.Steps, c.Epochs = 6, 0, 5
	data := synthetic(20, 10, 6)
	dir := t.TempDir()
	if got := Remaining(dir, c); got != 1 {
		t.Errorf("empty directory: %v, want 1", got)
	}
	_, err := Run(&countCtx{Context: context.Background(), limit: 27}, c, data, Options{Out: dir, CheckpointEvery: 3})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("interrupted run returned %v", err)
	}
	var s Summary
	if err := json.Unmarshal(readAll(t, dir, SummaryFile), &s); err != nil {
		t.Fatal(err)
	}
	var total, left float64
	for _, r := range s.Runs {
		w := params(s.D, r.Width, c.Depth)
		total += w * float64(r.Steps)
		if !r.Complete {
			left += w * float64(r.Steps-r.Done)
		}
	}
	got := Remaining(dir, c)
	if !(got > 0 && got < 1) || math.Abs(got-left/total) > 1e-12 {
		t.Errorf("interrupted: %v, want %v in (0, 1); runs %+v", got, left/total, s.Runs)
	}
	other := c
	other.Seed++
	if got := Remaining(dir, other); got != 1 {
		t.Errorf("another configuration: %v, want 1", got)
	}
	if _, err := Run(context.Background(), c, data, Options{Out: dir, Resume: true}); err != nil {
		t.Fatal(err)
	}
	if got := Remaining(dir, c); got != 0 {
		t.Errorf("complete: %v, want 0", got)
	}
}
