package genbound

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment"
	"github.com/ntksvm/ntksvm/cmd/internal/present/progress"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/extract"
	"github.com/ntksvm/ntksvm/svm/network"
	"github.com/ntksvm/ntksvm/svm/train"
)

// Data is the data set of a run: training and test points, one per row,
// with their targets (±1 for the classification losses). The run keeps the
// first Config.NTrain training and Config.NTest test points.
type Data = experiment.Data

// Options are the parts of a run that are not the experiment itself. A
// genbound run is one pass without checkpoints: Resume, CheckpointEvery,
// EstimateOnly and NoQuickHint do not apply to it (Run refuses the first
// three).
type Options = experiment.Options

// Output files written into Options.Out.
const (
	CurvesFile  = "curves.csv"
	SummaryFile = "summary.json"
	FigureFile  = "genbound.svg"
)

// Run trains the network of cfg on data by full-batch (sub)gradient
// descent, extracts its kernel machine after every step (Theorem 4.1),
// evaluates the bound of Lemma B.2 on it, and writes the outputs into
// opt.Out (atomically, also when the run fails or is interrupted after
// its first step). Bad configurations and data wrap ErrConfig and are
// reported before any work; a cancelled ctx stops the run with its error.
func Run(ctx context.Context, cfg Config, data *Data, opt Options) (*Summary, error) {
	p, err := cfg.parse()
	if err != nil {
		return nil, err
	}
	ds, err := cfg.prepare(data)
	if err != nil {
		return nil, err
	}
	if opt.Resume || opt.EstimateOnly || opt.CheckpointEvery != 0 {
		return nil, configErr("a genbound run is one pass without checkpoints: it cannot be resumed, checkpointed or only estimated")
	}
	need, detail := MemoryNeed(cfg, ds.x.Rows, ds.xt.Rows, ds.x.Cols)
	if err := experiment.Start(&opt, ErrConfig, need, detail, "n-train, n-test or the width"); err != nil {
		return nil, err
	}
	if cfg.Float64 {
		return run[float64](ctx, cfg, p, ds, opt)
	}
	return run[float32](ctx, cfg, p, ds, opt)
}

// usedData is the data as used: the first NTrain and NTest points.
type usedData struct {
	used  *experiment.Used
	name  string
	x, xt linalg.Matrix[float64]
	y, yt []float64
}

// prepare checks data against c and keeps the points the run uses.
func (c *Config) prepare(data *Data) (*usedData, error) {
	u, err := experiment.Use(data, c.NTrain, c.NTest, ErrConfig)
	if err != nil {
		return nil, err
	}
	return &usedData{used: u, name: u.Name, x: u.X, y: u.Y, xt: u.XTest, yt: u.YTest}, nil
}

// MemoryNeed estimates the bytes a run needs on n training and nTest test
// points of d features: the Extractor's kernels (running sum, last
// integrand and the copy the bound reads, in float64) and Gram scratch (of
// the network's type), the network's weights, gradients and activations,
// and the data; detail breaks it down.
func MemoryNeed(cfg Config, n, nTest, d int) (int64, string) {
	sz := 4.0
	if cfg.Float64 {
		sz = 8
	}
	fn, ft, m := float64(n), float64(nTest), float64(cfg.Width)
	L := float64(max(cfg.Depth, 1))
	kern := (fn*fn+ft*fn)*(3*8+3*sz) + fn*fn*sz
	params := m*float64(d) + m*m*(L-1) + m
	net := params * sz * 4
	act := (fn + ft) * (2*L*m + 2*m + 1) * sz * 2
	dat := (fn + ft) * float64(d) * (8 + 2*sz)
	total := kern + net + act + dat
	detail := fmt.Sprintf("kernels %.2f GiB, network %.2f GiB, activations %.2f GiB, data %.2f GiB",
		kern/(1<<30), net/(1<<30), act/(1<<30), dat/(1<<30))
	return int64(math.Min(total, math.MaxInt64/2)), detail
}

// run is Run for a network of type T.
func run[T linalg.Float](ctx context.Context, cfg Config, p parsed, ds *usedData, opt Options) (*Summary, error) {
	ec, err := cfg.extractConfig(p)
	if err != nil {
		return nil, err
	}
	x, xt := linalg.Convert[T](ds.x), linalg.Convert[T](ds.xt)
	// Building a wide network takes seconds: a signal may stop it.
	interrupted := func(err error) (*Summary, error) {
		s := newSummary(cfg, p, ec, ds)
		s.Status = "interrupted"
		return s, err
	}
	net, err := ntk.NewNetworkContext[T](ctx, ds.x.Cols, cfg.Width, cfg.Depth, 1, 0, cfg.Seed)
	if err != nil {
		if ctx.Err() != nil {
			return interrupted(err)
		}
		return nil, configErr("%v", err)
	}
	nc := p.net
	nc.MemCap = -1 // checked above
	st, err := network.NewStepperContext(ctx, net, x, ds.y, linalg.Matrix[T]{}, nc)
	if err != nil {
		if ctx.Err() != nil {
			return interrupted(err)
		}
		return nil, configErr("%v", err)
	}
	ex, err := extract.NewExtractor(x, ds.y, xt, ec)
	if err != nil {
		return nil, configErr("%v", err)
	}
	s := newSummary(cfg, p, ec, ds)
	w := &walker[T]{cfg: cfg, p: p, ds: ds, opt: opt, ex: ex, sum: s, bc: cfg.boundConfig(p)}
	start := opt.Now()
	d := &train.Driver{Steppers: []train.Stepper{st}, Observers: []train.Observer{ex.Watch(st), w}, N: ds.x.Rows, Steps: cfg.Steps, LR: cfg.LR}
	_, err = d.Run(ctx)
	if w.pr != nil {
		w.pr.Done()
	}
	s.Seconds = opt.Now().Sub(start).Seconds()
	switch {
	case err == nil:
		s.Status = "complete"
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		s.Status = "interrupted"
	default:
		s.Status = "failed: " + err.Error()
	}
	s.finish(ex)
	if len(s.Points) == 0 {
		return s, err
	}
	if werr := write(opt.Out, s); werr != nil {
		if err == nil {
			return s, werr
		}
		err = fmt.Errorf("%w (and writing the outputs: %v)", err, werr)
	}
	if err == nil {
		s.logResult(opt.Log)
	}
	return s, err
}

// walker records every observation of a run.
type walker[T linalg.Float] struct {
	cfg  Config
	p    parsed
	ds   *usedData
	opt  Options
	ex   *extract.Extractor[T]
	bc   extract.BoundConfig
	sum  *Summary
	pr   *progress.Bar
	last time.Time
}

// Observe implements train.Observer, after the Extractor: it has seen the
// network after k updates, at time t.
func (w *walker[T]) Observe(k int, t float64, _ []int) error {
	r, err := w.ex.Report()
	if err != nil {
		return err
	}
	b, err := w.ex.Bound(w.bc)
	if err != nil {
		return err
	}
	w.sum.Points = append(w.sum.Points, w.point(k, t, r, b))
	now := w.opt.Now()
	switch k {
	case 0:
		w.last = now
	case 1:
		step := now.Sub(w.last)
		w.sum.StepSeconds = step.Seconds()
		w.sum.Estimate = step.Seconds() * float64(w.cfg.Steps)
		fmt.Fprintf(w.opt.Log, "first step (update, extraction and bound) %.3gs: about %s for the %d steps (n = %d, %d test points, m = %d, %d threads)\n",
			step.Seconds(), progress.RoundDuration(time.Duration(w.sum.Estimate*1e9)), w.cfg.Steps, w.ds.x.Rows, w.ds.xt.Rows, w.cfg.Width, linalg.Threads())
		w.pr = progress.New(w.opt.Progress, w.opt.Terminal, "genbound", int64(w.cfg.Steps)).Unit("steps").Clock(w.opt.Now).From(1)
	default:
		w.pr.Add(1)
	}
	return nil
}

// point is one row of the curves.
func (w *walker[T]) point(k int, t float64, r *extract.Report, b *extract.GenBound) Point {
	loss, y, yt := w.p.net.Loss, w.ds.y, w.ds.yt
	pt := Point{Step: k, T: t,
		NNTrain: Num(svm.MeanLoss(loss, r.TrainNN, y)), KMTrain: Num(svm.MeanLoss(loss, r.TrainKM, y)),
		NNTest: Num(math.NaN()), NNTestClipped: Num(math.NaN()), KMTest: Num(math.NaN()),
		BoundLoss: Num(b.Loss), Bound: Num(b.Value), BoundUnion: Num(b.GridValue),
		B: Num(b.RKHSNorm), GridB: Num(b.GridB), Trace: Num(b.Trace), Rademacher: Num(b.Rademacher),
		Confidence: Num(b.Confidence), ConfidenceUnion: Num(b.GridConfidence), RademacherUnion: Num(b.GridRademacher),
		GapTrainMax: Num(r.TrainMaxAbs), GapTrainRMS: Num(r.TrainRMS), GapTestMax: Num(math.NaN()), GapTestRMS: Num(math.NaN()),
		SignBreaks: len(r.SignBreaks), Drift: Num(r.DriftMaxAbs)}
	if len(r.TestNN) > 0 {
		pt.NNTest = Num(svm.MeanLoss(loss, r.TestNN, yt))
		pt.NNTestClipped = Num(clippedLoss(loss, r.TestNN, yt))
		pt.KMTest = Num(svm.MeanLoss(loss, r.TestKM, yt))
		pt.GapTestMax, pt.GapTestRMS = Num(r.TestMaxAbs), Num(r.TestRMS)
	}
	return pt
}

// clippedLoss returns the mean of min(1, l) over the outputs: the loss
// the valid bound bounds (the ramp loss for the hinge).
func clippedLoss(l svm.Loss, out, y []float64) float64 {
	var s float64
	for i, v := range out {
		s += min(1, l.Value(v, y[i]))
	}
	return s / float64(len(out))
}
