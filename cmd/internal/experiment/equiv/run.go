package equiv

import (
	"bufio"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	expt "github.com/ntksvm/ntksvm/cmd/internal/experiment" // the shared skeleton (this package has its own experiment type)
	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
	"github.com/ntksvm/ntksvm/cmd/internal/present/progress"
	"github.com/ntksvm/ntksvm/internal/atomicfile"
	"github.com/ntksvm/ntksvm/internal/checkpoint"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/network"
	"github.com/ntksvm/ntksvm/svm/train"
)

// Data is the data set of an experiment: the training points and the test
// points, one per row, with their targets (±1 for the classification
// losses). The experiment keeps the first Config.NTrain and Config.NTest of
// them.
type Data = expt.Data

// Options are the parts of a run that are not the experiment itself; equiv
// uses every field.
type Options = expt.Options

// Summary is what summary.json holds: the configuration, the data, every
// run with its evaluations and, with several widths, the width sweep.
type Summary struct {
	Config Config `json:"config"`
	expt.Header
	// TrackTrain and TrackTest are the tracked points as used.
	TrackTrain []int       `json:"track_train"`
	TrackTest  []int       `json:"track_test"`
	Runs       []RunResult `json:"runs"`
	Sweep      *Sweep      `json:"sweep,omitempty"`
}

// ErrInterrupted is returned (wrapped, with the context's error) when the
// context ends a run; the checkpoints are then in Options.Out.
var ErrInterrupted = errors.New("equiv: interrupted")

// InterruptSaveBudget is the time, from the end of the run's context, by
// which an interrupted run must have written its checkpoint: a signal
// must end the command within about a second.
// A larger state (a wide network's weights, hundreds of MB) is not
// written, and a resumed run continues from the last periodic checkpoint
// (Options.CheckpointEvery), bitwise as the uninterrupted run would. With
// CheckpointEvery < 0 (checkpoints on interrupt only) the checkpoint is
// written whole, however long it takes.
const InterruptSaveBudget = 250 * time.Millisecond

// LongRun is the wall time above which a preset's paper scale is called
// long and its quick setting offered.
const LongRun = 15 * time.Minute

// Run trains every run of cfg on data (see Config.Runs), each network beside
// its kernel machine(s) on one train.Driver, writes the outputs into opt.Out
// after each run and at the end, and returns the summary. Bad
// configurations and data wrap ErrConfig and are reported before any
// training. When ctx ends, the current run writes a checkpoint and Run
// returns an error wrapping ErrInterrupted; a NaN or ±Inf stops the run
// with an error naming the step, keeping the last good checkpoint.
func Run(ctx context.Context, cfg Config, data *Data, opt Options) (*Summary, error) {
	p, err := cfg.parse()
	if err != nil {
		return nil, err
	}
	ds, err := cfg.prepare(data)
	if err != nil {
		return nil, err
	}
	if cfg.Init != "" {
		if ds.init, err = initSHA256(&cfg, ds.x.Cols); err != nil {
			return nil, err
		}
	}
	need, detail := MemoryNeed(cfg, ds.x.Rows, ds.xt.Rows, ds.x.Cols)
	if err := expt.Start(&opt, ErrConfig, need, detail, "the width, depth or number of points"); err != nil {
		return nil, err
	}
	if !opt.Resume && !opt.EstimateOnly {
		if err := removeRunState(opt.Out); err != nil {
			return nil, err
		}
	}
	if err := WriteConfig(opt.Out, cfg); err != nil {
		return nil, err
	}
	if cfg.Float64 {
		return runAll[float64](ctx, cfg, p, ds, opt)
	}
	return runAll[float32](ctx, cfg, p, ds, opt)
}

// usedData is the data as used: the first NTrain and NTest points and the
// tracked indices.
type usedData struct {
	used          *expt.Used
	name          string
	x, xt         linalg.Matrix[float64]
	y, yt         []float64
	track, trackT []int
	init          string // the SHA-256 of the initial weights (Config.Init), "" if drawn
}

// prepare checks data against c and keeps what the experiment uses.
func (c *Config) prepare(data *Data) (*usedData, error) {
	u, err := expt.Use(data, c.NTrain, c.NTest, ErrConfig)
	if err != nil {
		return nil, err
	}
	ds := &usedData{used: u, name: u.Name, x: u.X, y: u.Y, xt: u.XTest, yt: u.YTest}
	ds.track, ds.trackT = c.TrackTrain, c.TrackTest
	if ds.track == nil {
		ds.track = defaultTrack(ds.x.Rows)
	}
	if ds.trackT == nil {
		ds.trackT = defaultTrack(ds.xt.Rows)
	}
	for _, i := range ds.track {
		if i >= ds.x.Rows {
			return nil, configErr("tracked training point %d: there are %d", i, ds.x.Rows)
		}
	}
	for _, i := range ds.trackT {
		if i >= ds.xt.Rows {
			return nil, configErr("tracked test point %d: there are %d", i, ds.xt.Rows)
		}
	}
	return ds, nil
}

// params returns the number of weights of a network of width m.
func params(d, m, depth int) float64 {
	fm := float64(m)
	return fm*float64(d) + fm*fm*float64(depth-1) + fm
}

// MemoryNeed estimates the bytes an experiment needs at its widest network
// on n training and nTest test points of d features: the network's weights
// and gradients (and W_0 for the theory penalty), the activations of a
// batch or an evaluation block, the kernel machines' Gram matrices (and the
// empirical kernel's temporaries) and the data; detail breaks it down.
func MemoryNeed(cfg Config, n, nTest, d int) (int64, string) {
	sz := 4.0
	if cfg.Float64 {
		sz = 8
	}
	m := float64(slices.Max(append([]int{1}, cfg.Widths...)))
	L := float64(max(cfg.Depth, 1))
	P := params(d, int(m), max(cfg.Depth, 1))
	copies := 2.0
	if cfg.Reg == "theory" {
		copies = 3
	}
	weights := P * sz * copies
	rows := float64(n)
	if cfg.Batch > 0 && cfg.Batch < n {
		rows = float64(cfg.Batch)
	}
	rows = max(rows, min(float64(max(n, nTest)), (32<<20)/((2*L*m+1)*sz)))
	act := rows*(2*L*m+2*m+1)*sz + rows*float64(d+1)*sz
	fn, ft := float64(n), float64(nTest)
	machines := 1.0
	if cfg.Kernel == KernelBoth {
		machines = 2
	}
	grams := machines * (fn*fn + ft*fn) * 8
	var emp float64
	if cfg.Kernel != KernelAnalytic {
		emp = 3 * (fn + ft) * m * sz
	}
	dat := (fn + ft) * float64(d) * (8 + sz)
	total := weights + act + grams + emp + dat
	detail := fmt.Sprintf("network %.2f GiB, activations %.2f GiB, kernel matrices %.2f GiB, empirical-kernel work %.2f GiB, data %.2f GiB",
		weights/(1<<30), act/(1<<30), grams/(1<<30), emp/(1<<30), dat/(1<<30))
	return int64(math.Min(total, math.MaxInt64/2)), detail
}

// Remaining returns the share of cfg's training, in steps weighted by the
// network's size, that the experiment in dir has still to do when resumed:
// read from its summary.json (written at every checkpoint), 0 when it is
// complete and 1 when dir holds no experiment of exactly cfg.
func Remaining(dir string, cfg Config) float64 {
	b, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		return 1
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return 1
	}
	if !expt.EqualConfigs(s.Config, cfg) {
		return 1
	}
	var total, left float64
	for _, r := range s.Runs {
		w := params(s.D, r.Width, s.Config.Depth)
		total += w * float64(r.Steps)
		if !r.Complete {
			left += w * float64(r.Steps-min(max(r.Done, 0), r.Steps))
		}
	}
	if total == 0 {
		return 1
	}
	return left / total
}

// SameConfig reports whether dir holds an experiment of exactly cfg (its
// config.json), whose checkpoints a resumed run of cfg may continue: a run
// at another scale or with other settings must start afresh.
func SameConfig(dir string, cfg Config) bool { return expt.SameConfig(dir, cfg) }

// removeRunState deletes the checkpoints and finished-run records an
// earlier run left in dir, so that a fresh run can never be continued, by a
// later resume, from another configuration's state.
func removeRunState(dir string) error {
	return output.RemoveMatching(dir, "run*.ckpt", "run*.done")
}

// WriteConfig writes cfg to DIR/config.json atomically: what a resumed run
// reads back with ReadConfig.
func WriteConfig(dir string, cfg Config) error { return expt.WriteConfig(dir, cfg) }

// ReadConfig reads DIR/config.json, the configuration of the run in DIR.
func ReadConfig(dir string) (Config, error) {
	var c Config
	return c, expt.ReadConfig(dir, "equiv", &c)
}

// parseConfig decodes and validates the text of a config.json.
func parseConfig(b []byte) (Config, error) {
	var c Config
	return c, expt.ParseConfig(b, &c)
}

// experiment is a Run in progress.
type experiment[T linalg.Float] struct {
	cfg Config
	p   parsed
	ds  *usedData
	opt Options
	x   linalg.Matrix[T]
	xt  linalg.Matrix[T]
	sum *Summary
	// data is the SHA-256 of the data as used, for the fingerprint of the
	// run state files.
	data string

	kNTK, kNTKTest linalg.Matrix[float64] // the analytic kernels, once computed
	perStep        float64                // seconds per weight per step, from the first timed step
	perEval        float64                // seconds per weight per evaluation
	loopFrom       time.Time              // while a training loop runs: the time its RunResult.Seconds counts up to
	onStep         func()                 // while a training loop runs: called after every update, for the progress bar
	stopped        <-chan time.Time       // receives the time ctx ended
}

// saveDeadline returns the time by which an interrupted run's checkpoint
// must be written: InterruptSaveBudget after ctx ended.
func (e *experiment[T]) saveDeadline() time.Time {
	select {
	case t := <-e.stopped:
		return t.Add(InterruptSaveBudget)
	case <-time.After(10 * time.Millisecond): // ctx ended a moment ago
		return time.Now().Add(InterruptSaveBudget)
	}
}

// syncSeconds adds to rec.Seconds the time the running training loop has
// taken since the last call, so that a checkpoint written in the loop
// carries this session's time as well (a resumed run's Seconds is the sum
// over its sessions).
func (e *experiment[T]) syncSeconds(rec *RunResult) {
	if e.loopFrom.IsZero() {
		return
	}
	now := e.opt.Now()
	rec.Seconds += now.Sub(e.loopFrom).Seconds()
	e.loopFrom = now
}

func runAll[T linalg.Float](ctx context.Context, cfg Config, p parsed, ds *usedData, opt Options) (*Summary, error) {
	e := &experiment[T]{cfg: cfg, p: p, ds: ds, opt: opt, x: linalg.Convert[T](ds.x), xt: linalg.Convert[T](ds.xt), data: dataSHA256(ds)}
	stopped := make(chan time.Time, 1)
	defer context.AfterFunc(ctx, func() { stopped <- time.Now() })()
	e.stopped = stopped
	runs := cfg.Runs(ds.x.Rows)
	e.sum = &Summary{Config: cfg, Header: expt.NewHeader(ds.used), TrackTrain: ds.track, TrackTest: ds.trackT, Runs: make([]RunResult, len(runs))}
	for i, r := range runs {
		e.sum.Runs[i] = RunResult{RunSpec: r, Models: e.models(), Mapping: cfg.mapping(p, r.Width, ds.x.Rows)}
	}
	for i := range runs {
		err := e.run(ctx, i)
		if err == nil {
			continue
		}
		switch {
		case errors.Is(err, errEstimated):
			e.sum.Status = "estimate"
			return e.sum, e.write()
		case errors.Is(err, ErrInterrupted):
			e.sum.Status = "interrupted"
		default:
			e.sum.Status = "failed: " + err.Error()
		}
		if werr := e.write(); werr != nil {
			err = fmt.Errorf("%w (and writing the outputs: %v)", err, werr)
		}
		return e.sum, err
	}
	e.sum.Status = "complete"
	e.sum.Sweep = sweepOf(e.sum)
	return e.sum, e.write()
}

var errEstimated = errors.New("estimate only")

// models returns the names of the models of every run.
func (e *experiment[T]) models() []string {
	m := []string{"nn"}
	if e.cfg.Kernel != KernelEmpirical {
		m = append(m, "km-ntk")
	}
	if e.cfg.Kernel != KernelAnalytic {
		m = append(m, "km-emp")
	}
	return m
}

// analytic returns the infinite-width NTK on the training points and
// between the test and training points (computed once, in float64).
func (e *experiment[T]) analytic() (linalg.Matrix[float64], linalg.Matrix[float64], error) {
	if e.kNTK.Rows == 0 {
		p := ntk.DefaultSpec(e.cfg.Depth)
		k, err := ntk.Gram(context.Background(), p, e.ds.x, ntk.Options{})
		if err != nil {
			return k, k, err
		}
		var kt linalg.Matrix[float64]
		if e.ds.xt.Rows > 0 {
			if kt, err = ntk.Cross(context.Background(), p, e.ds.xt, e.ds.x, ntk.Options{}); err != nil {
				return k, kt, err
			}
		}
		e.kNTK, e.kNTKTest = k, kt
	}
	return e.kNTK, e.kNTKTest, nil
}

// paths of run i's files in the output directory.
func (e *experiment[T]) ckptPath(i int) string {
	return filepath.Join(e.opt.Out, fmt.Sprintf("run%d.ckpt", i+1))
}

func (e *experiment[T]) donePath(i int) string {
	return filepath.Join(e.opt.Out, fmt.Sprintf("run%d.done", i+1))
}

// logf writes a line to the log.
func (e *experiment[T]) logf(format string, args ...any) {
	fmt.Fprintf(e.opt.Log, format+"\n", args...)
}

// run trains run i to its end (or reads it back if a previous session
// finished it).
func (e *experiment[T]) run(ctx context.Context, i int) error {
	rec := &e.sum.Runs[i]
	fp := e.fingerprint(i)
	if e.opt.Resume {
		ok, err := readGob(e.donePath(i), fp, rec)
		if err != nil {
			return err
		}
		if ok {
			e.logf("run %d (m = %d, η = %g): finished in a previous session", i+1, rec.Width, rec.LR)
			return nil
		}
	}
	d, err := e.build(ctx, i)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return fmt.Errorf("%w: run %d (m = %d, η = %g) stopped while building the network: %w", ErrInterrupted, i+1, rec.Width, rec.LR, err)
		}
		return err
	}
	lastCk := -1
	save := func(ck func(int, func(io.Writer) error) error, step int, write func(io.Writer) error) error {
		e.syncSeconds(rec)
		err := ck(step, func(w io.Writer) error {
			if err := writeFingerprint(w, fp); err != nil {
				return err
			}
			if err := write(w); err != nil {
				return err
			}
			return gob.NewEncoder(w).Encode(rec)
		})
		if err != nil {
			return err
		}
		lastCk = step
		rec.finish() // the largest gap so far, for the outputs of an unfinished run
		if step < rec.Steps && ctx.Err() == nil {
			rec.Done = step // for Remaining, if this session ends here
			// The outputs so far, for a look at a long run.
			e.sum.Status = fmt.Sprintf("running: run %d at step %d", i+1, step)
			return e.write()
		}
		return nil
	}
	log := e.logger(rec)
	d.Recorder = train.RecorderFunc(func(r *train.Record) error {
		switch r.Event {
		case train.Evaluated:
			return log(r.Step, r.T, r.Epoch, r.Evals)
		case train.Stepped:
			if e.onStep != nil {
				e.onStep()
			}
		case train.CheckpointDue:
			return save(checkpoint.File(e.ckptPath(i)), r.Step, r.Save)
		case train.Interrupted:
			// An evaluation of the abandoned step is repeated on resuming.
			rec.Evals = slices.DeleteFunc(rec.Evals, func(ev Eval) bool { return ev.Step > r.Step })
			// Within the budget, or not at all: the last checkpoint stays.
			// Without periodic checkpoints it is the only one: written whole.
			wctx, cancel := context.WithCancel(context.Background())
			if e.opt.CheckpointEvery >= 0 {
				wctx, cancel = context.WithDeadline(context.Background(), e.saveDeadline())
			}
			defer cancel()
			err := save(checkpoint.FileContext(wctx, e.ckptPath(i)), r.Step, func(w io.Writer) error { return d.SaveStateContext(wctx, w) })
			if err != nil && wctx.Err() != nil && errors.Is(err, wctx.Err()) {
				e.logf("run %d: the checkpoint after step %d takes longer than %v to write: not written", i+1, r.Step, InterruptSaveBudget)
				return nil
			}
			return err
		}
		return nil
	})
	if e.opt.Resume {
		if _, err := os.Stat(e.ckptPath(i)); err == nil {
			if err := checkpoint.Load(e.ckptPath(i), func(r io.Reader) error {
				saved, err := readFingerprint(r)
				if err == nil {
					err = checkFingerprint(saved, fp)
				}
				if err != nil {
					return err
				}
				if err := d.LoadState(r); err != nil {
					return err
				}
				return gob.NewDecoder(r).Decode(rec)
			}); err != nil {
				return err
			}
			lastCk = d.Stats().Steps
			e.logf("run %d (m = %d, η = %g): resumed at step %d of %d", i+1, rec.Width, rec.LR, lastCk, rec.Steps)
		}
	}
	if err := e.train(ctx, i, d); err != nil {
		if errors.Is(err, ctx.Err()) && ctx.Err() != nil {
			from := "the start"
			if lastCk >= 0 {
				from = fmt.Sprintf("step %d", lastCk)
			}
			return fmt.Errorf("%w: run %d (m = %d, η = %g) stopped after step %d; --resume %s continues from %s: %w",
				ErrInterrupted, i+1, rec.Width, rec.LR, d.Stats().Steps, e.opt.Out, from, err)
		}
		if errors.Is(err, errEstimated) {
			return err
		}
		keep := "no checkpoint was written"
		if lastCk >= 0 {
			keep = fmt.Sprintf("the last good checkpoint (after step %d) is kept in %s", lastCk, e.ckptPath(i))
		}
		return fmt.Errorf("run %d (m = %d, η = %g): %w; %s", i+1, rec.Width, rec.LR, err, keep)
	}
	rec.finish()
	if err := writeGob(e.donePath(i), fp, rec); err != nil {
		return err
	}
	if err := os.Remove(e.ckptPath(i)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return e.write()
}

// build makes run i's network, kernel machines and driver.
func (e *experiment[T]) build(ctx context.Context, i int) (*train.Driver, error) {
	rec := &e.sum.Runs[i]
	cfg, p, ds := &e.cfg, e.p, e.ds
	net, err := e.network(ctx, rec)
	if err != nil {
		return nil, err
	}
	var steppers []train.Stepper
	var kernels []svm.KernelMatrix
	var tests []svm.KernelMatrix
	if cfg.Kernel != KernelEmpirical {
		k, kt, err := e.analytic()
		if err != nil {
			return nil, err
		}
		kernels, tests = append(kernels, svm.NewDense(k)), append(tests, svm.NewDense(kt))
	}
	if cfg.Kernel != KernelAnalytic {
		k, err := net.EmpiricalNTK(e.x, e.x)
		if err != nil {
			return nil, err
		}
		var kt linalg.Matrix[T]
		if e.xt.Rows > 0 {
			if kt, err = net.EmpiricalNTK(e.xt, e.x); err != nil {
				return nil, err
			}
		}
		kernels, tests = append(kernels, svm.NewDense(k)), append(tests, svm.NewDense(kt))
	}
	memCap := e.opt.MemAvailable
	if memCap <= 0 {
		memCap = 0
	}
	nsCfg := p.net
	nsCfg.Batch, nsCfg.MemCap = cfg.Batch, memCap
	ns, err := network.NewStepperContext(ctx, net, e.x, ds.y, e.xt, nsCfg)
	if err != nil {
		return nil, err
	}
	steppers = append(steppers, ns)
	for j, k := range kernels {
		kc := svm.KernelStepperConfig{Loss: p.net.Loss, Lambda: rec.Mapping.KernelLambda, Objective: p.net.Objective, Decay: p.decay}
		if ds.xt.Rows > 0 {
			kc.Test = &svm.EvalSet{K: tests[j], Y: ds.yt}
		}
		ks, err := svm.NewKernelStepper(k, ds.y, kc)
		if err != nil {
			return nil, err
		}
		steppers = append(steppers, ks)
	}
	d := &train.Driver{Steps: rec.Steps, LR: rec.LR, LogAt: train.LogSteps(rec.Steps, cfg.Evals)}
	n := ds.x.Rows
	if cfg.Batch > 0 && cfg.Batch < n {
		if d.Stream, err = train.NewBatchStream(n, cfg.Batch, rec.Seed); err != nil {
			return nil, err
		}
	} else {
		d.N = n
	}
	d.Steppers = steppers
	return d, nil
}

// logger returns the recorder of the Driver's evaluations: it records one
// Eval of every model.
func (e *experiment[T]) logger(rec *RunResult) func(int, float64, int, []*train.Eval) error {
	ds, loss := e.ds, e.p.net.Loss
	return func(step int, t float64, epoch int, evals []*train.Eval) error {
		ev := Eval{Step: step, T: t, Epoch: epoch}
		for j, m := range evals {
			for _, out := range [][]float64{m.Train, m.Test} {
				for k, v := range out {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						return fmt.Errorf("%s output %d is %v at step %d", rec.Models[j], k, v, step)
					}
				}
			}
			me := ModelEval{Objective: Num(m.Objective), TrainLoss: Num(svm.MeanLoss(loss, m.Train, ds.y)),
				TrainAcc: Num(nan()), TestLoss: Num(nan()), TestAcc: Num(nan())}
			if loss.Classification() {
				me.TrainAcc = Num(svm.Accuracy(m.Train, ds.y))
			}
			if len(m.Test) > 0 {
				me.TestLoss = Num(svm.MeanLoss(loss, m.Test, ds.yt))
				if loss.Classification() {
					me.TestAcc = Num(svm.Accuracy(m.Test, ds.yt))
				}
			}
			for _, i := range ds.track {
				me.TrackTrain = append(me.TrackTrain, Num(m.Train[i]))
			}
			for _, i := range ds.trackT {
				me.TrackTest = append(me.TrackTest, Num(m.Test[i]))
			}
			ev.Models = append(ev.Models, me)
			if j > 0 {
				ev.Gaps = append(ev.Gaps, gap(evals[0].Train, m.Train, evals[0].Test, m.Test))
			}
		}
		rec.Evals = append(rec.Evals, ev)
		return nil
	}
}

// train runs driver d of run i to its end: a timed first step, the
// estimate, then the rest with a progress report.
func (e *experiment[T]) train(ctx context.Context, i int, d *train.Driver) error {
	rec := &e.sum.Runs[i]
	start := d.Stats().Steps
	if start >= rec.Steps {
		return nil
	}
	total := rec.Steps
	e.logf("run %d/%d (m = %d, η = %g): training from step %d of %d", i+1, len(e.sum.Runs), rec.Width, rec.LR, start, total)
	w := params(e.ds.x.Cols, rec.Width, e.cfg.Depth) * float64(max(e.cfg.Batch, 1))
	if e.cfg.Batch == 0 || e.cfg.Batch >= e.ds.x.Rows {
		w = params(e.ds.x.Cols, rec.Width, e.cfg.Depth) * float64(e.ds.x.Rows)
	}
	evalW := params(e.ds.x.Cols, rec.Width, e.cfg.Depth) * float64(e.ds.x.Rows+e.ds.xt.Rows)
	t0 := e.opt.Now()
	durs := func() (step, eval time.Duration) {
		st := d.Stats()
		for i := range st.StepTime {
			step += st.StepTime[i]
			eval += st.EvalTime[i]
		}
		return step, eval
	}
	// Time the first step (its evaluation included) and, when there is one,
	// the second: the first update also allocates the workspaces.
	if _, err := d.RunTo(ctx, start+1); err != nil {
		return err
	}
	stepDur, evalDur := durs()
	if total > start+1 {
		if _, err := d.RunTo(ctx, start+2); err != nil {
			return err
		}
		s2, _ := durs()
		stepDur = min(stepDur, s2-stepDur)
	}
	first := e.opt.Now().Sub(t0)
	rec.Done = d.Stats().Steps
	rec.StepSeconds = stepDur.Seconds()
	rec.Seconds += first.Seconds()
	if e.perStep == 0 {
		e.perStep = stepDur.Seconds() / w
		if evalDur > 0 {
			e.perEval = evalDur.Seconds() / evalW
		}
		e.estimate(i, start)
		if e.opt.EstimateOnly {
			return errEstimated
		}
	}
	done := d.Stats().Steps
	remEvals := 0
	for _, s := range d.LogAt {
		if s > done {
			remEvals++
		}
	}
	est := float64(total-done)*stepDur.Seconds() + float64(remEvals)*e.perEval*evalW
	e.logf("run %d/%d (m = %d, η = %g, %d steps, %d evaluations): first steps %.3gs (update %.3gs, evaluation %.3gs); about %s to go",
		i+1, len(e.sum.Runs), rec.Width, rec.LR, total, len(d.LogAt), first.Seconds(), stepDur.Seconds(), evalDur.Seconds(), formatSeconds(est))
	if d.CheckpointEvery == 0 {
		switch {
		case e.opt.CheckpointEvery > 0:
			d.CheckpointEvery = e.opt.CheckpointEvery
		case e.opt.CheckpointEvery == 0:
			d.CheckpointEvery = max(1, int(600/max(stepDur.Seconds(), 1e-6)))
		}
	}
	label := fmt.Sprintf("run %d/%d m=%d η=%g", i+1, len(e.sum.Runs), rec.Width, rec.LR)
	pr := progress.New(e.opt.Progress, e.opt.Terminal, label, int64(total)).Unit("steps").Clock(e.opt.Now).From(int64(done))
	e.onStep = func() { pr.Add(1) }
	pr.ETA(func() time.Duration {
		// Time left = the mean update time per step and the mean time per
		// evaluation so far, times the steps and evaluations left.
		st, ev := durs()
		cur := d.Stats().Steps + 1
		evalsDone, evalsLeft := 0, 0
		for _, s := range d.LogAt {
			if s <= cur {
				evalsDone++
			} else {
				evalsLeft++
			}
		}
		left := float64(total-cur) * st.Seconds() / float64(max(cur-start, 1))
		left += float64(evalsLeft) * ev.Seconds() / float64(max(evalsDone, 1))
		return durationOf(left)
	})
	e.loopFrom = e.opt.Now()
	_, err := d.Run(ctx)
	e.onStep = nil
	pr.Done()
	e.syncSeconds(rec)
	e.loopFrom = time.Time{}
	rec.Done = d.Stats().Steps
	rec.Complete = rec.Done >= total
	return err
}

// estimate prints the estimated time of the experiment's runs from run
// from on, whose first done steps are already done (a resumed run), from
// the first timed step, and says so when it is long.
func (e *experiment[T]) estimate(from, done int) {
	var secs float64
	for k, r := range e.sum.Runs[from:] {
		steps, evals := r.Steps, 0
		if k == 0 {
			steps -= min(done, steps)
		}
		for _, s := range train.LogSteps(r.Steps, e.cfg.Evals) {
			if k > 0 || s > done {
				evals++
			}
		}
		p := params(e.ds.x.Cols, r.Width, e.cfg.Depth)
		rows := e.ds.x.Rows
		if e.cfg.Batch > 0 && e.cfg.Batch < rows {
			rows = e.cfg.Batch
		}
		secs += float64(steps)*e.perStep*p*float64(rows) + float64(evals)*e.perEval*p*float64(e.ds.x.Rows+e.ds.xt.Rows)
	}
	e.sum.Estimate = secs
	dur := durationOf(secs)
	e.logf("estimated time of the %d run(s): about %s on this machine (from the timed first step, %d threads)",
		len(e.sum.Runs)-from, formatSeconds(secs), linalg.Threads())
	if dur > LongRun && !e.cfg.Quick && e.cfg.Preset != "custom" && !e.opt.NoQuickHint {
		q, _ := Preset(e.cfg.Preset, true)
		e.logf("NOTE: the %s preset at paper scale takes longer than %v here; --quick runs a reduced setting (%s)",
			e.cfg.Preset, LongRun, joinReductions(q.Reductions))
	}
	if e.cfg.Quick {
		e.logf("quick setting: %s", joinReductions(e.cfg.Reductions))
	}
	if len(e.cfg.Overrides) > 0 {
		e.logf("preset values overridden by %v", e.cfg.Overrides)
	}
}

func joinReductions(r []string) string {
	s := ""
	for i, x := range r {
		if i > 0 {
			s += "; "
		}
		s += x
	}
	return s
}

// fingerprint returns what identifies run i of this experiment.
func (e *experiment[T]) fingerprint(i int) Fingerprint {
	return Fingerprint{Format: StateFormat, Run: i + 1, Config: e.cfg, Data: e.data, Init: e.ds.init}
}

// writeGob writes fp and v to path atomically.
func writeGob(path string, fp Fingerprint, v any) error {
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		if err := writeFingerprint(w, fp); err != nil {
			return err
		}
		return gob.NewEncoder(w).Encode(v)
	})
}

// readGob reads path into v after checking that its fingerprint is fp; it
// reports false if path does not exist.
func readGob(path string, fp Fingerprint, v any) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	if err := decodeRunState(bufio.NewReader(f), fp, v); err != nil {
		return false, fmt.Errorf("equiv: %s: %w", path, err)
	}
	return true, nil
}

// decodeRunState reads a fingerprint, checks it against fp and decodes
// the gob that follows into v.
func decodeRunState(r io.Reader, fp Fingerprint, v any) error {
	saved, err := readFingerprint(r)
	if err == nil {
		err = checkFingerprint(saved, fp)
	}
	if err == nil {
		err = gob.NewDecoder(r).Decode(v)
	}
	return err
}

// durationOf returns secs as a Duration, saturated at the largest one (a
// Duration holds about 292 years) instead of wrapping to a negative one.
func durationOf(secs float64) time.Duration {
	if !(secs*1e9 < math.MaxInt64) {
		return math.MaxInt64
	}
	return time.Duration(secs * 1e9)
}

// formatSeconds formats an estimated time: rounded as progress does, or
// in years beyond a century.
func formatSeconds(secs float64) string {
	const year = 365.25 * 24 * 3600
	if secs > 100*year {
		return fmt.Sprintf("%.3g years", secs/year)
	}
	return progress.RoundDuration(durationOf(secs)).String()
}
