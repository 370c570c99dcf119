package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment/equiv"
	"github.com/ntksvm/ntksvm/linalg"
)

// "ntksvm equiv" trains a network and its kernel machine side by side
// (paper Figs. 1 and A.1) and sweeps the width; the pipeline lives in
// cmd/internal/experiment/equiv.

const equivUsage = `[--preset fig1|figA1|custom] [--quick] [flags]

Trains the network and the kernel machine with its NTK on the same batches, with the same η
and matched λ (see --reg), evaluating both at log-spaced steps, and writes curves.csv,
summary.json and SVG figures into --out. Every preset value can be overridden by a flag.
Several widths (--widths 256,1024,4096) add the width sweep: max_t |f − g| per width and
its fitted log–log slope (theory: −1/2). --init W.npz starts every run from given weights
(PyTorch's out×in layout) instead of drawn ones. --resume DIR continues an interrupted run.`

// equivFlags are the flags of "ntksvm equiv".
type equivFlags struct {
	preset, loss, reg, objective, decay, kernel string
	widths, lrs, trackTrain, trackTest          string
	lambda, epsilon, tMax                       float64
	depth, batch, steps, epochs, nTrain, nTest  int
	evals, checkpointEvery, threads, seeds      int
	seed                                        uint64
	quick, float64, estimate                    bool
	out, resume, init                           string
	data                                        dataFlags
	cls                                         classFlags
}

func (f *equivFlags) add(fs *flag.FlagSet, e *env) {
	fs.StringVar(&f.preset, "preset", "custom", "fig1 (paper Fig. 1), figA1 (Fig. A.1) or custom (a small default)")
	fs.BoolVar(&f.quick, "quick", false, "the preset's reduced setting (smaller width and fewer steps; stated in the output)")
	fs.StringVar(&f.loss, "loss", "", "hinge, squared-hinge, squared, eps-insensitive or logistic")
	fs.Float64Var(&f.epsilon, "epsilon", 0, "ε of the eps-insensitive loss")
	fs.StringVar(&f.reg, "reg", "", "paper (λ/2‖W_last/√m‖², train_sgd.py), theory (λ/2‖W − W_0‖², every layer), last-layer or none")
	fs.StringVar(&f.objective, "objective", "", "mean (paper eq. 11) or sum (eq. 7)")
	fs.StringVar(&f.decay, "decay", "", "kernel machine's minibatch decay: lazy (train_sgd.py) or exact (default: lazy for --reg paper, else exact)")
	fs.Float64Var(&f.lambda, "lambda", 0, "regularisation λ")
	fs.StringVar(&f.widths, "width", "", "network width(s) m, comma-separated")
	fs.StringVar(&f.widths, "widths", "", "same as --width: several widths give the width sweep")
	fs.IntVar(&f.depth, "depth", 0, "hidden layers L (the paper's 3-layer network is L = 2)")
	fs.StringVar(&f.lrs, "lr", "", "step size(s) η, comma-separated (every width at the first, the widest at the others)")
	intFunc(fs, &f.batch, "batch", "minibatch size B (0: full batch)")
	fs.IntVar(&f.steps, "steps", 0, "steps per run (replaces the preset's --epochs or --t-max)")
	fs.IntVar(&f.epochs, "epochs", 0, "epochs per run")
	fs.Float64Var(&f.tMax, "t-max", 0, "train up to time t = step·η")
	fs.BoolVar(&f.float64, "float64", false, "the network in float64 (default float32)")
	intFunc(fs, &f.nTrain, "n-train", "first N training points of MNIST 0/1 (0: all 12,665)")
	intFunc(fs, &f.nTest, "n-test", "first N test points (0: all 2,115)")
	fs.StringVar(&f.kernel, "kernel", "", "analytic (infinite-width NTK), empirical (the network's tangent kernel at init) or both")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the initial weights and the batch order (preset: 6; with --init, of the batch order only)")
	fs.StringVar(&f.init, "init", "", "start every run from the weights in `W.npz` (or a directory of .npy files; PyTorch's out×in layout, no biases) instead of drawing them")
	fs.IntVar(&f.seeds, "seeds", 1, "repeat every width at the first η with this many seeds (the sweep fits them all)")
	fs.IntVar(&f.evals, "evals", 0, "evaluation count: the unique steps of round(logspace(0, log10(steps), N))")
	fs.StringVar(&f.trackTrain, "track-train", "", "tracked training points, comma-separated indices")
	fs.StringVar(&f.trackTest, "track-test", "", "tracked test points, comma-separated indices")
	fs.StringVar(&f.out, "out", "equiv-out", "output `directory`")
	fs.StringVar(&f.resume, "resume", "", "continue the run in `DIR` from its checkpoints and config.json")
	fs.IntVar(&f.checkpointEvery, "checkpoint-every", 0, fmt.Sprintf("checkpoint every N steps (0: about every 10 minutes; −1: only on interrupt, then written however long it takes; otherwise the interrupt's checkpoint is skipped if not written within %v of the signal)", equiv.InterruptSaveBudget))
	fs.IntVar(&f.threads, "threads", 0, "threads for the linear algebra (0: all cores)")
	fs.BoolVar(&f.estimate, "estimate", false, "time the first step, print the estimate and stop")
	f.data.addExperiment(fs, e, &f.cls)
}

// intFunc registers an integer flag without a default of its own (the
// preset's applies when it is not set).
func intFunc(fs *flag.FlagSet, dst *int, name, usage string) {
	fs.Func(name, usage+" (default: the preset's)", func(v string) error {
		i, err := strconv.Atoi(v)
		*dst = i
		return err
	})
}

// resumeFlags are the flags allowed beside --resume: the experiment itself
// comes from DIR/config.json.
var resumeFlags = map[string]bool{"resume": true, "out": true, "threads": true, "checkpoint-every": true,
	"mnist": true, "mnist-dir": true, "allow-noncanonical": true}

func runEquiv(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "equiv", equivUsage)
	f := &equivFlags{}
	f.add(fs, e)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if err := f.checkCounts(); err != nil {
		return err
	}
	var cfg equiv.Config
	var err error
	if f.resume != "" {
		for name := range set {
			if !resumeFlags[name] && !slices.Contains(experimentFlags, name) {
				return usageError("--%s with --resume: the experiment's settings come from %s/config.json", name, f.resume)
			}
		}
		if set["out"] && f.out != f.resume {
			return usageError("--out %s with --resume %s: a resumed run writes into its own directory", f.out, f.resume)
		}
		f.out = f.resume
		if cfg, err = equiv.ReadConfig(f.resume); err != nil {
			return err
		}
	} else if cfg, err = f.config(set); err != nil {
		return err
	}
	linalg.SetThreads(f.threads)
	release, err := lockOutDir(f.out)
	if err != nil {
		return err
	}
	defer release()
	data, err := experimentData(e, f.data, f.cls)
	if err != nil {
		return err
	}
	capCounts(f.data, set, data, &cfg.NTrain, &cfg.NTest) // a resumed run's counts are capped already
	opt := equiv.Options{Out: f.out, Resume: f.resume != "", CheckpointEvery: f.checkpointEvery, Log: e.stderr,
		Progress: e.stderr, Terminal: e.isTerminal, EstimateOnly: f.estimate}
	if avail, ok := availableMemory(); ok {
		opt.MemAvailable = int64(min(avail, math.MaxInt64/2))
	}
	if cfg.Quick {
		fmt.Fprintf(e.stdout, "--quick (%s): %s\n", cfg.Preset, strings.Join(cfg.Reductions, "; "))
		if len(cfg.Overrides) > 0 {
			fmt.Fprintf(e.stdout, "  overridden by %s\n", strings.Join(cfg.Overrides, " "))
		}
	}
	s, err := equiv.Run(ctx, cfg, data, opt)
	if s != nil {
		printEquiv(e.stdout, s)
		fmt.Fprintf(e.stdout, "outputs in %s\n", f.out)
	}
	return err
}

// printEquiv prints each run's mapping and final numbers, and the sweep.
func printEquiv(w io.Writer, s *equiv.Summary) {
	fmt.Fprintf(w, "%s: n = %d train, %d test, L = %d, %s loss, %s objective, reg %s, λ = %g, %s kernel; status %s\n",
		s.Data, s.NTrain, s.NTest, s.Config.Depth, s.Config.Loss, s.Config.Objective, s.Config.Reg, s.Config.Lambda, s.Config.Kernel, s.Status)
	for i, r := range s.Runs {
		if len(r.Evals) == 0 {
			continue
		}
		last := r.Evals[len(r.Evals)-1]
		fmt.Fprintf(w, "run %d: m = %d, η = %g, %d/%d steps (t = %.6g), %.1fs\n  λ: %v\n", i+1, r.Width, r.LR, r.Done, r.Steps, last.T, r.Seconds, r.Mapping)
		for k, m := range last.Models {
			fmt.Fprintf(w, "  %-7s train loss %.4g acc %.4g | test loss %.4g acc %.4g\n", r.Models[k],
				float64(m.TrainLoss), float64(m.TrainAcc), float64(m.TestLoss), float64(m.TestAcc))
		}
		for k := range last.Gaps {
			g, mx := last.Gaps[k], equiv.Gap{}
			if len(r.MaxGap) > k {
				mx = r.MaxGap[k]
			}
			fmt.Fprintf(w, "  |f − g| %s at step %d: train max %.4g mean %.4g, test max %.4g mean %.4g; max over t: train %.4g, test %.4g\n",
				r.Models[k+1], last.Step, float64(g.TrainMax), float64(g.TrainMean), float64(g.TestMax), float64(g.TestMean),
				float64(mx.TrainMax), float64(mx.TestMax))
		}
	}
	if sw := s.Sweep; sw != nil {
		fmt.Fprintf(w, "width sweep (%s, η = %g, %d seed(s), means over seeds): width, max_t max_i |f − g| train, test, max_t mean_i train, final max_i train\n",
			sw.Model, s.Config.LRs[0], sw.Seeds)
		for i, m := range sw.Widths {
			fmt.Fprintf(w, "  %7d  %.4g  %.4g  %.4g  %.4g\n", m, sw.Gap[i], float64(sw.GapTest[i]), sw.GapMean[i], sw.Final[i])
		}
		fmt.Fprintf(w, "  log–log slope %.3f ± %.3f (max_t max_i), %.3f ± %.3f (max_t mean_i), %.3f ± %.3f (final); theory −0.5\n",
			float64(sw.Slope), float64(sw.SE), float64(sw.SlopeMean), float64(sw.SEMean), float64(sw.SlopeFinal), float64(sw.SEFinal))
	}
}

// checkCounts refuses a negative --threads and a --checkpoint-every below
// −1, each in a message of its own.
func (f *equivFlags) checkCounts() error {
	if f.threads < 0 {
		return usageError("--threads %d: want ≥ 0 (0: all cores)", f.threads)
	}
	if f.checkpointEvery < -1 {
		return usageError("--checkpoint-every %d: want ≥ 0 (0: about every 10 minutes) or −1 (only on interrupt)", f.checkpointEvery)
	}
	return nil
}
