// Package regress is the NTK machine for a user's own data with a numeric
// target: kernel ridge regression or ε-insensitive support vector
// regression (libsvm's ε-SVR) on the infinite-width NTK or NNGP kernel,
// with the kernel, depth, σ_b, C (and ε for SVR) chosen by k-fold
// cross-validation on the mean squared error, in a value a Go program can
// embed, the regression sibling of classify.Classifier:
//
//	r := regress.New(regress.Options{})
//	if err := r.Fit(ctx, x, y); err != nil { … }
//	pred, err := r.Predict(ctx, xTest)
//	err = r.Save(w)
//
// The zero Options standardise the features with the training data's
// statistics, cross-validate DefaultGrid with 4 folds, pick by
// classify.SelectOneSE, and refit ε-SVR on all the training data.
//
// The machines are fitted on the targets standardised with the training
// targets' mean m and standard deviation s, z = (y − m)/s, and predict
// m + s·g(x): kernel ridge regression then needs no bias (the paper's
// homogeneous machine, paper eq. 7, fits the centred targets), and one
// grid of C and ε suits targets of any scale (ε is in units of s). With
// Options.NoTargetScaling the machines fit y itself.
//
//	krr: min_β ½‖β‖²/C + ½ Σ (zᵢ − gᵢ)²,   α = (K + I/C)⁻¹ z   (svm.KRR, ridge 1/C)
//	svr: min_β,b ½‖β‖² + C Σ max(0, |zᵢ − gᵢ − b| − ε)       (svm.SolveDual, libsvm's ε-SVR)
//
// so that KRR is scikit-learn's KernelRidge(alpha=1/C) and SVR its
// SVR(C=C, epsilon=ε) on the same kernel and the same z.
//
// Models are written in svm's model format (version 4, Task
// "regression"): the machine's weights over its support vectors with their
// inputs, the bias, the feature standardisation, the target's mean and
// scale (svm.Target) and the kernel (ntk.Spec), so that a model file is
// all Predict needs.
package regress

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"time"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/classify"
	"github.com/ntksvm/ntksvm/svm/dataset"
)

// Machine is the kernel machine of a Regressor.
type Machine uint8

const (
	// SVR is ε-insensitive support vector regression with a bias,
	// libsvm's ε-SVR, solved exactly by SMO.
	SVR Machine = iota
	// KRR is kernel ridge regression (no bias, on the centred targets),
	// solved by a Cholesky factorisation.
	KRR
)

var machineNames = []string{"svr", "krr"}

// String returns "svr" or "krr".
func (m Machine) String() string {
	if int(m) < len(machineNames) {
		return machineNames[m]
	}
	return fmt.Sprintf("Machine(%d)", int(m))
}

// ParseMachine parses "svr" or "krr".
func ParseMachine(s string) (Machine, error) {
	for i, n := range machineNames {
		if s == n {
			return Machine(i), nil
		}
	}
	return 0, fmt.Errorf("regress: machine %q: want svr or krr", s)
}

// Options configure a Regressor. The zero value works (see the package
// documentation).
type Options struct {
	Machine Machine
	// Grid is what cross-validation chooses from; an empty grid means
	// DefaultGrid. A grid of one point is fitted without cross-validation.
	Grid    Grid
	Folds   int // k of k-fold cross-validation; 0 means 4
	Repeats int // cross-validate this many times with folds from Seed, Seed+1, … (0 or 1: once)
	// FoldOf is an explicit fold for each training example (overrides
	// Folds, Repeats and Seed).
	FoldOf []int
	Select classify.Selection // the rule that picks the grid point
	Seed   uint64             // shuffles the folds
	// WeightStd is σ_w; 0 means √2 (as classify.Options.WeightStd).
	WeightStd float64
	// NoStandardize uses the features as given instead of standardising
	// them with the training data's mean and standard deviation;
	// UnitNorm then scales every example to the norm √d (dataset.Scaler).
	NoStandardize bool
	UnitNorm      bool
	// NoTargetScaling fits the machines to the targets as given instead of
	// to (y − mean)/std; ε is then in the targets' units.
	NoTargetScaling bool
	// Tol is SVR's stopping tolerance, libsvm's -e (the largest violation
	// of the KKT conditions); 0 means 1e-3, libsvm's and scikit-learn's
	// default.
	Tol     float64
	Threads int // goroutines; 0 means GOMAXPROCS
	// MaxBytes, if positive, bounds the memory of the Gram matrices: a
	// Gram that does not fit is refused before it is allocated, and the
	// Grams of all depths at once are computed only when they fit.
	MaxBytes int64
}

func (o *Options) grid() Grid {
	g := o.Grid
	if len(g.Kinds)+len(g.Depths)+len(g.BiasStds)+len(g.Cs)+len(g.Epsilons) == 0 {
		return DefaultGrid()
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

func (o *Options) folds() int {
	if o.Folds == 0 {
		return 4
	}
	return o.Folds
}

func (o *Options) tol() float64 {
	if o.Tol == 0 {
		return 1e-3
	}
	return o.Tol
}

// validate checks the options that do not depend on the data.
func (o *Options) validate() error {
	if int(o.Machine) >= len(machineNames) {
		return fmt.Errorf("regress: unknown machine %d", o.Machine)
	}
	if !(o.Tol >= 0) || math.IsInf(o.Tol, 0) {
		return fmt.Errorf("regress: tolerance %v: want a finite number ≥ 0", o.Tol)
	}
	if !(o.WeightStd >= 0) || math.IsInf(o.WeightStd, 0) {
		return fmt.Errorf("regress: σ_w %v: want a finite number > 0", o.WeightStd)
	}
	return o.grid().validate(o.Machine)
}

// Regressor is an NTK kernel machine with a numeric target. Fit it, or
// Load a saved one, before Predict.
type Regressor struct {
	opts    Options
	Machine Machine
	Kernel  ntk.Spec // the chosen kernel
	C       float64  // the chosen C
	Epsilon float64  // the chosen ε (SVR; in units of Target.Scale)
	Target  svm.Target
	CV      *CVResult
	// FitTime is the time Fit took (cross-validation and refit).
	FitTime time.Duration

	scaler *dataset.Scaler
	sv     linalg.Matrix[float64] // standardised inputs of the support vectors
	alpha  []float64              // their weights
	bias   float64
	model  *svm.Model
}

// New returns an unfitted Regressor.
func New(o Options) *Regressor { return &Regressor{opts: o, Machine: o.Machine} }

// FitDataset fits r on a Dataset whose labels are numbers
// (dataset.Dataset.Targets).
func (r *Regressor) FitDataset(ctx context.Context, d *dataset.Dataset) error {
	if err := d.Validate(); err != nil {
		return err
	}
	y, err := d.Targets()
	if err != nil {
		return err
	}
	return r.Fit(ctx, d.X, y)
}

// Fit fits r on the rows of x with their targets y: cross-validation of
// the grid (when it has more than one point), then the chosen point's
// machine on all the rows. A target that is NaN or infinite, fewer rows
// than folds, or a constant target is an error.
func (r *Regressor) Fit(ctx context.Context, x linalg.Matrix[float64], y []float64) error {
	start := time.Now()
	o := &r.opts
	if err := o.validate(); err != nil {
		return err
	}
	if len(y) != x.Rows {
		return fmt.Errorf("regress: %d targets for %d examples", len(y), x.Rows)
	}
	if x.Rows < 2 || x.Cols == 0 {
		return fmt.Errorf("regress: %d examples with %d features: a regression needs at least two examples and one feature", x.Rows, x.Cols)
	}
	if err := checkTargets(y); err != nil {
		return err
	}
	target, err := targetScaling(y, o.NoTargetScaling)
	if err != nil {
		return err
	}
	z := make([]float64, len(y))
	for i, v := range y {
		z[i] = (v - target.Mean) / target.Scale
	}
	xs, err := r.standardize(x)
	if err != nil {
		return err
	}
	g := o.grid()
	points := g.Points(o.Machine)
	point := points[0]
	r.CV = nil
	if len(points) > 1 {
		cv, err := crossValidate(ctx, xs, z, target.Scale, o)
		if err != nil {
			return err
		}
		r.CV = cv
		point = cv.Scores[cv.Chosen].Point
	}
	r.Machine, r.Target = o.Machine, target
	if err := r.fitPoint(ctx, point, xs, z); err != nil {
		return err
	}
	r.FitTime = time.Since(start)
	return nil
}

// checkTargets refuses NaN and infinite targets, naming the first.
func checkTargets(y []float64) error {
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("regress: the target of example %d is %v: a regression target must be a finite number", i, v)
		}
	}
	return nil
}

// targetScaling returns the mean and population standard deviation of y
// (0 and 1 with none), refusing a constant target.
func targetScaling(y []float64, none bool) (svm.Target, error) {
	mean, std := classify.MeanStd(y)
	if !(std > 1e-12*math.Abs(mean)) || std < 1e-300 {
		return svm.Target{}, fmt.Errorf("regress: the target is constant (%g on all %d examples): nothing to regress", y[0], len(y))
	}
	if math.IsInf(std, 0) {
		return svm.Target{}, fmt.Errorf("regress: the targets' standard deviation overflows: rescale them")
	}
	if none {
		return svm.Target{Mean: 0, Scale: 1}, nil
	}
	return svm.Target{Mean: mean, Scale: std}, nil
}

// standardize sets r's scaler from x (none with NoStandardize and no
// UnitNorm) and returns x standardised and normalised as the options say.
func (r *Regressor) standardize(x linalg.Matrix[float64]) (linalg.Matrix[float64], error) {
	r.scaler = nil
	if r.opts.NoStandardize && !r.opts.UnitNorm {
		return x, nil
	}
	r.scaler = &dataset.Scaler{}
	if !r.opts.NoStandardize {
		r.scaler = dataset.FitScaler(x)
	}
	r.scaler.UnitNorm = r.opts.UnitNorm
	return r.scaler.Apply(x)
}

// fitPoint fits the machine of one grid point on the standardised inputs
// xs and scaled targets z, keeping the support vectors.
func (r *Regressor) fitPoint(ctx context.Context, p Point, xs linalg.Matrix[float64], z []float64) error {
	o := &r.opts
	r.Kernel, r.C, r.Epsilon = p.Spec(o.weightStd()), p.C, p.Epsilon
	k, err := gram(ctx, r.Kernel, xs, o)
	if err != nil {
		return err
	}
	f, err := fitMachine(ctx, svm.NewDense(k), z, o.Machine, p.C, p.Epsilon, o.tol(), nil)
	if err != nil {
		return err
	}
	var keep []int
	for i, a := range f.alpha {
		if a != 0 {
			keep = append(keep, i)
		}
	}
	r.sv = linalg.New[float64](len(keep), xs.Cols)
	r.alpha = make([]float64, len(keep))
	for t, i := range keep {
		copy(r.sv.Row(t), xs.Row(i))
		r.alpha[t] = f.alpha[i]
	}
	r.bias, r.model = f.bias, nil
	return nil
}

// SupportVectors returns the number of training examples the model keeps.
func (r *Regressor) SupportVectors() int { return r.sv.Rows }

// Decision returns the machine's output g(x) = Σ αᵢK(x, xᵢ) + b for every
// row of x, in the units the machine was fitted in (the scaled targets).
func (r *Regressor) Decision(ctx context.Context, x linalg.Matrix[float64]) ([]float64, error) {
	if r.model == nil && r.alpha == nil {
		return nil, fmt.Errorf("regress: the regressor is not fitted")
	}
	if x.Cols != r.sv.Cols {
		return nil, fmt.Errorf("regress: %d features, the model was trained on %d", x.Cols, r.sv.Cols)
	}
	xs := x
	if r.scaler != nil {
		var err error
		if xs, err = r.scaler.Apply(x); err != nil {
			return nil, err
		}
	}
	for i := range xs.Rows {
		for j, v := range xs.Row(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("regress: example %d, feature %d is %v", i, j, x.At(i, j))
			}
		}
	}
	out := make([]float64, x.Rows)
	if r.sv.Rows == 0 {
		for i := range out {
			out[i] = r.bias
		}
		return out, ctx.Err()
	}
	// The kernel against the support vectors, 1024 rows at a time.
	memCap := int64(1024) * int64(r.sv.Rows) * 8
	err := ntk.Blocks(ctx, r.Kernel, &xs, r.sv, ntk.Options{Threads: r.opts.Threads}, memCap, func(r0 int, kz linalg.Matrix[float64]) error {
		for i := range kz.Rows {
			out[r0+i] = dot(r.alpha, kz.Row(i), r.bias)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, ctx.Err()
}

// dot returns b + Σ a[k]·v[k], each product rounded before it is added.
func dot(a, v []float64, b float64) float64 {
	s := b
	for k, w := range a {
		s += float64(w * v[k])
	}
	return s
}

// Predict returns the predicted target of every row of x:
// Target.Mean + Target.Scale·g(x).
func (r *Regressor) Predict(ctx context.Context, x linalg.Matrix[float64]) ([]float64, error) {
	g, err := r.Decision(ctx, x)
	if err != nil {
		return nil, err
	}
	for i, v := range g {
		g[i] = r.Target.Mean + r.Target.Scale*v
	}
	return g, nil
}

// Score returns the metrics of r's predictions on the rows of x against
// the targets y.
func (r *Regressor) Score(ctx context.Context, x linalg.Matrix[float64], y []float64) (Metrics, error) {
	if len(y) != x.Rows {
		return Metrics{}, fmt.Errorf("regress: %d targets for %d examples", len(y), x.Rows)
	}
	if err := checkTargets(y); err != nil {
		return Metrics{}, err
	}
	pred, err := r.Predict(ctx, x)
	if err != nil {
		return Metrics{}, err
	}
	return Evaluate(pred, y), nil
}

// Save writes r in svm's model format.
func (r *Regressor) Save(w io.Writer) error {
	m, err := r.Model()
	if err != nil {
		return err
	}
	return svm.WriteModel(w, m)
}

// Model returns r as an svm.Model (version 4, Task "regression"). Lambda
// is in the units of svm's sum objective (paper eq. 7): 2/C for KRR (its
// ridge λ/2 is 1/C, Fit.RidgeShift), 1/C for SVR.
func (r *Regressor) Model() (*svm.Model, error) {
	if r.alpha == nil && r.model == nil {
		return nil, fmt.Errorf("regress: the regressor is not fitted")
	}
	if r.model != nil {
		return r.model, nil
	}
	t := r.Target
	m := &svm.Model{Machine: r.Machine.String(), Objective: "sum", Kernel: r.Kernel, Task: svm.TaskRegression, Target: &t,
		Train: svm.TrainRef{Source: "regress", N: r.sv.Rows, D: r.sv.Cols, SHA256: svm.InputsSHA256(r.sv), Embedded: true},
		Alpha: r.alpha, X: r.sv, Bias: r.bias}
	switch r.Machine {
	case KRR:
		m.Loss, m.Lambda, m.Solver = svm.Squared.Name(), 2/r.C, "exact"
		m.Fit = svm.FitInfo{RidgeShift: 1 / r.C, C: r.C}
	default:
		m.Loss, m.Epsilon, m.Lambda, m.Solver, m.HasBias = svm.EpsInsensitive.Name(), r.Epsilon, 1/r.C, "smo", true
		m.Fit = svm.FitInfo{C: r.C, SupportVectors: r.sv.Rows}
	}
	if r.scaler != nil {
		m.Scaling = &svm.Scaling{Mean: r.scaler.Mean, Scale: r.scaler.Scale, UnitNorm: r.scaler.UnitNorm}
	}
	r.model = m
	return m, nil
}

// Load reads a Regressor saved by Save.
func Load(rd io.Reader) (*Regressor, error) {
	m, err := svm.ReadModel(rd)
	if err != nil {
		return nil, err
	}
	return FromModel(m)
}

// FromModel returns the Regressor of a regression model (Task
// "regression"); any other model is an error wrapping svm.ErrModel.
func FromModel(m *svm.Model) (*Regressor, error) {
	if m.Task != svm.TaskRegression || m.Target == nil {
		return nil, fmt.Errorf("%w: not a regression model", svm.ErrModel)
	}
	mach, err := ParseMachine(m.Machine)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", svm.ErrModel, err)
	}
	if err := m.Kernel.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", svm.ErrModel, err)
	}
	r := &Regressor{opts: Options{Machine: mach}, Machine: mach, Kernel: m.Kernel, C: m.Fit.C, Epsilon: m.Epsilon,
		Target: *m.Target, sv: m.X, alpha: m.Alpha, bias: m.Bias, model: m}
	if r.alpha == nil {
		r.alpha = []float64{}
	}
	if s := m.Scaling; s != nil {
		r.scaler = &dataset.Scaler{Mean: s.Mean, Scale: s.Scale, UnitNorm: s.UnitNorm}
		if len(s.Mean) == 0 {
			r.scaler.Mean, r.scaler.Scale = nil, nil
		}
	}
	return r, nil
}
