package genbound

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// tinyData returns n training and nt test points in R^d, two shifted
// Gaussian classes with labels ±1.
func tinyData(n, nt, d int) *Data {
	rng := rand.New(rand.NewPCG(1, 2))
	mk := func(rows int) (linalg.Matrix[float64], []float64) {
		x, y := linalg.New[float64](rows, d), make([]float64, rows)
		for i := range rows {
			y[i] = float64(1 - 2*(i%2))
			for j := range d {
				x.Set(i, j, (rng.NormFloat64()+0.7*y[i])/math.Sqrt(float64(d)))
			}
		}
		return x, y
	}
	dt := &Data{Name: "tiny"}
	dt.X, dt.Y = mk(n)
	dt.XTest, dt.YTest = mk(nt)
	return dt
}

func tinyConfig() Config {
	c, _ := Preset("figB2")
	c.Preset = "test"
	c.NTrain, c.Width, c.Steps = 30, 64, 20
	return c
}

// TestRunWritesOutputs: a tiny run writes every file; the CSV parses with
// one row per observation, the summary reads back, the SVG is XML, and the
// kernel machine follows the network.
func TestRunWritesOutputs(t *testing.T) {
	for _, authors := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "out")
		cfg := tinyConfig()
		cfg.AuthorsCode = authors
		var log, prog bytes.Buffer
		s, err := Run(context.Background(), cfg, tinyData(40, 25, 6), Options{Out: dir, Log: &log, Progress: &prog})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("authors %v:\n%s%s", authors, log.String(), prog.String())
		if s.Status != "complete" || len(s.Points) != cfg.Steps+1 || s.NTrain != 30 || s.NTest != 25 || s.Reference != nil {
			t.Fatalf("status %q, %d points, n %d, n* %d", s.Status, len(s.Points), s.NTrain, s.NTest)
		}
		f, err := os.Open(filepath.Join(dir, CurvesFile))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != cfg.Steps+2 || len(recs[0]) != len(CurvesHeader) {
			t.Fatalf("%d rows of %d columns", len(recs), len(recs[0]))
		}
		for _, r := range recs[1:] {
			for j, v := range r {
				if _, err := strconv.ParseFloat(v, 64); err != nil {
					t.Fatalf("column %s: %v", CurvesHeader[j], err)
				}
			}
		}
		if tEnd, _ := strconv.ParseFloat(recs[len(recs)-1][1], 64); math.Abs(tEnd-float64(cfg.Steps)*cfg.LR) > 1e-9 {
			t.Errorf("last t = %v", tEnd)
		}
		b, err := os.ReadFile(filepath.Join(dir, SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		var back Summary
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back.Config != cfg || len(back.Points) != len(s.Points) || !sameNum(back.Last.Bound, s.Last.Bound) {
			t.Errorf("summary.json does not read back: %+v", back.Config)
		}
		svg, err := os.ReadFile(filepath.Join(dir, FigureFile))
		if err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(bytes.NewReader(svg))
		for {
			if _, err := dec.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s is not XML: %v", FigureFile, err)
			}
		}
		if !authors && !(s.MaxGapTrain < 1e-2) {
			t.Errorf("max |NN − KM| = %v", s.MaxGapTrain)
		}
		if authors && (!math.IsNaN(float64(s.Last.BoundUnion)) || s.Bound.Delta != 0.99) {
			t.Errorf("authors' code: union bound %v, δ %v", s.Last.BoundUnion, s.Bound.Delta)
		}
		if !authors && !(s.Last.BoundUnion > s.Last.Bound && s.Bound.Delta == 0.01) {
			t.Errorf("union-bound version %v, bound %v, δ %v", s.Last.BoundUnion, s.Last.Bound, s.Bound.Delta)
		}
	}
}

// TestRunEveryMode runs each regularisation and a float64 network, with f₀
// kept, and checks the machine against the network.
func TestRunEveryMode(t *testing.T) {
	for _, reg := range []string{"paper", "theory", "last-layer", "none"} {
		cfg := tinyConfig()
		cfg.Reg, cfg.Lambda, cfg.Float64, cfg.KeepF0, cfg.Loss = reg, 0.5, true, reg == "none", "logistic"
		s, err := Run(context.Background(), cfg, tinyData(30, 10, 6), Options{Out: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if !(s.MaxGapTrain < 1e-2) || !(s.MaxGapTest < 1e-2) {
			t.Errorf("%s: max |NN − KM| train %v test %v", reg, s.MaxGapTrain, s.MaxGapTest)
		}
	}
}

// TestRunValidatesFirst: bad configurations and data are refused before
// any work: no output directory is created.
func TestRunValidatesFirst(t *testing.T) {
	bad := []func(*Config){
		func(c *Config) { c.Loss = "nope" },
		func(c *Config) { c.Reg = "nope" },
		func(c *Config) { c.Objective = "nope" },
		func(c *Config) { c.Lambda = -1 },
		func(c *Config) { c.Width = 0 },
		func(c *Config) { c.Depth = 0 },
		func(c *Config) { c.LR = 0 },
		func(c *Config) { c.Steps = 0 },
		func(c *Config) { c.NTrain = 0 },
		func(c *Config) { c.NTrain = 1000 }, // more than the data has
		func(c *Config) { c.NTest = -1 },
		func(c *Config) { c.Delta = 1 },
		func(c *Config) { c.AuthorsCode, c.Loss = true, "squared" },
	}
	for i, f := range bad {
		c := tinyConfig()
		f(&c)
		dir := filepath.Join(t.TempDir(), "out")
		_, err := Run(context.Background(), c, tinyData(40, 5, 3), Options{Out: dir})
		if !errors.Is(err, ErrConfig) {
			t.Errorf("case %d: %v", i, err)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("case %d: the output directory was created", i)
		}
	}
	if _, err := Run(context.Background(), tinyConfig(), tinyData(40, 5, 3), Options{}); !errors.Is(err, ErrConfig) {
		t.Errorf("no output directory: %v", err)
	}
	if _, err := Run(context.Background(), tinyConfig(), tinyData(40, 5, 3), Options{Out: t.TempDir(), MemAvailable: 1000}); !errors.Is(err, ErrConfig) {
		t.Errorf("memory: %v", err)
	}
}

// TestRunCancelled: a cancelled run stops and reports it.
func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, err := Run(ctx, tinyConfig(), tinyData(40, 5, 3), Options{Out: t.TempDir()})
	if !errors.Is(err, context.Canceled) || s == nil || s.Status != "interrupted" {
		t.Errorf("err %v, summary %+v", err, s)
	}
}

// TestPreset: the presets resolve to their documented values.
func TestPreset(t *testing.T) {
	c, err := Preset("figB2")
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Preset: "figB2", Loss: "hinge", Reg: "paper", Objective: "mean", Lambda: 0.001,
		Width: 100, Depth: 1, LR: 0.1, Steps: 100, NTrain: 1000}
	if c != want {
		t.Errorf("figB2 = %+v, want %+v", c, want)
	}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
	for _, name := range Presets {
		if _, err := Preset(name); err != nil {
			t.Error(err)
		}
	}
	c.Seed, c.AuthorsCode, c.Float64 = 3, true, true
	if !figB2Setting(c) {
		t.Error("figB2 with another seed is not the figure's setting")
	}
	c.Width = 200
	if figB2Setting(c) {
		t.Error("figB2 at width 200 is still the figure's setting")
	}
	if _, err := Preset("fig9"); !errors.Is(err, ErrConfig) {
		t.Errorf("unknown preset: %v", err)
	}
}

// sameNum reports a == b, NaN equal to NaN.
func sameNum(a, b Num) bool {
	return a == b || (math.IsNaN(float64(a)) && math.IsNaN(float64(b)))
}
