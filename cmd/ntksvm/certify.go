package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/ntksvm/ntksvm/cmd/internal/present/progress"
	"github.com/ntksvm/ntksvm/ibp"
	"github.com/ntksvm/ntksvm/internal/outpath"
	"github.com/ntksvm/ntksvm/internal/testhold"
)

// "ntksvm certify" computes robustness certificates (paper §4.2, Tables 2
// and 3): for a kernel machine written by "ntksvm train" (NTK of any depth)
// or a network's weights (IBP), the largest radius δ around each test point
// on which the predicted sign provably holds; for a multi-class model of
// "ntksvm cv" or "train", the radius on which the predicted class holds
// (certify_classes.go). The work is done by packages ibp and
// svm/classify/certify; these files parse, validate, wire and print.

// certifyFlags are the flags of "ntksvm certify".
type certifyFlags struct {
	data              dataFlags
	cls               classFlags
	model, net, net0  string
	initSeed          int64
	sigmaW, sigmaB    float64
	norm, points, f0  string
	correctOnly       bool
	tight, clip       bool
	seed              uint64
	init, lo, hi, tol float64
	maxIter, threads  int
	verify            int
	jsonOut           bool
	out               string
	normV             ibp.Norm
	f0V               ibp.F0Mode
	nPoints           int // 0: all
	search            ibp.SearchOptions
}

func (f *certifyFlags) add(fs *flag.FlagSet, e *env) {
	f.data.add(fs, e, "points to certify (default mnist01-test)")
	f.cls.add(fs)
	fs.StringVar(&f.model, "model", "", "kernel machine written by ntksvm train (NTK kernel), or a multi-class model of ntksvm cv or train")
	fs.StringVar(&f.net, "net", "", "network weights (directory or .npz, as ntk.Network.Save writes them) to certify by IBP")
	fs.StringVar(&f.net0, "net0", "", "with --net: the initial network f₀ whose output is subtracted")
	fs.Int64Var(&f.initSeed, "init-seed", -1, "with --net: regenerate f₀ with this seed (ntk.NewNetwork, the shapes of --net) instead of --net0")
	fs.Float64Var(&f.sigmaW, "sigma-w", 1, "with --net: weight standard deviation σ_w of the network")
	fs.Float64Var(&f.sigmaB, "sigma-b", 0, "with --net: bias standard deviation σ_b (0: no bias)")
	fs.StringVar(&f.norm, "norm", "", "perturbation ball: linf (the paper's, the default) or l2; a multi-class model: both unless one is given")
	fs.StringVar(&f.points, "points", "all", "points to certify: all, or N for a random subset drawn with --seed")
	fs.BoolVar(&f.correctOnly, "correct-only", false, "certify only correctly classified points (Table 2)")
	fs.BoolVar(&f.tight, "tight", false, "kernel: also use the exact ℓ∞ norm range and Hölder's bound (never looser than the paper's)")
	fs.BoolVar(&f.clip, "clip", false, "intersect balls with the pixel box [0, 1]^d (the paper does not)")
	fs.StringVar(&f.f0, "f0", "sound", "network: sound (bound f_T − f₀ over the ball), clean (subtract f₀ at the clean point, the authors' ibp.py), none")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the --points subset and of --verify's samples")
	fs.Float64Var(&f.init, "init", -1, "first radius tried (-1: 0.05 for kernel machines, 0.01 for networks)")
	fs.Float64Var(&f.lo, "lo", 0, "lower end of the search bracket")
	fs.Float64Var(&f.hi, "hi", 0.3, "upper end of the search bracket (a multi-class model: doubled while the margin there is above --tol)")
	fs.Float64Var(&f.tol, "tol", 1e-3, "stop once a certified margin is below this")
	fs.IntVar(&f.maxIter, "max-iter", 1000, "at most this many bounds per point")
	fs.IntVar(&f.threads, "threads", 0, "workers (0: GOMAXPROCS)")
	fs.IntVar(&f.verify, "verify", 0, "sample K points in every certified ball and check the exact output's sign (any flip is a bug)")
	fs.BoolVar(&f.jsonOut, "json", false, "print one JSON object instead of text")
	fs.StringVar(&f.out, "out", "", "write index,label,prediction,delta per point to this CSV file (a multi-class model: row,class,radius_linf,radius_l2,reason)")
}

// checkFirst validates the output and --threads before anything is read,
// the model file included.
func (f *certifyFlags) checkFirst() error {
	ins := append(inputs("--data", f.data.data), outpath.Path{Flag: "--model", Path: f.model}, outpath.Path{Flag: "--net", Path: f.net}, outpath.Path{Flag: "--net0", Path: f.net0})
	if err := checkOutputs(outPath("--out", f.out), ins...); err != nil {
		return err
	}
	if f.threads < 0 {
		return usageError("--threads %d: want ≥ 0 (0: GOMAXPROCS)", f.threads)
	}
	return nil
}

// check validates the flags before any work.
func (f *certifyFlags) check() error {
	var err error
	if (f.model == "") == (f.net == "") {
		return usageError("give exactly one of --model and --net")
	}
	if f.data.data == "" {
		f.data.data = "mnist01-test"
	}
	if err := f.data.check("--data", f.data.data); err != nil {
		return err
	}
	if err := f.checkFirst(); err != nil {
		return err
	}
	if f.model != "" && (f.net0 != "" || f.initSeed >= 0) {
		return usageError("--net0 and --init-seed go with --net")
	}
	if f.norm == "" {
		f.norm = "linf"
	}
	if f.normV, err = ibp.ParseNorm(f.norm); err != nil {
		return usageError("--norm: %v", err)
	}
	if f.f0V, err = ibp.ParseF0Mode(f.f0); err != nil {
		return usageError("--f0: %v", err)
	}
	if f.net != "" && f.f0V != ibp.F0None && (f.net0 == "") == (f.initSeed < 0) {
		return usageError("--f0 %s needs the initial network: give one of --net0 and --init-seed (or --f0 none)", f.f0)
	}
	if f.points != "all" {
		if f.nPoints, err = strconv.Atoi(f.points); err != nil || f.nPoints < 1 {
			return usageError("--points %q: want all or a positive count", f.points)
		}
	}
	if f.verify < 0 {
		return usageError("--verify %d: want ≥ 0", f.verify)
	}
	f.search = ibp.SearchOptions{Init: f.init, Lo: f.lo, Hi: f.hi, Tol: f.tol, MaxIter: f.maxIter}
	if f.init == -1 {
		f.search.Init = ibp.KernelSearch().Init
		if f.net != "" {
			f.search.Init = ibp.NetworkSearch().Init
		}
	}
	if err := f.search.Validate(); err != nil {
		return usageError("%v", err)
	}
	return nil
}

// certifier is what both kinds of model give the command.
type certifier interface {
	ibp.Certifier
	ibp.Evaluator
	Point(i int) []float64
}

func runCertify(ctx context.Context, e *env, args []string) error {
	var f certifyFlags
	fs := newFlagSet(e, "certify", "(--model MODEL | --net DIR|FILE.npz [--net0 P | --init-seed S]) [--data D] [flags]")
	f.add(fs, e)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := f.checkFirst(); err != nil {
		return err
	}
	if f.model != "" {
		if m, ok, err := isClassModel(f.model); err != nil {
			return err
		} else if ok {
			return certifyClasses(ctx, e, &f, m)
		}
	}
	if err := f.check(); err != nil {
		return err
	}
	t0 := time.Now()
	c, ds, what, err := certifyBuild(ctx, e, &f)
	if err != nil {
		return err
	}
	idx, acc, err := certifyPoints(&f, c, ds.y)
	if err != nil {
		return err
	}
	if !f.jsonOut {
		fmt.Fprintf(e.stderr, "%s: %d points of %s, %v ball, seed %d\n", what, len(idx), ds.name, f.normV, f.seed)
	}
	t1 := time.Now()
	pr := progress.New(e.stderr, e.isTerminal, "certify", int64(len(idx)))
	rs, err := ibp.CertifyAll(ctx, c, idx, f.normV, f.search, f.threads, func(done, _ int) { pr.Set(int64(done)) })
	pr.Done()
	if err != nil {
		return err
	}
	sec := time.Since(t1).Seconds()
	var bad []ibp.Violation
	if f.verify > 0 {
		if bad, err = ibp.VerifyContext(testhold.Context(ctx, "verify"), c, c, c.Point, rs, f.normV, f.verify, f.clip, f.seed); err != nil {
			return err
		}
	}
	if f.out != "" {
		if err := certifyWriteCSV(ctx, f.out, rs, ds.y); err != nil {
			return err
		}
	}
	certifyPrint(e.stdout, &f, what, rs, acc, sec, time.Since(t0).Seconds(), bad)
	if len(bad) > 0 && f.net != "" && f.f0V == ibp.F0Clean {
		fmt.Fprintf(e.stderr, "--verify: %d sampled points where a certificate fails: --f0 clean is not sound\n", len(bad))
	} else if len(bad) > 0 {
		return fmt.Errorf("--verify: %d sampled points where a certificate fails (a bug)", len(bad))
	}
	return nil
}
