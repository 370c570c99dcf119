package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment/genbound"
)

// "ntksvm genbound" extracts the kernel machine of a network along its
// training run (paper Theorem 4.1) and evaluates the generalisation bound
// of Appendix B on it (Fig. B.2); the work is in cmd/internal/experiment/genbound.

// genboundFlags are the flags of "ntksvm genbound"; a value set on the
// command line replaces the preset's.
type genboundFlags struct {
	preset, out string
	data        dataFlags
	cls         classFlags
	json        bool
	c           genbound.Config
}

func (f *genboundFlags) add(fs *flag.FlagSet, e *env) {
	fs.StringVar(&f.preset, "preset", "figB2", "preset: "+strings.Join(genbound.Presets, ", ")+" (other flags override its values)")
	fs.StringVar(&f.out, "out", "", "output `directory` for curves.csv, summary.json and genbound.svg (default genbound-PRESET)")
	f.data.addExperiment(fs, e, &f.cls)
	fs.BoolVar(&f.json, "json", false, "print summary.json on stdout instead of the result lines")
	c := &f.c
	fs.StringVar(&c.Loss, "loss", "", "loss: hinge, squared-hinge, squared, eps-insensitive or logistic")
	fs.Float64Var(&c.Epsilon, "epsilon", 0, "ε of the eps-insensitive loss")
	fs.StringVar(&c.Reg, "reg", "", "penalty: paper (λ/2‖W_last/√m‖²), theory (λ/2‖W − W_0‖², every layer), last-layer or none")
	fs.StringVar(&c.Objective, "objective", "", "sum or mean of the losses")
	fs.Float64Var(&c.Lambda, "lambda", 0, "λ of the penalty")
	fs.BoolVar(&c.KeepF0, "keep-f0", false, "train on f itself instead of f − f₀")
	fs.IntVar(&c.Width, "width", 0, "hidden width m")
	fs.IntVar(&c.Depth, "depth", 0, "hidden layers L")
	fs.Float64Var(&c.LR, "lr", 0, "step size η (t = steps·η)")
	fs.IntVar(&c.Steps, "steps", 0, "full-batch updates")
	fs.IntVar(&c.NTrain, "n-train", 0, "first N training points of MNIST 0/1")
	fs.IntVar(&c.NTest, "n-test", 0, "first N test points (0: all 2115)")
	fs.Uint64Var(&c.Seed, "seed", 0, "seed of the network's initialisation")
	fs.BoolVar(&c.Float64, "float64", false, "train the network in float64 (default float32)")
	fs.Float64Var(&c.Delta, "delta", 0, "δ of the bound (default 0.01; 0.99 with --authors-code)")
	fs.BoolVar(&c.AuthorsCode, "authors-code", false, "reproduce generalization.py: δ = 0.99, unclipped loss, every |l'| = 1")
}

// config returns the preset with the flags set on the command line.
func (f *genboundFlags) config(fs *flag.FlagSet) (genbound.Config, error) {
	c, err := genbound.Preset(f.preset)
	if err != nil {
		return c, configError(err, genbound.ErrConfig)
	}
	set := map[string]func(){
		"loss": func() { c.Loss = f.c.Loss }, "epsilon": func() { c.Epsilon = f.c.Epsilon },
		"reg": func() { c.Reg = f.c.Reg }, "objective": func() { c.Objective = f.c.Objective },
		"lambda": func() { c.Lambda = f.c.Lambda }, "keep-f0": func() { c.KeepF0 = f.c.KeepF0 },
		"width": func() { c.Width = f.c.Width }, "depth": func() { c.Depth = f.c.Depth },
		"lr": func() { c.LR = f.c.LR }, "steps": func() { c.Steps = f.c.Steps },
		"n-train": func() { c.NTrain = f.c.NTrain }, "n-test": func() { c.NTest = f.c.NTest },
		"seed": func() { c.Seed = f.c.Seed }, "float64": func() { c.Float64 = f.c.Float64 },
		"delta": func() { c.Delta = f.c.Delta }, "authors-code": func() { c.AuthorsCode = f.c.AuthorsCode },
	}
	fs.Visit(func(fl *flag.Flag) {
		if s, ok := set[fl.Name]; ok {
			s()
		}
	})
	if d := f.c.Delta; setFlags(fs)["delta"] && !(d > 0 && d < 1) { // in a Config, 0 means the default
		return c, usageError("--delta %g: want 0 < δ < 1", d)
	}
	if err := c.Validate(); err != nil {
		return c, configError(err, genbound.ErrConfig)
	}
	return c, nil
}

func runGenbound(ctx context.Context, e *env, args []string) error {
	var f genboundFlags
	fs := newFlagSet(e, "genbound", "[--preset figB2] [--out DIR] [flags]")
	f.add(fs, e)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := f.config(fs)
	if err != nil {
		return err
	}
	if f.out == "" {
		f.out = "genbound-" + f.preset
	}
	release, err := lockOutDir(f.out)
	if err != nil {
		return err
	}
	defer release()
	data, err := experimentData(e, f.data, f.cls)
	if err != nil {
		return err
	}
	capCounts(f.data, setFlags(fs), data, &cfg.NTrain, &cfg.NTest)
	opt := genbound.Options{Out: f.out, Log: e.stderr, Progress: e.stderr, Terminal: e.isTerminal}
	if f.json {
		opt.Log = nil
	}
	if m, ok := availableMemory(); ok {
		opt.MemAvailable = int64(min(m, 1<<62))
	}
	s, err := genbound.Run(ctx, cfg, data, opt)
	if err != nil {
		return err
	}
	if f.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	fmt.Fprintf(e.stdout, "wrote %s/{%s,%s,%s}\n", f.out, genbound.CurvesFile, genbound.SummaryFile, genbound.FigureFile)
	return nil
}
