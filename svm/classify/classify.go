// Package classify is the NTK machine for a user's own labelled data:
// multi-class classification by one-vs-one or one-vs-rest SVMs, or by
// multi-output kernel ridge regression, on the infinite-width NTK or NNGP
// kernel (or the NTK of a network whose first layers are not trained),
// with the kernel, depth, σ_b and C chosen by stratified k-fold
// cross-validation, in a value a Go program can embed:
//
//	c := classify.New(classify.Options{})
//	if err := c.Fit(ctx, x, labels); err != nil { … }
//	pred, err := c.Predict(ctx, xTest)
//	err = c.Save(w)
//
// The zero Options standardise the features with the training data's
// statistics, cross-validate DefaultGrid with 4 folds, pick by SelectOneSE,
// and refit one-vs-one SVMs (libsvm's C-SVC) on all the training data.
//
// Work is shared as far as the mathematics allows: one pass of the
// arc-cosine recursion gives the Gram of every depth and both kinds
// (ntk.GramLadder; one more pass per number of fixed layers); every fold, every C and every binary sub-problem is a
// view of that one Gram (index sets, no copies). Results are the same at
// any thread count: sub-problems are independent and each is sequential.
//
// Past one Gram in memory: with a memory budget (Options.MemBudget) that
// the dense Gram, its solver and the inputs do not fit, a grid of one
// point is fitted at scale (PlanFit decides, before anything large is
// allocated, and refuses a fit that cannot run in the budget, saying what
// it needs): the SVMs by the same SMO on one Gram computed on demand
// (svm/ondemand), whose row cache, sized from the budget, all the binary
// sub-problems share through index views; KRR by Falkon (svm/falkon), one
// multi-output solve on Nyström centres. Cross-validation needs the dense
// Gram and is refused at that scale. A fit at scale can hand its progress
// to Options.Checkpoint and be continued from it (Options.Resume) to the
// model of the uninterrupted fit, bit for bit (see ScaleState).
//
// Models are written in svm's model format (version 3 and later): the class names,
// the scheme, the binary machines' weights over the support vectors, the
// standardisation and the kernel (ntk.Spec), with the support vectors'
// inputs embedded, so that a model file is all Predict needs.
package classify

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/dataset"
)

// Options configure a Classifier. The zero value works (see the package
// documentation).
type Options struct {
	Machine Machine
	Scheme  Scheme
	// Grid is what cross-validation chooses from; an empty grid means
	// DefaultGrid (Grid{Fixed: true}: DefaultGrid with the fixed-layer
	// NTKs). A grid of one point is fitted without cross-validation.
	Grid  Grid
	Folds int // k of k-fold cross-validation; 0 means DefaultFolds
	// Repeats runs the cross-validation this many times with folds drawn
	// from Seed, Seed+1, …, and scores each point over all of them (0 or
	// 1: once). It steadies the choice on small data.
	Repeats int
	FoldOf  []int     // an explicit fold for each training example (overrides Folds and Seed)
	Select  Selection // the rule that picks the grid point
	Seed    uint64    // shuffles the stratified folds
	// WeightStd is σ_w; 0 means √2, which keeps the kernel's diagonal at
	// ‖x‖²/d at every depth (He's initialisation), so one C grid suits
	// every depth.
	WeightStd float64
	// NoStandardize uses the features as given instead of standardising
	// them with the training data's mean and standard deviation.
	NoStandardize bool
	// UnitNorm scales every example (after standardisation) to the
	// Euclidean norm √d, d the number of features, so that each has
	// ‖x‖²/d = 1 (see dataset.Scaler). With σ_b = 0 the kernel then sees
	// only the angles between examples; on images, whose norms vary with
	// stroke width and contrast, that can help.
	UnitNorm bool
	Threads  int // goroutines; 0 means GOMAXPROCS
	// Float32 stores the Gram matrices as float32 (half the memory; the
	// recursion and the solvers stay float64), and computes each kernel of
	// the grid on its own.
	Float32 bool
	// MaxBytes, if positive, bounds the memory of the Gram matrices: a
	// Gram that does not fit is refused before it is allocated, and the
	// Grams of all depths at once are computed only when they fit.
	MaxBytes int64
	// MemBudget, if positive, is the memory budget of the whole fit
	// (PlanFit): when the dense Gram, its solver and the inputs fit, the
	// fit runs as with no budget; else a grid of one point is fitted at
	// scale, the SVMs by SMO on an on-demand Gram and KRR by Falkon, a
	// larger grid is refused (or, with Holdout, chosen from on a
	// validation split), and so is, before anything large is allocated, a
	// fit that does not fit the budget at all (a *membudget.NeedError).
	MemBudget int64
	// Centres is the number of Falkon's Nyström centres for KRR at scale;
	// 0 means the most that fit MemBudget, at most DefaultMaxCentres.
	Centres int
	// Leverage draws Falkon's centres by approximate ridge leverage scores
	// instead of uniformly.
	Leverage bool
	// Holdout, in (0, 1), lets a grid of several points run where
	// cross-validation's dense Gram does not fit MemBudget: about that
	// share of the training examples (stratified) is held out, each grid
	// point fitted on the rest (at scale) and scored on it, and the point
	// chosen refitted on all. 0 refuses such a grid (ErrGridTooLarge).
	Holdout float64
	// Solver is how KRR runs at scale: Falkon (the default) or EigenPro
	// (svm/eigenpro: all the training points, no Nyström centres).
	// SolverEigenPro runs KRR at scale even when the dense Gram fits.
	Solver Solver
	// Epochs is EigenPro's number of passes over the training points (0:
	// DefaultEpochs).
	Epochs int
	// AtScale fits a grid of one point at scale (on-demand SMO, Falkon)
	// even when the dense Gram fits, for comparisons; with no MemBudget
	// Falkon keeps no kernel blocks.
	AtScale bool
	// Progress, if not nil, is called as a fit at scale advances.
	Progress func(ScaleProgress)
	// Warn, if not nil, is told what the fit works around, one line each
	// (a class with fewer examples than folds: SmallClasses).
	Warn func(string)
	// Checkpoint, if not nil, is called with the progress of the fit at
	// scale (the refit of the chosen grid point; cross-validation and the
	// fits on a validation split are not checkpointed) after every
	// finished binary sub-problem and every CG iteration of Falkon. The
	// state is the callee's to keep (ScaleState.Save writes it); the call
	// holds up the fit, so it should be quick or rare, and an error stops
	// the fit with it.
	Checkpoint func(*ScaleState) error
	// Resume, if not nil, continues the fit at scale from a state an
	// earlier fit handed to Checkpoint: the same model as an uninterrupted
	// fit, bit for bit. A state of other data, another kernel, C, machine,
	// scheme or route, or another layout of the fit (which sub-problems
	// get Grams of their own, Falkon's centres and stored blocks, which
	// the memory budget decides) is refused with an error wrapping
	// ErrResume that names what differs.
	Resume *ScaleState

	// Probability fits a probability model after the machine (libsvm's
	// -b 1, scikit-learn's probability=True): Platt's sigmoid for every
	// binary machine on decision values cross-validated with ProbFolds
	// folds at the chosen grid point, coupled over the classes (see
	// Probabilities). It needs the dense route.
	Probability bool
	// ProbFolds is the number of folds of that cross-validation; 0 means
	// 5 (libsvm's), fewer when a class has fewer examples.
	ProbFolds int

	rowsOnly bool      // tests: every sub-problem on the shared on-demand Gram
	cw       []float64 // the refit's class weights, for the fits at scale
}

func (o *Options) grid() Grid {
	g := o.Grid
	if g.Size() == 0 && len(g.Kinds)+len(g.Depths)+len(g.BiasStds)+len(g.Cs) == 0 {
		d := DefaultGrid()
		d.Fixed = g.Fixed
		return d
	}
	return g
}

func (o *Options) weightStd() float64 {
	if o.WeightStd == 0 {
		return math.Sqrt2
	}
	return o.WeightStd
}

func (o *Options) threads() int {
	if o.Threads > 0 {
		return o.Threads
	}
	return runtime.GOMAXPROCS(0)
}

// warn passes msg to Warn, if set.
func (o *Options) warn(msg string) {
	if o.Warn != nil {
		o.Warn(msg)
	}
}

// DefaultFolds is k of k-fold cross-validation when Options.Folds is 0.
const DefaultFolds = 4

func (o *Options) folds() int {
	if o.Folds == 0 {
		return DefaultFolds
	}
	return o.Folds
}

// Classifier is a multi-class NTK machine. Fit it, or Load a saved one,
// before Predict.
type Classifier struct {
	opts    Options
	Classes []string // class names; Predict's indices refer to these
	Kernel  ntk.Spec // the chosen kernel
	C       float64  // the chosen C
	// ClassWeight is the chosen class weighting (NoClassWeight when none).
	ClassWeight ClassWeight
	CV          *CVResult
	Plan        Plan // how the last Fit ran
	// FitTime is the time Fit took (cross-validation and refit).
	FitTime time.Duration

	scaler *dataset.Scaler
	sv     linalg.Matrix[float64] // standardised inputs of the support vectors
	mm     *multi                 // units index the rows of sv
	model  *svm.Model
	// The class weights of the fit (nil: none) and its probability model
	// (nil: none).
	classWeights []float64
	prob         *svm.Probability
}

// New returns an unfitted Classifier.
func New(o Options) *Classifier { return &Classifier{opts: o} }

// FitDataset fits c on a Dataset.
func (c *Classifier) FitDataset(ctx context.Context, d *dataset.Dataset) error {
	if err := d.Validate(); err != nil {
		return err
	}
	return c.fit(ctx, d.X, d.Y, d.Classes)
}

// Fit fits c on the rows of x with their class labels (any strings; the
// classes are ordered as package dataset orders them).
func (c *Classifier) Fit(ctx context.Context, x linalg.Matrix[float64], labels []string) error {
	if len(labels) != x.Rows {
		return fmt.Errorf("classify: %d labels for %d examples", len(labels), x.Rows)
	}
	d := dataset.FromLabels(x, labels)
	return c.FitDataset(ctx, d)
}

func (c *Classifier) fit(ctx context.Context, x linalg.Matrix[float64], y []int, classes []string) error {
	return c.fitWith(ctx, x, y, classes, c.crossValidate)
}

// cvFunc cross-validates the grid on the standardised inputs xs.
type cvFunc func(ctx context.Context, xs linalg.Matrix[float64], y []int, classes []string) (*CVResult, error)

// fitWith fits c with the cross-validation cv (run only when the grid has
// more than one point).
func (c *Classifier) fitWith(ctx context.Context, x linalg.Matrix[float64], y []int, classes []string, cv cvFunc) error {
	start := time.Now()
	o := &c.opts
	if err := o.grid().Validate(); err != nil {
		return err
	}
	if err := checkClasses(y, classes); err != nil {
		return err
	}
	if err := o.checkClassWeights(classes); err != nil {
		return err
	}
	plan, err := o.PlanFit(x.Rows, x.Cols, len(classes))
	if err != nil {
		return err
	}
	if o.Probability && plan.Route != RouteDense {
		return fmt.Errorf("classify: probabilities need the Gram in memory; this fit runs at scale (%s)", plan.Route)
	}
	c.Plan = plan
	ck, err := o.scaleCk(plan, x, y, classes)
	if err != nil {
		return err
	}
	xs, err := c.standardize(x)
	if err != nil {
		return err
	}
	g := o.grid()
	point := Point{Spec: o.spec(g.Kernels()[0], g.BiasStds[0]), C: g.Cs[0], ClassWeight: g.classWeights()[0]}
	c.CV = nil
	if g.Size() > 1 {
		if plan.Route != RouteDense {
			cv = c.holdoutSearch
		}
		cv, err := cv(ctx, xs, y, classes)
		if err != nil {
			return err
		}
		c.CV = cv
		point = cv.Scores[cv.Chosen].Point
	}
	if err := c.fitPoint(ctx, plan, point, xs, y, classes, ck); err != nil {
		return err
	}
	c.FitTime = time.Since(start)
	return nil
}

// fitPoint fits the machine of one grid point on the standardised inputs
// xs by plan's route, checkpointed by ck when not nil.
func (c *Classifier) fitPoint(ctx context.Context, plan Plan, point Point, xs linalg.Matrix[float64], y []int, classes []string, ck *scaleCk) error {
	o := &c.opts
	c.Classes, c.C, c.ClassWeight = classes, point.C, point.ClassWeight
	c.Kernel = point.Spec
	cw, err := point.ClassWeight.weights(classes, y, identity(len(y)))
	if err != nil {
		return err
	}
	c.classWeights = cw
	if ck != nil {
		ck.spec.Kernel, ck.spec.C, ck.spec.Route = c.Kernel.String(), point.C, plan.Route.String()
		ck.spec.ClassWeight = string(point.ClassWeight)
	}
	var mm *multi
	c.prob = nil
	switch {
	case plan.Route != RouteDense:
		so := *o
		so.cw = cw
		mm, err = fitScale(ctx, plan, c.Kernel, xs, y, len(classes), point.C, &so, ck)
	case o.Float32:
		mm, c.prob, err = refit[float32](ctx, c.Kernel, xs, y, classes, point.C, cw, o)
	default:
		mm, c.prob, err = refit[float64](ctx, c.Kernel, xs, y, classes, point.C, cw, o)
	}
	if err != nil {
		return err
	}
	c.compress(mm, xs)
	return nil
}

// checkClasses checks that every class has training examples and that
// there are two or more.
func checkClasses(y []int, classes []string) error {
	counts := make([]int, len(classes))
	for _, v := range y {
		counts[v]++
	}
	present := 0
	for _, n := range counts {
		if n > 0 {
			present++
		}
	}
	if present < 2 {
		return fmt.Errorf("classify: the training data has %d class (%q): a classifier needs two or more", present, classes)
	}
	for k, n := range counts {
		if n == 0 {
			return fmt.Errorf("classify: class %q has no training examples", classes[k])
		}
	}
	return nil
}

// standardize sets c's scaler from x (none with NoStandardize and no
// UnitNorm) and returns x standardised and normalised as the options say.
func (c *Classifier) standardize(x linalg.Matrix[float64]) (linalg.Matrix[float64], error) {
	c.scaler = nil
	if c.opts.NoStandardize && !c.opts.UnitNorm {
		return x, nil
	}
	c.scaler = &dataset.Scaler{}
	if !c.opts.NoStandardize {
		c.scaler = dataset.FitScaler(x)
	}
	c.scaler.UnitNorm = c.opts.UnitNorm
	return c.scaler.Apply(x)
}

// crossValidate runs the grid search, Repeats times with fresh folds when
// asked (each fold of each repeat counts as one score).
func (c *Classifier) crossValidate(ctx context.Context, xs linalg.Matrix[float64], y []int, classes []string) (*CVResult, error) {
	o := &c.opts
	if o.FoldOf != nil {
		if len(o.FoldOf) != len(y) {
			return nil, fmt.Errorf("classify: %d fold assignments for %d examples", len(o.FoldOf), len(y))
		}
		nfold := 0
		for _, f := range o.FoldOf {
			if f < 0 {
				return nil, fmt.Errorf("classify: fold %d: want ≥ 0", f)
			}
			nfold = max(nfold, f+1)
		}
		return gridSearch(ctx, xs, y, classes, o.FoldOf, nfold, o)
	}
	var all *CVResult
	for r := range max(o.Repeats, 1) {
		if r == 0 {
			for _, w := range SmallClasses(y, len(classes), o.folds(), classes) {
				o.warn(w)
			}
		}
		folds, err := StratifiedFolds(y, len(classes), o.folds(), o.Seed+uint64(r))
		if err != nil {
			return nil, err
		}
		cv, err := gridSearch(ctx, xs, y, classes, folds, o.folds(), o)
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = cv
			continue
		}
		for i := range all.Scores {
			s := &all.Scores[i]
			s.Folds = append(s.Folds, cv.Scores[i].Folds...)
			s.Mean, s.Std = MeanStd(s.Folds)
		}
		all.Folds += cv.Folds
	}
	all.Chosen = choose(all.Scores, o.Select, all.Folds)
	return all, nil
}

// refit fits the chosen machine on all the training examples with the
// class weights cw, and with Options.Probability its probability model on
// the same Gram.
func refit[T linalg.Float](ctx context.Context, spec ntk.Spec, xs linalg.Matrix[float64], y []int, classes []string, c float64, cw []float64, o *Options) (*multi, *svm.Probability, error) {
	k, err := gram[T](ctx, spec, xs, o)
	if err != nil {
		return nil, nil, err
	}
	mm, err := fitMulti(ctx, k, identity(len(y)), y, len(classes), o.Machine, o.Scheme, c, o.threads(), nil, 0, nil, cw)
	if err != nil || !o.Probability {
		return mm, nil, err
	}
	p, err := fitProbability(ctx, k, y, classes, c, cw, o)
	return mm, p, err
}

// compress keeps the inputs of the support vectors only and renumbers the
// units' indices into them.
func (c *Classifier) compress(mm *multi, xs linalg.Matrix[float64]) {
	at := map[int]int{}
	var keep []int
	for _, u := range mm.units {
		for _, j := range u.idx {
			if _, ok := at[j]; !ok {
				at[j] = -1
				keep = append(keep, j)
			}
		}
	}
	slices.Sort(keep)
	for r, j := range keep {
		at[j] = r
	}
	c.sv = linalg.New[float64](len(keep), xs.Cols)
	for r, j := range keep {
		copy(c.sv.Row(r), xs.Row(j))
	}
	for ui := range mm.units {
		u := &mm.units[ui]
		idx := make([]int, len(u.idx))
		for k, j := range u.idx {
			idx[k] = at[j]
		}
		u.idx, u.points, u.dual, u.ka, u.kernel = idx, nil, nil, nil, nil
	}
	c.mm = mm
	c.model = nil
}

// SupportVectors returns the number of training examples the model keeps.
func (c *Classifier) SupportVectors() int { return c.sv.Rows }

// Decision returns the decision value of every binary machine for every
// row of x (one row per example, one column per machine: the class pairs
// of one-vs-one in the order (0,1), (0,2), …, (1,2), …, or one column per
// class for one-vs-rest and KRR).
func (c *Classifier) Decision(ctx context.Context, x linalg.Matrix[float64]) (linalg.Matrix[float64], error) {
	if c.mm == nil {
		return linalg.Matrix[float64]{}, fmt.Errorf("classify: the classifier is not fitted")
	}
	xs := x
	if x.Cols != c.sv.Cols {
		return linalg.Matrix[float64]{}, fmt.Errorf("classify: %d features, the model was trained on %d", x.Cols, c.sv.Cols)
	}
	if c.scaler != nil {
		var err error
		if xs, err = c.scaler.Apply(x); err != nil {
			return linalg.Matrix[float64]{}, err
		}
	}
	out := linalg.New[float64](x.Rows, len(c.mm.units))
	// The kernel against the support vectors, 1024 rows at a time.
	memCap := int64(1024) * int64(max(1, c.sv.Rows)) * 8
	err := ntk.Blocks(ctx, c.Kernel, &xs, c.sv, ntk.Options{Threads: c.opts.Threads}, memCap, func(r0 int, kz linalg.Matrix[float64]) error {
		for r := range kz.Rows {
			decide(c.mm, out.Row(r0+r), kz.Row(r))
		}
		return nil
	})
	if err != nil {
		return linalg.Matrix[float64]{}, err
	}
	return out, ctx.Err()
}

// PredictIndex returns the predicted class index of every row of x.
func (c *Classifier) PredictIndex(ctx context.Context, x linalg.Matrix[float64]) ([]int, error) {
	dec, err := c.Decision(ctx, x)
	if err != nil {
		return nil, err
	}
	pred, votes := make([]int, x.Rows), make([]int, len(c.Classes))
	for i := range pred {
		pred[i] = c.mm.class(dec.Row(i), votes)
	}
	return pred, nil
}

// Predict returns the predicted class name of every row of x.
func (c *Classifier) Predict(ctx context.Context, x linalg.Matrix[float64]) ([]string, error) {
	idx, err := c.PredictIndex(ctx, x)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(idx))
	for i, k := range idx {
		out[i] = c.Classes[k]
	}
	return out, nil
}

// Score returns the accuracy of c on a labelled dataset whose classes are
// named as in training (a class the model does not know counts as wrong).
func (c *Classifier) Score(ctx context.Context, d *dataset.Dataset) (float64, error) {
	pred, err := c.Predict(ctx, d.X)
	if err != nil {
		return 0, err
	}
	right := 0
	for i, p := range pred {
		if p == d.Classes[d.Y[i]] {
			right++
		}
	}
	return float64(right) / float64(len(pred)), nil
}

// Save writes c in svm's model format.
func (c *Classifier) Save(w io.Writer) error {
	m, err := c.Model()
	if err != nil {
		return err
	}
	return svm.WriteModel(w, m)
}

// Model returns c as an svm.Model (with the fields of version 3).
func (c *Classifier) Model() (*svm.Model, error) {
	if c.mm == nil {
		return nil, fmt.Errorf("classify: the classifier is not fitted")
	}
	if c.model != nil {
		return c.model, nil
	}
	nu := len(c.mm.units)
	m := &svm.Model{Machine: c.opts.Machine.String(), Loss: c.loss(), Lambda: 1 / c.C, Objective: "sum",
		Solver: c.solver(), HasBias: c.opts.Machine != KRR, Classes: c.Classes, Scheme: c.mm.scheme.String(),
		Kernel: c.Kernel,
		Train:  svm.TrainRef{Source: "classify", N: c.sv.Rows, D: c.sv.Cols, SHA256: svm.InputsSHA256(c.sv), Embedded: true},
		Fit:    svm.FitInfo{C: c.C},
		Alpha:  make([]float64, c.sv.Rows*nu), X: c.sv}
	for ui, u := range c.mm.units {
		m.Outputs = append(m.Outputs, svm.Output{Pos: u.pos, Neg: u.neg, Bias: u.bias})
		for k, j := range u.idx {
			m.Alpha[j*nu+ui] = u.alpha[k]
		}
	}
	if c.scaler != nil {
		m.Scaling = &svm.Scaling{Mean: c.scaler.Mean, Scale: c.scaler.Scale, UnitNorm: c.scaler.UnitNorm}
	}
	if c.classWeights != nil {
		m.ClassWeights, m.ClassWeight = c.classWeights, string(c.ClassWeight)
	}
	m.Probability = c.prob
	c.model = m
	return m, nil
}

func (c *Classifier) loss() string {
	switch c.opts.Machine {
	case SVM2:
		return "squared_hinge"
	case KRR:
		return "squared"
	}
	return "hinge"
}

func (c *Classifier) solver() string {
	if c.Plan.Route == RouteFalkon {
		return "falkon"
	}
	if c.Plan.Route == RouteEigenPro {
		return "eigenpro"
	}
	if c.opts.Machine == KRR {
		return "exact"
	}
	return "smo"
}

// Load reads a Classifier saved by Save.
func Load(r io.Reader) (*Classifier, error) {
	m, err := svm.ReadModel(r)
	if err != nil {
		return nil, err
	}
	return FromModel(m)
}

// FromModel returns the Classifier of a multi-class model.
func FromModel(m *svm.Model) (*Classifier, error) {
	if len(m.Outputs) == 0 || len(m.Classes) < 2 {
		return nil, fmt.Errorf("%w: not a multi-class model (no classes)", svm.ErrModel)
	}
	if !m.Train.Embedded {
		return nil, fmt.Errorf("%w: the model does not embed its support vectors", svm.ErrModel)
	}
	spec := m.Kernel // ReadModel checked it
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", svm.ErrModel, err)
	}
	mach, err := ParseMachine(m.Machine)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", svm.ErrModel, err)
	}
	sch, err := ParseScheme(m.Scheme)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", svm.ErrModel, err)
	}
	c := &Classifier{opts: Options{Machine: mach, Scheme: sch}, Classes: m.Classes, Kernel: spec, C: m.Fit.C, sv: m.X, model: m,
		ClassWeight: ClassWeight(m.ClassWeight), classWeights: m.ClassWeights, prob: m.Probability}
	if s := m.Scaling; s != nil {
		c.scaler = &dataset.Scaler{Mean: s.Mean, Scale: s.Scale, UnitNorm: s.UnitNorm}
		if len(s.Mean) == 0 {
			c.scaler.Mean, c.scaler.Scale = nil, nil
		}
	}
	nu := len(m.Outputs)
	mm := &multi{scheme: sch, classes: len(m.Classes)}
	for ui, o := range m.Outputs {
		u := unit{pos: o.Pos, neg: o.Neg, bias: o.Bias}
		for j := range m.Train.N {
			if a := m.Alpha[j*nu+ui]; a != 0 {
				u.idx, u.alpha = append(u.idx, j), append(u.alpha, a)
			}
		}
		if sch == OneVsOne && o.Neg < 0 {
			return nil, fmt.Errorf("%w: one-vs-one output %d has no second class", svm.ErrModel, ui)
		}
		mm.units = append(mm.units, u)
	}
	c.mm = mm
	return c, nil
}
