package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ntksvm/ntksvm/cmd/internal/dataset"
	"github.com/ntksvm/ntksvm/cmd/internal/progress"
	"github.com/ntksvm/ntksvm/ibp"
	"github.com/ntksvm/ntksvm/internal/atomicfile"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
)

// "ntksvm certify" computes robustness certificates (paper §4.2, Tables 2
// and 3): for a kernel machine written by "ntksvm train" (NTK of any depth)
// or a network's weights (IBP), the largest radius δ around each test point
// on which the predicted sign provably holds. The work is done by package
// ibp; this file parses, validates, wires and prints.

// certifyFlags are the flags of "ntksvm certify".
type certifyFlags struct {
	data              dataFlags
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
	fs.StringVar(&f.model, "model", "", "kernel machine written by ntksvm train (NTK kernel)")
	fs.StringVar(&f.net, "net", "", "network weights (directory or .npz, as ntk.Network.Save writes them) to certify by IBP")
	fs.StringVar(&f.net0, "net0", "", "with --net: the initial network f₀ whose output is subtracted")
	fs.Int64Var(&f.initSeed, "init-seed", -1, "with --net: regenerate f₀ with this seed (ntk.NewNetwork, the shapes of --net) instead of --net0")
	fs.Float64Var(&f.sigmaW, "sigma-w", 1, "with --net: weight standard deviation σ_w of the network")
	fs.Float64Var(&f.sigmaB, "sigma-b", 0, "with --net: bias standard deviation σ_b (0: no bias)")
	fs.StringVar(&f.norm, "norm", "linf", "perturbation ball: linf (the paper's) or l2")
	fs.StringVar(&f.points, "points", "all", "points to certify: all, or N for a random subset drawn with --seed")
	fs.BoolVar(&f.correctOnly, "correct-only", false, "certify only correctly classified points (Table 2)")
	fs.BoolVar(&f.tight, "tight", false, "kernel: also use the exact ℓ∞ norm range and Hölder's bound (never looser than the paper's)")
	fs.BoolVar(&f.clip, "clip", false, "intersect balls with the pixel box [0, 1]^d (the paper does not)")
	fs.StringVar(&f.f0, "f0", "sound", "network: sound (bound f_T − f₀ over the ball), clean (subtract f₀ at the clean point, the authors' ibp.py), none")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the --points subset and of --verify's samples")
	fs.Float64Var(&f.init, "init", -1, "first radius tried (-1: 0.05 for kernel machines, 0.01 for networks)")
	fs.Float64Var(&f.lo, "lo", 0, "lower end of the search bracket")
	fs.Float64Var(&f.hi, "hi", 0.3, "upper end of the search bracket")
	fs.Float64Var(&f.tol, "tol", 1e-3, "stop once a certified margin is below this")
	fs.IntVar(&f.maxIter, "max-iter", 1000, "at most this many bounds per point")
	fs.IntVar(&f.threads, "threads", 0, "workers (0: GOMAXPROCS)")
	fs.IntVar(&f.verify, "verify", 0, "sample K points in every certified ball and check the exact output's sign (any flip is a bug)")
	fs.BoolVar(&f.jsonOut, "json", false, "print one JSON object instead of text")
	fs.StringVar(&f.out, "out", "", "write index,label,prediction,delta per point to this CSV file")
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
	if f.out != "" {
		if err := checkOut("--out", f.out); err != nil {
			return err
		}
	}
	if f.model != "" && (f.net0 != "" || f.initSeed >= 0) {
		return usageError("--net0 and --init-seed go with --net")
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
		if bad, err = ibp.Verify(c, c, c.Point, rs, f.normV, f.verify, f.clip, f.seed); err != nil {
			return err
		}
	}
	if f.out != "" {
		if err := certifyWriteCSV(f.out, rs, ds.y); err != nil {
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

// certifyBuild loads the model and the points and returns the certifier.
func certifyBuild(ctx context.Context, e *env, f *certifyFlags) (certifier, *certifyData, string, error) {
	if f.model != "" {
		return certifyKernel(ctx, e, f)
	}
	return certifyNetwork(e, f)
}

// certifyKernel builds the certifier of a kernel machine model file.
func certifyKernel(ctx context.Context, e *env, f *certifyFlags) (certifier, *certifyData, string, error) {
	fh, err := os.Open(f.model)
	if err != nil {
		return nil, nil, "", err
	}
	m, err := svm.ReadModel(fh)
	fh.Close()
	if err != nil {
		return nil, nil, "", fmt.Errorf("%s: %w", f.model, err)
	}
	if kind, err := ntk.ParseKind(m.Kernel.Name); err != nil || kind != ntk.KindNTK {
		return nil, nil, "", fmt.Errorf("%s: kernel %q: certify bounds NTK machines only", f.model, m.Kernel.Name)
	}
	p := ntk.Params{Depth: m.Kernel.Depth, WeightStd: m.Kernel.SigmaW, BiasStd: m.Kernel.SigmaB}
	if err := p.Validate(); err != nil {
		return nil, nil, "", fmt.Errorf("%s: %w", f.model, err)
	}
	train, ds, err := certifyLoad(e, f.data, m)
	if err != nil {
		return nil, nil, "", err
	}
	km := ibp.KernelMachine{X: train, Alpha: m.Alpha, Bias: m.Bias, Params: p}
	c, err := ibp.NewKernel(ctx, km, ds.x, ibp.KernelOptions{Tight: f.tight, Clip: f.clip})
	if err != nil {
		return nil, nil, "", err
	}
	what := fmt.Sprintf("%s λ=%g, NTK L=%d σ_w=%g σ_b=%g, n=%d", m.Machine, m.Lambda, p.Depth, p.WeightStd, p.BiasStd, m.Train.N)
	return c, ds, what, nil
}

// certifyNetwork builds the IBP certifier of a network (and its f₀).
func certifyNetwork(e *env, f *certifyFlags) (certifier, *certifyData, string, error) {
	net, err := ntk.LoadNetwork[float64](f.net, f.sigmaW, f.sigmaB)
	if err != nil {
		return nil, nil, "", err
	}
	var net0 *ntk.Network[float64]
	switch {
	case f.f0V == ibp.F0None:
	case f.net0 != "":
		net0, err = ntk.LoadNetwork[float64](f.net0, f.sigmaW, f.sigmaB)
	default:
		net0, err = ntk.NewNetwork[float64](net.D, net.Width, net.Depth, f.sigmaW, f.sigmaB, uint64(f.initSeed))
	}
	if err != nil {
		return nil, nil, "", fmt.Errorf("initial network: %w", err)
	}
	_, ds, err := certifyLoad(e, f.data, nil)
	if err != nil {
		return nil, nil, "", err
	}
	if ds.x.Cols != net.D {
		return nil, nil, "", fmt.Errorf("%s has %d features, the network %d inputs", ds.name, ds.x.Cols, net.D)
	}
	c, err := ibp.NewNetwork(net, net0, ds.x, ibp.NetworkOptions{F0: f.f0V, Clip: f.clip})
	if err != nil {
		return nil, nil, "", err
	}
	return c, ds, fmt.Sprintf("network %d→%d×%d, IBP, f0 %v", net.D, net.Width, net.Depth, f.f0V), nil
}

// certifyData are the points to certify, with their labels (nil if none).
type certifyData struct {
	name string
	x    linalg.Matrix[float64]
	y    []float64
}

// certifyLoad is the one place that uses the data helpers of the other
// commands (package dataset and trainingInputs): it loads the points and, for a
// model, its training inputs (embedded, or reloaded and checked as predict
// does), checking dimensions.
func certifyLoad(e *env, d dataFlags, m *svm.Model) (train linalg.Matrix[float64], ds *certifyData, err error) {
	dim := 0
	if m != nil {
		if std := m.Train.Standardize; std != d.standardize && strings.HasPrefix(d.data, "mnist") {
			return train, nil, usageError("the model was trained with standardize=%v: pass the same --standardize", std)
		}
		dim = m.Train.D
		if train, err = trainingInputs(e, m, d); err != nil {
			return train, nil, err
		}
	}
	sd, err := dataset.Load(d.data, d.options(e, dim))
	if err != nil {
		return train, nil, err
	}
	ds = &certifyData{name: sd.Name, x: sd.X, y: sd.Y}
	if m != nil && ds.x.Cols != m.Train.D {
		return train, nil, fmt.Errorf("%s has %d features, the model was trained on %d", ds.name, ds.x.Cols, m.Train.D)
	}
	if ds.x.Rows == 0 {
		return train, nil, fmt.Errorf("%s has no points", ds.name)
	}
	return train, ds, nil
}

// certifyPoints selects the points (a seeded random subset with --points N,
// then the correctly classified ones with --correct-only) and returns the
// accuracy over the whole data set (NaN without labels).
func certifyPoints(f *certifyFlags, c certifier, y []float64) ([]int, float64, error) {
	n := c.Len()
	acc := math.NaN()
	if y != nil {
		right := 0
		for i := range n {
			if correct(c.Output(i), y[i]) {
				right++
			}
		}
		acc = float64(right) / float64(n)
	} else if f.correctOnly {
		return nil, 0, usageError("--correct-only needs labels (--data X.npy,y.npy)")
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	if f.nPoints > 0 && f.nPoints < n {
		rng := rand.New(rand.NewPCG(f.seed, 0xce27))
		rng.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		idx = idx[:f.nPoints]
		slices.Sort(idx)
	}
	if f.correctOnly {
		idx = slices.DeleteFunc(idx, func(i int) bool { return !correct(c.Output(i), y[i]) })
	}
	if len(idx) == 0 {
		return nil, 0, fmt.Errorf("no points to certify")
	}
	return idx, acc, nil
}

// correct reports whether the output's sign is the label's (0 is wrong).
func correct(out, y float64) bool { return out*y > 0 }

// certifySummary is the --json object.
type certifySummary struct {
	Model      string   `json:"model"`
	Norm       string   `json:"norm"`
	Accuracy   *float64 `json:"accuracy"` // null without labels
	NPoints    int      `json:"n_points"`
	Seed       uint64   `json:"seed"`
	MeanDelta  float64  `json:"mean_delta"`
	StdDelta   float64  `json:"std_delta"`
	MinDelta   float64  `json:"min_delta"`
	MaxDelta   float64  `json:"max_delta"`
	Bounds     int      `json:"bounds"`        // bounds evaluated
	Steps      int      `json:"search_steps"`  // steps of the authors' search
	Seconds    float64  `json:"seconds"`       // the search
	Total      float64  `json:"total_seconds"` // with loading and precomputation
	Verified   int      `json:"verify_samples,omitempty"`
	Violations int      `json:"violations"`
}

// certifyPrint prints the summary as text or JSON.
func certifyPrint(w io.Writer, f *certifyFlags, what string, rs []ibp.Result, acc, sec, total float64, bad []ibp.Violation) {
	s := ibp.Summarize(rs)
	js := certifySummary{Model: what, Norm: f.normV.String(), NPoints: s.N, Seed: f.seed, MeanDelta: s.Mean,
		StdDelta: s.Std, MinDelta: s.Min, MaxDelta: s.Max, Seconds: sec, Total: total, Violations: len(bad)}
	if !math.IsNaN(acc) {
		js.Accuracy = &acc
	}
	for _, r := range rs {
		js.Bounds += r.Bounds
		js.Steps += r.Iters
	}
	if f.verify > 0 {
		js.Verified = f.verify
	}
	if f.jsonOut {
		b, _ := json.Marshal(js)
		fmt.Fprintln(w, string(b))
		return
	}
	if js.Accuracy != nil {
		fmt.Fprintf(w, "accuracy %.4f%%\n", 100*acc)
	}
	fmt.Fprintf(w, "certified %d points (%v): mean δ %.6g ± %.6g (min %.6g, max %.6g); %d search steps, %d bounds in %.3fs (%.3fs in all)\n",
		s.N, f.normV, s.Mean, s.Std, s.Min, s.Max, js.Steps, js.Bounds, sec, total)
	if f.verify > 0 {
		fmt.Fprintf(w, "verify: %d samples per certified ball, %d violations\n", f.verify, len(bad))
	}
	for k, v := range bad {
		if k == 10 {
			break
		}
		fmt.Fprintf(w, "VIOLATION point %d δ=%g sample %d: output %g, bound [%g, %g]\n", v.Index, v.Radius, v.Sample, v.Output, v.Bound.Lo, v.Bound.Hi)
	}
}

// certifyWriteCSV writes one line per point, atomically.
func certifyWriteCSV(path string, rs []ibp.Result, y []float64) error {
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		if _, err := fmt.Fprintln(w, "index,label,prediction,delta"); err != nil {
			return err
		}
		for _, r := range rs {
			label := ""
			if y != nil {
				label = strconv.FormatFloat(y[r.Index], 'g', -1, 64)
			}
			if _, err := fmt.Fprintf(w, "%d,%s,%s,%s\n", r.Index, label, strconv.FormatFloat(r.Output, 'g', 17, 64),
				strconv.FormatFloat(r.Radius, 'g', 17, 64)); err != nil {
				return err
			}
		}
		return nil
	})
}
