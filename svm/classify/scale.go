package classify

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/ntksvm/ntksvm/internal/membudget"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/svm/eigenpro"
	"github.com/ntksvm/ntksvm/svm/falkon"
	"github.com/ntksvm/ntksvm/svm/ondemand"
)

// DefaultMaxCentres caps the Nyström centres chosen from the memory budget
// when Options.Centres is 0: past about ten thousand, Falkon's M×M
// factorisation (M³/3 multiply-adds) and its M² memory cost more than the
// accuracy they buy on data sets of up to some 10⁵ points.
const DefaultMaxCentres = 10_000

// ErrGridTooLarge is wrapped by the error of a fit whose cross-validation
// needs a dense Gram that does not fit Options.MemBudget: at that scale
// only one grid point (one kind, depth, σ_b and C) is fitted.
var ErrGridTooLarge = errors.New("classify: cross-validation needs the dense Gram, which does not fit the memory budget")

// Route is how Fit solves the refit: on the dense Gram, or at scale.
type Route uint8

const (
	// RouteDense holds the n×n Gram (the package's default way).
	RouteDense Route = iota
	// RouteOnDemand runs the SVMs' SMO on one on-demand Gram
	// (svm/ondemand) whose row cache all binary sub-problems share.
	RouteOnDemand
	// RouteFalkon fits KRR by Falkon (svm/falkon): M Nyström centres, one
	// multi-output solve for all classes.
	RouteFalkon
	// RouteEigenPro fits KRR on all the training points by EigenPro
	// (svm/eigenpro): preconditioned SGD over blocks of kernel rows, one
	// multi-output solve for all classes.
	RouteEigenPro
)

// String returns "dense", "on-demand", "falkon" or "eigenpro".
func (r Route) String() string {
	return [...]string{"dense", "on-demand", "falkon", "eigenpro"}[r]
}

// Solver is the solver of KRR at scale.
type Solver uint8

const (
	// SolverFalkon is Falkon on Nyström centres (svm/falkon).
	SolverFalkon Solver = iota
	// SolverEigenPro is EigenPro on all the points (svm/eigenpro).
	SolverEigenPro
)

// ParseSolver parses "falkon" or "eigenpro".
func ParseSolver(s string) (Solver, error) {
	switch s {
	case "falkon":
		return SolverFalkon, nil
	case "eigenpro":
		return SolverEigenPro, nil
	}
	return 0, fmt.Errorf("classify: solver %q: want falkon or eigenpro", s)
}

// DefaultEpochs is EigenPro's number of epochs when Options.Epochs is 0.
const DefaultEpochs = 10

// Plan is the way a fit runs within the memory budget.
type Plan struct {
	Route Route
	// Need is the memory the plan takes, by the estimates of the solvers
	// (inputs, Gram or cache, workspace).
	Need int64
	// Cache configures the on-demand Gram (RouteOnDemand).
	Cache ondemand.Config
	// SolverBytes is EigenPro's budget (RouteEigenPro): the budget less
	// the inputs', from which it chooses its batch.
	SolverBytes int64
	// Centres is Falkon's M and StoreBytes the memory it keeps blocks of
	// K_nM in (RouteFalkon).
	Centres    int
	StoreBytes int64
	// PairBytes is the memory the one-vs-one sub-problems may take on
	// dense Grams of their own points (RouteOnDemand): a sub-problem whose
	// Gram fits is solved on it, the others on the shared on-demand Gram.
	// 0: every sub-problem reads the on-demand Gram.
	PairBytes int64
}

// inputBytes is the memory of the training inputs and of the copies the
// fit makes of them: the inputs as given (float64), the standardised or
// normalised copy, the copy in the Gram's element type (float32 only) and
// the matrix product's packed copy, plus the per-point vectors of the
// kernel (norms, diagonal).
func (o *Options) inputBytes(n, d int) int64 {
	nd := int64(n) * int64(d)
	b := nd*8 + int64(n)*64
	if !o.NoStandardize || o.UnitNorm {
		b += nd * 8
	}
	elem := int64(8)
	if o.Float32 {
		elem = 4
		b += nd * elem
	}
	return b + nd*elem
}

// reserve is memory the budget keeps for the Go runtime, the program and
// the allocator's rounding: 3 % of the budget and 64 MiB (a quarter of
// the budget when that is less).
func reserve(budget int64) int64 { return min(64<<20, budget/4) + budget/33 }

// budgetFor returns the smallest budget that leaves need bytes after the
// reserve.
func budgetFor(need int64) int64 {
	b := int64(float64(need) / (1 - 0.25 - 1.0/33))
	if b/4 > 64<<20 {
		b = int64(float64(need+64<<20) / (1 - 1.0/33))
	}
	for b-reserve(b) < need {
		b++
	}
	return b
}

// PlanFit returns how a fit on n points of d features in nclass classes
// runs within Options.MemBudget, before anything is allocated: the dense
// Gram when it fits (or when MemBudget is 0), else an on-demand Gram for
// the SVMs or Falkon for KRR, the latter two for a grid of one point only
// (an error wrapping ErrGridTooLarge otherwise). A fit that cannot run in
// the budget at all gets a *membudget.NeedError saying what it needs.
func (o *Options) PlanFit(n, d, nclass int) (Plan, error) {
	if o.Float32 {
		return planFit[float32](o, n, d, nclass)
	}
	return planFit[float64](o, n, d, nclass)
}

func planFit[T linalg.Float](o *Options, n, d, nclass int) (Plan, error) {
	if !(o.Holdout >= 0 && o.Holdout < 1) {
		return Plan{}, fmt.Errorf("classify: validation share %v: want 0 < share < 1 (0: none)", o.Holdout)
	}
	var z T
	elem := int64(unsafe.Sizeof(z))
	gram := int64(n) * int64(n) * elem
	fixed := o.inputBytes(n, d)
	dense := gram + fixed + ondemand.SolverBytes(n)
	if o.Machine == KRR {
		dense += int64(n) * int64(n) * 8 // fitKRR's float64 system
	} else {
		dense += int64(o.threads()) * cacheBytes // the views' row caches
	}
	budget := o.MemBudget
	if budget <= 0 && (o.AtScale || o.Machine == KRR && o.Solver == SolverEigenPro) {
		budget = math.MaxInt64 / 2
	}
	if budget <= 0 {
		return Plan{Route: RouteDense, Need: dense}, nil
	}
	avail := budget - reserve(budget)
	eigen := o.Machine == KRR && o.Solver == SolverEigenPro
	if dense <= avail && !o.AtScale && !eigen {
		return Plan{Route: RouteDense, Need: dense}, nil
	}
	if g := o.grid(); g.Size() > 1 && o.Holdout == 0 {
		return Plan{}, fmt.Errorf("%w: the %d×%d Gram (%s) and its solver need %s, the budget is %s; fit one grid point (one kind, depth, σ_b and C) without cross-validation, which runs at scale, choose the point on a validation split, or raise the budget",
			ErrGridTooLarge, n, n, typeName[T](), membudget.Format(budgetFor(dense)), membudget.Format(budget))
	}
	if eigen {
		return planEigenPro(o, n, d, nclass, avail, budget)
	}
	if o.Machine == KRR {
		return planFalkon[T](o, n, d, nclass, fixed, avail, budget)
	}
	p, err := ondemand.Choose[T](n, avail, fixed)
	if err != nil {
		return Plan{}, budgetErr(err, budget)
	}
	if p.Dense {
		// The Gram alone fits but not beside the views' caches: cache
		// what the budget holds of it on demand.
		rb := ondemand.RowBytes[T](n)
		blk := min(ondemand.DefaultBlockRows, n)
		base := fixed + ondemand.SolverBytes(n) + int64(blk)*rb + int64(n)*12
		rows := min((avail-base)/(rb+12), int64(n))
		p.Config = ondemand.Config{CacheBytes: rows * rb, BlockRows: blk}
		p.Need = base + rows*(rb+12)
	}
	return Plan{Route: RouteOnDemand, Need: p.Need, Cache: p.Config, PairBytes: o.pairRoom(n, nclass, avail, fixed)}, nil
}

// planFalkon sizes Falkon: Options.Centres (checked against the budget),
// or the most centres that fit, at most DefaultMaxCentres; the budget
// left keeps blocks of K_nM between iterations.
func planFalkon[T linalg.Float](o *Options, n, d, nclass int, fixed, avail, budget int64) (Plan, error) {
	var z T
	elem := int64(unsafe.Sizeof(z))
	// The centres' inputs and their packed copy, and the leverage sample's
	// factor (the size of M) when the centres are drawn by leverage.
	perCentre := 2 * int64(d) * elem
	m := o.Centres
	extra := func(m int) int64 {
		e := int64(m) * perCentre
		if o.Leverage {
			e += int64(m) * int64(m) * 8
		}
		return e
	}
	if m > n {
		return Plan{}, fmt.Errorf("classify: %d centres for %d training points", m, n)
	}
	if m == 0 {
		mm, err := falkon.MaxCentres(n, nclass, avail, fixed+extra(1))
		if err != nil {
			return Plan{}, budgetErr(err, budget)
		}
		m = min(mm, DefaultMaxCentres, n)
		for m > 1 && falkon.Bytes(n, m, nclass, 0)+fixed+extra(m) > avail {
			m-- // the leverage sample's factor grows with M too
		}
	}
	need := falkon.Bytes(n, m, nclass, 0) + fixed + extra(m)
	if err := falkon.CheckBudget(n, m, nclass, avail, fixed+extra(m)); err != nil {
		return Plan{}, budgetErr(err, budget)
	}
	store := avail - need
	if o.MemBudget <= 0 {
		store = 0
	}
	return Plan{Route: RouteFalkon, Need: need, Centres: m, StoreBytes: store}, nil
}

// budgetErr restates a *membudget.NeedError against the whole budget
// (the solvers were given the budget less the reserve).
func budgetErr(err error, budget int64) error {
	var ne *membudget.NeedError
	if errors.As(err, &ne) {
		ne.Need = budgetFor(ne.Need - ne.Budget + budget - reserve(budget))
		ne.Budget = budget
		if ne.Hint == "" {
			ne.Hint = "train on fewer points or raise the budget"
		}
	}
	return err
}

func typeName[T linalg.Float]() string {
	var z T
	if unsafe.Sizeof(z) == 4 {
		return "float32"
	}
	return "float64"
}

// planEigenPro checks that EigenPro's smallest block fits the budget
// besides its float32 inputs and gives it the rest (it sizes its batch
// from it).
func planEigenPro(o *Options, n, d, nclass int, avail, budget int64) (Plan, error) {
	// The inputs as given and standardised (float64), their float32 copy
	// and the kernel's per-point vectors.
	fixed := o.inputBytes(n, d) - int64(n)*int64(d)*8
	if !o.Float32 {
		fixed += int64(n) * int64(d) * 4
	}
	s := min(n, eigenpro.DefaultSubsample)
	need := eigenpro.Bytes(n, d, nclass, s, 1) + fixed
	if need > avail {
		return Plan{}, budgetErr(&membudget.NeedError{What: fmt.Sprintf("EigenPro on %d points of %d features (a block of one kernel row)", n, d), Need: need, Budget: avail}, budget)
	}
	room := avail - fixed
	if o.MemBudget <= 0 {
		room = 0 // no bound: EigenPro's critical batch
	}
	return Plan{Route: RouteEigenPro, Need: need, SolverBytes: room}, nil
}
