package classify

import (
	"context"
	"fmt"
	"math"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// holdoutSearch chooses the grid point by one validation split when the
// grid needs more memory than cross-validation's dense Gram allows
// (Options.Holdout): a stratified share of about Holdout of the examples
// (one fold of round(1/Holdout), drawn with Seed) is held out, every grid
// point is fitted on the rest, at scale or dense as the budget allows,
// and scored on it; the rule picks among the scores as among CV means
// (with one score per point, 1se picks the simplest of the best). The
// inputs were standardised with all the training data's statistics.
func (c *Classifier) holdoutSearch(ctx context.Context, xs linalg.Matrix[float64], y []int, classes []string) (*CVResult, error) {
	o := &c.opts
	k := max(2, int(math.Round(1/o.Holdout)))
	folds, err := StratifiedFolds(y, len(classes), k, o.Seed)
	if err != nil {
		return nil, err
	}
	// Every class keeps an example in the training part: a class dealt to
	// the validation fold alone (fewer examples than k) is moved to the
	// next fold, so the fits on the rest know every class.
	inTrain := make([]bool, len(classes))
	for i, f := range folds {
		if f != 0 {
			inTrain[y[i]] = true
		}
	}
	for i, f := range folds {
		if f == 0 && !inTrain[y[i]] {
			folds[i] = 1
		}
	}
	var tr, va []int
	for i, f := range folds {
		if f == 0 {
			va = append(va, i)
		} else {
			tr = append(tr, i)
		}
	}
	xt, yt := gatherRows(xs, tr, y)
	xv, yv := gatherRows(xs, va, y)
	sub := *o
	// One point (its kernel and C are fitPoint's): PlanFit plans a fit.
	sub.NoStandardize, sub.UnitNorm, sub.Holdout, sub.Probability = true, false, 0, false
	sub.Checkpoint, sub.Resume = nil, nil // the refit is checkpointed, not these
	sub.Grid = Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{1}, BiasStds: []float64{0}, Cs: []float64{1}}
	if o.MemBudget > 0 {
		// Held besides the sub-fit's own inputs: the inputs as given, their
		// standardised copy and the validation rows.
		held := int64(xs.Rows) * int64(xs.Cols) * 8 * 2
		sub.MemBudget = max(o.MemBudget-held-int64(len(va))*int64(xs.Cols)*8, 1)
	}
	g := o.grid()
	res := &CVResult{Rule: "validation split, " + o.Select.String(), Folds: 1}
	i := 0
	for _, bs := range g.BiasStds {
		for _, k := range g.Kernels() {
			for _, w := range g.classWeights() {
				for _, cv := range g.Cs {
					p := Point{Spec: o.spec(k, bs), C: cv, ClassWeight: w}
					o.report(ScaleProgress{Stage: "validation", Done: i, Total: g.Size(),
						Detail: fmt.Sprintf("%v, C %g, class weight %s, %d training and %d validation examples", p.Spec, cv, w, len(tr), len(va))})
					acc, err := holdoutScore(ctx, &sub, p, xt, yt, xv, yv, classes)
					if err != nil {
						return nil, err
					}
					res.Scores = append(res.Scores, Score{Point: p, KindName: k.Kind.String(), Mean: acc, Folds: []float64{acc}})
					i++
				}
			}
		}
	}
	res.Chosen = choose(res.Scores, o.Select, 1)
	return res, nil
}

// holdoutScore fits grid point p with the options o (of one point) on xt
// and returns its accuracy on xv.
func holdoutScore(ctx context.Context, o *Options, p Point, xt linalg.Matrix[float64], yt []int, xv linalg.Matrix[float64], yv []int, classes []string) (float64, error) {
	plan, err := o.PlanFit(xt.Rows, xt.Cols, len(classes))
	if err != nil {
		return 0, err
	}
	sc := New(*o)
	sc.Plan = plan
	if err := sc.fitPoint(ctx, plan, p, xt, yt, classes, nil); err != nil {
		return 0, err
	}
	pred, err := sc.PredictIndex(ctx, xv)
	if err != nil {
		return 0, err
	}
	right := 0
	for i, p := range pred {
		if p == yv[i] {
			right++
		}
	}
	return float64(right) / float64(len(yv)), nil
}

// gatherRows returns the rows idx of x and their labels.
func gatherRows(x linalg.Matrix[float64], idx, y []int) (linalg.Matrix[float64], []int) {
	out := linalg.New[float64](len(idx), x.Cols)
	ys := make([]int, len(idx))
	for r, i := range idx {
		copy(out.Row(r), x.Row(i))
		ys[r] = y[i]
	}
	return out, ys
}
