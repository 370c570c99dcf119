package main

import (
	"errors"
	"flag"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/ntksvm/ntksvm/cmd/internal/present/progress"
	"github.com/ntksvm/ntksvm/internal/membudget"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/svm/classify"
	data "github.com/ntksvm/ntksvm/svm/dataset"
)

// scaleFlags are the flags of "ntksvm cv" that bound its memory and size
// the fits past one dense Gram.
type scaleFlags struct {
	mem       string
	centres   int
	leverage  bool
	solver    string
	epochs    int
	holdout   float64
	testBytes int64 // the test data's, taken from --mem
	// resumeBudget is the budget of the fit --resume continues, used
	// when --mem is not given.
	resumeBudget int64
	route        classify.Route
	bar          *progress.Bar
	stage        string
	last         classify.ScaleProgress
}

func (s *scaleFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&s.mem, "mem", "", "memory budget (e.g. 4G, 3.5GiB; default: 80% of the memory available): past it, "+
		"one grid point is fitted at scale (svm, svm2: SMO on kernel rows computed on demand; krr: Falkon)")
	fs.IntVar(&s.centres, "centres", 0, "Falkon's Nyström centres for krr at scale (0: the most that fit --mem, at most 10000)")
	fs.Float64Var(&s.holdout, "holdout", 0, "past --mem, choose among several grid points on a validation split of this share "+
		"of the training data (e.g. 0.2) instead of refusing the grid")
	fs.BoolVar(&s.leverage, "leverage", false, "draw Falkon's centres by approximate leverage scores (default: uniformly)")
	fs.StringVar(&s.solver, "solver", "falkon", "krr at scale: falkon (Nyström centres) or eigenpro (all the training points, "+
		"preconditioned SGD over blocks of kernel rows; runs at scale even when the dense Gram fits)")
	fs.IntVar(&s.epochs, "epochs", classify.DefaultEpochs, "eigenpro: passes over the training points")
}

// apply sets the budget of o (--mem less the test data, which stays in
// memory through the fit), plans the fit and says how it will run, or
// refuses it before anything large is allocated.
func (s *scaleFlags) apply(e *env, o *classify.Options, train, test *data.Dataset) error {
	if s.centres < 0 {
		return usageError("--centres %d: want ≥ 0", s.centres)
	}
	solver, err := classify.ParseSolver(s.solver)
	if err != nil {
		return usageError("--solver %q: want falkon or eigenpro", s.solver)
	}
	if solver == classify.SolverEigenPro && o.Machine != classify.KRR {
		return usageError("--solver eigenpro solves kernel ridge regression: use it with --machine krr")
	}
	if s.epochs < 1 || s.epochs != classify.DefaultEpochs && solver != classify.SolverEigenPro {
		return usageError("--epochs %d: want at least 1 pass, with --solver eigenpro", s.epochs)
	}
	o.Solver, o.Epochs = solver, s.epochs
	budget, err := s.budget(test)
	if err != nil {
		return err
	}
	if !(s.holdout >= 0 && s.holdout < 1) {
		return usageError("--holdout %v: want a share 0 < f < 1 (0: none)", s.holdout)
	}
	o.MemBudget, o.Centres, o.Leverage, o.Holdout = budget, s.centres, s.leverage, s.holdout
	if budget > 0 && (o.MaxBytes <= 0 || o.MaxBytes > budget) {
		o.MaxBytes = budget // the cross-validation's Grams, too
	}
	o.Progress = func(p classify.ScaleProgress) { s.progress(e, p) }
	plan, err := o.PlanFit(train.N(), train.D(), len(train.Classes))
	if err != nil {
		return s.explain(err)
	}
	s.route = plan.Route
	switch plan.Route {
	case classify.RouteOnDemand:
		pairs := ""
		if plan.PairBytes > 0 {
			pairs = fmt.Sprintf("each pair of classes on a dense Gram of its own points where it fits (%s), the others ", membudget.Format(plan.PairBytes))
		}
		fmt.Fprintf(e.stderr, "the dense Gram does not fit %s: SMO %son kernel rows computed on demand, a cache of %s\n",
			membudget.Format(o.MemBudget), pairs, membudget.Format(plan.Cache.CacheBytes))
	case classify.RouteEigenPro:
		fmt.Fprintf(e.stderr, "KRR by EigenPro on all %d training points (--solver eigenpro): blocks of kernel rows within %s\n",
			train.N(), membudget.Format(o.MemBudget))
	case classify.RouteFalkon:
		fmt.Fprintf(e.stderr, "the dense Gram does not fit %s: Falkon with %d centres (%s), %s for kernel blocks kept between iterations\n",
			membudget.Format(o.MemBudget), plan.Centres, map[bool]string{false: "uniform", true: "leverage scores"}[s.leverage], membudget.Format(plan.StoreBytes))
	}
	if plan.Route != classify.RouteDense {
		debug.SetMemoryLimit(o.MemBudget) // the collector keeps the garbage of kernel blocks within the budget
		linalg.SetThreads(o.Threads)      // the kernel rows' and blocks' products (0: all cores)
	}
	return nil
}

// budget returns the fit's memory budget: --mem, or the resumed fit's
// (resumeBudget), or a share of the memory available, or 0 (none) when
// the system does not say, less the test data's.
func (s *scaleFlags) budget(test *data.Dataset) (int64, error) {
	var budget, tb int64
	if test != nil {
		tb = int64(test.N()) * int64(test.D()) * 8
	}
	switch avail, ok := availableMemory(); {
	case s.mem != "":
		b, err := membudget.ParseSize(s.mem)
		if err != nil || b <= 0 {
			return 0, usageError("--mem %q: want a size such as 4G or 512MiB", s.mem)
		}
		budget = b
	case s.resumeBudget > 0:
		return s.resumeBudget, nil // the test data's share was taken from it
	case ok:
		budget = int64(float64(min(avail, 1<<62)) * membudget.DefaultShare)
	}
	if tb > 0 && budget > 0 {
		if tb >= budget {
			return 0, fmt.Errorf("the test data need %s, the memory budget is %s (--mem)", membudget.Format(tb), membudget.Format(budget))
		}
		budget -= tb
		s.testBytes = tb
	}
	return budget, nil
}

// intro says what the fit does: cross-validation over the grid on the
// dense Gram; at scale, one grid point, or a choice among several on a
// validation split.
func (s *scaleFlags) intro(o classify.Options, d *data.Dataset) string {
	what := fmt.Sprintf("%d examples, %d features, %d classes", d.N(), d.D(), len(d.Classes))
	switch {
	case s.route == classify.RouteDense:
		return fmt.Sprintf("cross-validating %d grid points × %d folds on %s", o.Grid.Size(), o.Folds, what)
	case o.Grid.Size() == 1:
		return "fitting 1 grid point (no cross-validation at scale) on " + what
	}
	return fmt.Sprintf("choosing among %d grid points on a validation split of %g of %s", o.Grid.Size(), o.Holdout, what)
}

// explain adds the flags to use to a refusal of the budget.
func (s *scaleFlags) explain(err error) error {
	var ne *membudget.NeedError
	if s.testBytes > 0 {
		err = fmt.Errorf("%w (the test data take %s of --mem)", err, membudget.Format(s.testBytes))
	}
	switch {
	case errors.Is(err, classify.ErrGridTooLarge):
		return fmt.Errorf("%w (e.g. --kernel ntk --depth 2 --sigma-b 0 --C 10, or --holdout 0.2), or raise --mem", err)
	case errors.As(err, &ne):
		return fmt.Errorf("%w (--mem, --first, --centres)", err)
	}
	return err
}

// progress shows a fit at scale on a progress line with its rate.
func (s *scaleFlags) progress(e *env, p classify.ScaleProgress) {
	if p.Stage == "validation" {
		s.done()
		fmt.Fprint(e.stderr, s.summary()) // the previous grid point's fit
		s.last = classify.ScaleProgress{}
		fmt.Fprintf(e.stderr, "validation split: grid point %d/%d, %s\n", p.Done+1, p.Total, p.Detail)
		s.stage = p.Stage
		return
	}
	if s.bar == nil || p.Stage != s.stage {
		s.done()
		switch s.stage = p.Stage; p.Stage {
		case "preconditioner": // no count: the timed lines say it is alive
			s.bar = progress.New(e.stderr, e.isTerminal, "Falkon: the centres' factors and the first pass over K_nM", 0)
		case "epochs":
			s.bar = progress.New(e.stderr, e.isTerminal, "EigenPro", int64(p.Total)).Unit(p.Stage).From(int64(p.Done))
		case "sub-problems": // From: the rate of this run's (a resumed fit starts past 0)
			s.bar = progress.New(e.stderr, e.isTerminal, "SMO on demand", int64(p.Total)).Unit(p.Stage).From(int64(p.Done))
		default:
			s.bar = progress.New(e.stderr, e.isTerminal, "Falkon", int64(p.Total)).Unit(p.Stage).From(int64(p.Done))
		}
	}
	s.last = p
	s.bar.Set(int64(p.Done))
}

// done ends the progress line and sums the fit up.
func (s *scaleFlags) done() {
	if s.bar == nil {
		return
	}
	s.bar.Done()
	s.bar = nil
}

// summary describes the fit at scale, if there was one.
func (s *scaleFlags) summary() string {
	p := s.last
	switch {
	case p.Stage == "sub-problems" && p.Rows == 0:
		return fmt.Sprintf("%d sub-problems, each on the dense Gram of its points, %v\n", p.Total, p.Elapsed.Round(time.Millisecond))
	case p.Stage == "sub-problems":
		rate := float64(p.Rows) / max(p.Elapsed.Seconds(), 1e-9)
		return fmt.Sprintf("on demand: %d sub-problems, %d kernel rows computed (%.0f rows/s, a cache of %d rows), %v\n",
			p.Total, p.Rows, rate, p.CacheRows, p.Elapsed.Round(time.Millisecond))
	case p.Stage == "epochs":
		return fmt.Sprintf("EigenPro: %d epochs, mean squared training residual %.3g, %v\n", p.Done, p.Residual, p.Elapsed.Round(time.Millisecond))
	case p.Stage == "CG iterations":
		return fmt.Sprintf("Falkon: %d CG iterations, largest relative residual %.2g, %v\n", p.Done, p.Residual, p.Elapsed.Round(time.Millisecond))
	}
	return ""
}
