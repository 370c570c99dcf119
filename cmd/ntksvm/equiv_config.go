package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment/equiv"
)

// config resolves the preset and applies the flags that were set.
func (f *equivFlags) config(set map[string]bool) (equiv.Config, error) {
	c, err := equiv.Preset(f.preset, f.quick)
	if err != nil {
		return c, configError(err, equiv.ErrConfig)
	}
	str := map[string]*string{"loss": &c.Loss, "reg": &c.Reg, "objective": &c.Objective, "decay": &c.Decay, "kernel": &c.Kernel}
	strVal := map[string]string{"loss": f.loss, "reg": f.reg, "objective": f.objective, "decay": f.decay, "kernel": f.kernel}
	for name, p := range str {
		if set[name] {
			*p = strVal[name]
		}
	}
	ints := map[string]struct {
		dst *int
		v   int
	}{"depth": {&c.Depth, f.depth}, "batch": {&c.Batch, f.batch}, "n-train": {&c.NTrain, f.nTrain},
		"n-test": {&c.NTest, f.nTest}, "evals": {&c.Evals, f.evals}}
	for name, p := range ints {
		if set[name] {
			*p.dst = p.v
		}
	}
	if set["reg"] && !set["decay"] {
		c.Decay = ""
	}
	if set["lambda"] {
		c.Lambda = f.lambda
	}
	if set["epsilon"] {
		c.Epsilon = f.epsilon
	}
	if set["seed"] {
		c.Seed = f.seed
	}
	if set["seeds"] {
		c.Seeds = f.seeds
	}
	if set["float64"] {
		c.Float64 = f.float64
	}
	if set["steps"] || set["epochs"] || set["t-max"] {
		c.Steps, c.Epochs, c.TMax, c.MaxSteps = f.steps, f.epochs, f.tMax, 0
	}
	for _, fl := range []string{"loss", "epsilon", "reg", "objective", "decay", "lambda", "width", "widths", "depth", "lr", "batch",
		"steps", "epochs", "t-max", "float64", "n-train", "n-test", "kernel", "seed", "seeds", "init", "evals", "track-train", "track-test"} {
		if set[fl] {
			c.Overrides = append(c.Overrides, "--"+fl)
		}
	}
	if err := f.applyLists(&c, set); err != nil {
		return c, err
	}
	if err := f.applyInit(&c, set); err != nil {
		return c, err
	}
	if err := c.Validate(); err != nil {
		return c, configError(err, equiv.ErrConfig)
	}
	return c, nil
}

// applyLists applies the list flags that were set: widths, step sizes and
// tracked points.
func (f *equivFlags) applyLists(c *equiv.Config, set map[string]bool) error {
	var lists = []struct {
		name string
		s    string
		dst  *[]int
	}{{"width", f.widths, &c.Widths}, {"widths", f.widths, &c.Widths}, {"track-train", f.trackTrain, &c.TrackTrain}, {"track-test", f.trackTest, &c.TrackTest}}
	for _, l := range lists {
		if set[l.name] {
			v, err := parseInts(l.s)
			if err != nil {
				return usageError("--%s: %v", l.name, err)
			}
			*l.dst = v
		}
	}
	if set["lr"] {
		v, err := parseFloats(f.lrs)
		if err != nil {
			return usageError("--lr: %v", err)
		}
		c.LRs = v
	}
	return nil
}

// applyInit sets the initial weights of --init, as an absolute path so
// that --resume from another directory finds them.
func (f *equivFlags) applyInit(c *equiv.Config, set map[string]bool) error {
	if !set["init"] {
		return nil
	}
	if f.init == "" {
		return usageError("--init: empty file name")
	}
	abs, err := filepath.Abs(f.init)
	if err != nil {
		return usageError("--init %q: %v", f.init, err)
	}
	c.Init = abs
	return nil
}

func parseInts(s string) ([]int, error) {
	var v []int
	for _, f := range strings.Split(s, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", f)
		}
		v = append(v, i)
	}
	return v, nil
}

func parseFloats(s string) ([]float64, error) {
	var v []float64
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(x) {
			return nil, fmt.Errorf("%q is not a number", f)
		}
		v = append(v, x)
	}
	return v, nil
}
