package classify

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm/eigenpro"
	"github.com/ntksvm/ntksvm/svm/falkon"
	"github.com/ntksvm/ntksvm/svm/ondemand"
)

// ScaleProgress reports how a fit at scale advances (Options.Progress).
type ScaleProgress struct {
	// Stage is "validation" (a grid point's fit on a validation split
	// starts: Detail names it, Done counts the points before it),
	// "sub-problems" (the SVMs on the on-demand Gram), or
	// "preconditioner" (Falkon's centres, their M×M factors and the first
	// pass over the kernel blocks, reported once at its start, Total 0)
	// and then "CG iterations".
	Stage       string
	Done, Total int
	// Rows is the number of kernel rows computed so far (on demand) and
	// CacheRows the rows the cache holds at most.
	Rows      int64
	CacheRows int
	// Residual is Falkon's largest relative residual after Done
	// iterations.
	Residual float64
	Elapsed  time.Duration
	Detail   string
}

func (o *Options) report(p ScaleProgress) {
	if o.Progress != nil {
		o.Progress(p)
	}
}

// fitScale fits the one grid point's machine by plan's route,
// checkpointed by ck when not nil.
func fitScale(ctx context.Context, plan Plan, spec ntk.Spec, xs linalg.Matrix[float64], y []int, nclass int, c float64, o *Options, ck *scaleCk) (*multi, error) {
	switch {
	case plan.Route == RouteEigenPro:
		return fitEigenPro(ctx, plan, spec, xs, y, nclass, c, o, ck)
	case plan.Route == RouteFalkon && spec.Float32:
		return fitFalkon[float32](ctx, plan, spec, xs, y, nclass, c, o, ck)
	case plan.Route == RouteFalkon:
		return fitFalkon[float64](ctx, plan, spec, xs, y, nclass, c, o, ck)
	case spec.Float32:
		return fitOnDemand[float32](ctx, plan, spec, xs, y, nclass, c, o, ck)
	}
	return fitOnDemand[float64](ctx, plan, spec, xs, y, nclass, c, o, ck)
}

// fitOnDemand fits the binary SVMs at scale. The one-vs-one sub-problems
// whose own dense Gram fits plan.PairBytes are solved on it (fitPairs);
// the others run one after the other on one on-demand Gram over all the
// training points, with the cache of plan, each on an index view of it
// (odView), in the order of fitMulti (one-vs-one: (0,1), (0,2), …, so that
// consecutive sub-problems share a class and its cached rows), the kernel
// rows computed on all threads. The result does not depend on the thread
// count: neither the pairs' Grams nor the on-demand Gram's rows do, and
// the sub-problems on the shared Gram run in a fixed order. Sub-problems
// finished in the state ck resumes from are taken from it; each one
// finished here is handed to ck.
func fitOnDemand[T linalg.Float](ctx context.Context, plan Plan, spec ntk.Spec, xs linalg.Matrix[float64], y []int, nclass int, c float64, o *Options, ck *scaleCk) (*multi, error) {
	x := linalg.Convert[T](xs)
	byClass := make([][]int, nclass)
	for i, v := range y {
		byClass[v] = append(byClass[v], i)
	}
	units, sch := binaryUnits(byClass, identity(len(y)), o.Scheme)
	pairs, workers := splitPairs[T](units, x.Cols, plan.PairBytes, o.threads())
	done, ndone, err := ck.onDemand(units, pairs, sch)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	// finished reports units[ui] solved (p: how) and checkpoints it.
	finished := func(ui int, p ScaleProgress) error {
		ndone++
		p.Stage, p.Done, p.Total, p.Elapsed = "sub-problems", ndone, len(units), time.Since(start)
		o.report(p)
		return ck.finish(ui, &units[ui], len(units))
	}
	var todo []int
	for _, ui := range pairs {
		if !done[ui] {
			todo = append(todo, ui)
			done[ui] = true // by fitPairs, or not at all
		}
	}
	if len(todo) > 0 {
		o.report(ScaleProgress{Stage: "sub-problems", Done: ndone, Total: len(units), Detail: "pairs"})
		pairDone := func(ui int) error { return finished(ui, ScaleProgress{Detail: "pairs"}) }
		if err := fitPairs(ctx, spec, x, units, todo, workers, y, c, o, pairDone); err != nil {
			return nil, err
		}
	}
	if !slices.Contains(done, false) {
		return &multi{scheme: sch, classes: nclass, units: units}, nil
	}
	runtime.GC() // the pairs' Grams are garbage: let the cache have their memory
	k, err := ondemand.NewNTK[T](ctx, x, spec, plan.Cache)
	if err != nil {
		return nil, err
	}
	for ui := range units {
		if done[ui] {
			continue
		}
		st := k.Stats()
		o.report(ScaleProgress{Stage: "sub-problems", Done: ndone, Total: len(units), Rows: st.RowsComputed, CacheRows: st.CapacityRows, Elapsed: time.Since(start)})
		kv := newODView(k, units[ui].idx)
		if err := fitUnit(ctx, kv, &units[ui], y, o.Machine, c, nil, nil, pointWeights(o.cw, y, units[ui].idx)); err != nil {
			return nil, err
		}
		if err := k.Err(); err != nil {
			return nil, fmt.Errorf("classify: on-demand Gram: %w", err)
		}
		units[ui].kernel, units[ui].points, units[ui].dual, units[ui].ka = nil, nil, nil, nil
		st = k.Stats()
		if err := finished(ui, ScaleProgress{Rows: st.RowsComputed, CacheRows: st.CapacityRows}); err != nil {
			return nil, err
		}
	}
	return &multi{scheme: sch, classes: nclass, units: units}, nil
}

// binaryUnits returns the binary sub-problems of scheme s over the points
// of each class (byClass) and the scheme in effect (one-vs-one for two
// classes).
func binaryUnits(byClass [][]int, all []int, s Scheme) ([]unit, Scheme) {
	nclass := len(byClass)
	var units []unit
	if s == OneVsOne || nclass == 2 {
		for a := range nclass {
			for b := a + 1; b < nclass; b++ {
				units = append(units, unit{pos: a, neg: b, idx: mergeSorted(byClass[a], byClass[b])})
			}
		}
		return units, OneVsOne
	}
	for a := range nclass {
		units = append(units, unit{pos: a, neg: -1, idx: all})
	}
	return units, OneVsRest
}

// fitFalkon fits multi-output KRR on ±1 class indicators by Falkon with
// plan's centres: g_k(x) = Σₘ α_mk K(x, c_m), the shift 1/C as in the
// dense fitKRR, so that with every point a centre it is the dense KRR.
func fitFalkon[T linalg.Float](ctx context.Context, plan Plan, spec ntk.Spec, xs linalg.Matrix[float64], y []int, nclass int, c float64, o *Options, ck *scaleCk) (*multi, error) {
	if ck != nil {
		ck.spec.Scheme, ck.spec.Centres, ck.spec.Seed, ck.spec.Leverage = OneVsRest.String(), plan.Centres, o.Seed, o.Leverage
		if err := ck.check(); err != nil {
			return nil, err
		}
	}
	x := linalg.Convert[T](xs)
	k, err := falkon.NewNTK(x, spec)
	if err != nil {
		return nil, err
	}
	n := len(y)
	targets := linalg.New[float64](n, nclass)
	for i, v := range y {
		row := targets.Row(i)
		for cl := range row {
			row[cl] = -1
		}
		row[v] = 1
	}
	const maxIter = 100
	start := time.Now()
	cfg := falkon.Config{M: plan.Centres, Seed: o.Seed, Leverage: o.Leverage, Shift: 1 / c, MaxIter: maxIter,
		StoreBytes: plan.StoreBytes,
		Progress: func(it int, r float64) {
			o.report(ScaleProgress{Stage: "CG iterations", Done: it, Total: maxIter, Residual: r, Elapsed: time.Since(start)})
		}}
	if err := ck.falkon(&cfg); err != nil {
		return nil, err
	}
	o.report(ScaleProgress{Stage: "preconditioner"})
	res, err := falkon.Fit(ctx, k, targets, cfg)
	if err != nil {
		return nil, resumeErr(fmt.Errorf("classify: Falkon: %w", err))
	}
	units := make([]unit, nclass)
	for cl := range units {
		u := unit{pos: cl, neg: -1, idx: res.Centres, alpha: make([]float64, len(res.Centres))}
		for m := range u.alpha {
			u.alpha[m] = res.Alpha.At(m, cl)
		}
		units[cl] = u
	}
	return &multi{scheme: OneVsRest, classes: nclass, units: units}, nil
}

// fitEigenPro fits multi-output KRR on ±1 class indicators by EigenPro on
// all the training points in float32: g_k(x) = Σᵢ α_ik K(x, xᵢ), the shift
// 1/C as in the dense fitKRR, so that after enough epochs it is the dense
// KRR; the class is the argmax of the outputs (one-vs-rest).
func fitEigenPro(ctx context.Context, plan Plan, spec ntk.Spec, xs linalg.Matrix[float64], y []int, nclass int, c float64, o *Options, ck *scaleCk) (*multi, error) {
	epochs := o.Epochs
	if epochs == 0 {
		epochs = DefaultEpochs
	}
	if ck != nil {
		ck.spec.Scheme, ck.spec.Seed, ck.spec.Epochs = OneVsRest.String(), o.Seed, epochs
		if err := ck.check(); err != nil {
			return nil, err
		}
	}
	x := linalg.Convert[float32](xs)
	n := len(y)
	targets := linalg.New[float64](n, nclass)
	for i, v := range y {
		row := targets.Row(i)
		for cl := range row {
			row[cl] = -1
		}
		row[v] = 1
	}
	start := time.Now()
	cfg := eigenpro.Config{Shift: 1 / c, Epochs: epochs, MemBytes: plan.SolverBytes, Seed: o.Seed,
		Progress: func(p eigenpro.Progress) {
			o.report(ScaleProgress{Stage: "epochs", Done: p.Epoch - 1, Total: p.Epochs, Residual: p.Loss, Elapsed: time.Since(start),
				Detail: fmt.Sprintf("batch %d/%d", p.Batch, p.Batches)})
			if p.EpochDone {
				o.report(ScaleProgress{Stage: "epochs", Done: p.Epoch, Total: p.Epochs, Residual: p.Loss, Elapsed: time.Since(start)})
			}
		}}
	if err := ck.eigenPro(&cfg); err != nil {
		return nil, err
	}
	es := spec
	es.Float32 = true
	m, err := eigenpro.Fit(ctx, x, targets, es, cfg)
	if err != nil {
		return nil, resumeErr(fmt.Errorf("classify: EigenPro: %w", err))
	}
	all := identity(n)
	units := make([]unit, nclass)
	for cl := range units {
		u := unit{pos: cl, neg: -1, idx: all, alpha: make([]float64, n)}
		for i := range u.alpha {
			u.alpha[i] = m.Alpha.At(i, cl)
		}
		units[cl] = u
	}
	return &multi{scheme: OneVsRest, classes: nclass, units: units}, nil
}
