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
	folds, err := StratifiedFolds(y, len(classes), k, o.Seed, classes)
	if err != nil {
		return nil, err
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
	sub.NoStandardize, sub.Holdout = true, 0
	if o.MaxBytes > 0 {
		// Held besides the sub-fit's own inputs: the inputs as given, their
		// standardised copy and the validation rows.
		held := int64(xs.Rows) * int64(xs.Cols) * 8 * 2
		sub.MaxBytes = max(o.MaxBytes-held-int64(len(va))*int64(xs.Cols)*8, 1)
	}
	g := o.grid()
	res := &CVResult{Rule: "validation split, " + o.Select.String(), Folds: 1}
	i := 0
	for _, bs := range g.BiasStds {
		for _, kind := range g.Kinds {
			for _, d := range g.Depths {
				for _, cv := range g.Cs {
					p := Point{Kind: kind, Depth: d, BiasStd: bs, C: cv}
					o.report(ScaleProgress{Stage: "validation", Done: i, Total: g.Size(),
						Detail: fmt.Sprintf("%v depth %d σ_b %g C %g, %d training and %d validation examples", kind, d, bs, cv, len(tr), len(va))})
					sub.Grid = Grid{Kinds: []ntk.Kind{kind}, Depths: []int{d}, BiasStds: []float64{bs}, Cs: []float64{cv}}
					acc, err := holdoutScore(ctx, &sub, xt, yt, xv, yv, classes)
					if err != nil {
						return nil, err
					}
					res.Scores = append(res.Scores, Score{Point: p, KindName: kind.String(), Mean: acc, Folds: []float64{acc}})
					i++
				}
			}
		}
	}
	res.Chosen = choose(res.Scores, o.Select, 1)
	return res, nil
}

// holdoutScore fits one grid point (o) on xt and returns its accuracy on
// xv.
func holdoutScore(ctx context.Context, o *Options, xt linalg.Matrix[float64], yt []int, xv linalg.Matrix[float64], yv []int, classes []string) (float64, error) {
	sc := New(*o)
	if err := sc.fit(ctx, xt, yt, classes); err != nil {
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
