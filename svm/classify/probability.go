package classify

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/calibrate"
)

// ErrNoProbability is wrapped by the error of Probabilities on a model
// fitted without a probability model (Options.Probability).
var ErrNoProbability = errors.New("classify: the model has no probability model")

// probSeed is mixed into Options.Seed for the folds of the probability
// model's cross-validation, so that they are not the grid search's.
const probSeed = 0x70726f62 // "prob"

// fitProbability fits the probability model of the machine the options
// describe, with constant c and class weights cw, on the Gram k of all
// the training examples (classes y): the decision values of every binary
// machine at each example come from a stratified cross-validation (the
// machines fitted on the other folds, with the same c and cw, as libsvm's
// svm_binary_svc_probability does; one split of the examples shared by
// all the machines), and Platt's sigmoid of each machine is fitted to
// them, on the examples of its two classes (one-vs-one) or all of them
// (one-vs-rest).
func fitProbability[T linalg.Float](ctx context.Context, k linalg.Matrix[T], y []int, classes []string, c float64, cw []float64, o *Options) (*svm.Probability, error) {
	nclass := len(classes)
	nf := o.ProbFolds
	if nf == 0 {
		nf = 5
	}
	count := make([]int, nclass)
	for _, v := range y {
		count[v]++
	}
	smallest := slices.Min(count)
	nf = min(nf, smallest)
	if nf < 2 {
		return nil, fmt.Errorf("classify: probabilities need 2 or more examples of every class for their cross-validation; class %q has %d",
			classes[slices.Index(count, smallest)], smallest)
	}
	folds, err := StratifiedFolds(y, nclass, nf, o.Seed^probSeed)
	if err != nil {
		return nil, err
	}
	var dec [][]float64 // dec[unit][example]
	var mm *multi
	for f := range nf {
		var train, val []int
		for i, g := range folds {
			if g == f {
				val = append(val, i)
			} else {
				train = append(train, i)
			}
		}
		if mm, err = fitMulti(ctx, k, train, y, nclass, o.Machine, o.Scheme, c, o.threads(), nil, 0, nil, cw); err != nil {
			return nil, err
		}
		if dec == nil {
			dec = make([][]float64, len(mm.units))
			for ui := range dec {
				dec[ui] = make([]float64, len(y))
			}
		}
		buf := make([]float64, len(val))
		for ui := range mm.units {
			decideAt(&mm.units[ui], buf, k, val)
			for t, i := range val {
				dec[ui][i] = buf[t]
			}
		}
	}
	p := &svm.Probability{Folds: nf, Coupling: "pairwise"}
	if mm.scheme == OneVsRest {
		p.Coupling = "normalize"
	}
	for ui, u := range mm.units {
		var d []float64
		var pos []bool
		for i, v := range y {
			if u.neg < 0 || v == u.pos || v == u.neg {
				d, pos = append(d, dec[ui][i]), append(pos, v == u.pos)
			}
		}
		s, _, err := calibrate.FitSigmoid(d, pos)
		if err != nil {
			return nil, fmt.Errorf("classify: probability model of machine %d: %w", ui, err)
		}
		p.A, p.B = append(p.A, s.A), append(p.B, s.B)
	}
	return p, nil
}

// HasProbability reports whether c has a probability model.
func (c *Classifier) HasProbability() bool { return c.prob != nil }

// Probabilities returns the probability of every class (columns, in the
// order of Classes) for every row of x, as libsvm's
// svm_predict_probability computes them: one-vs-one, each pair's
// sigmoid gives P(a | a or b), bounded to [1e-7, 1 − 1e-7], and the pairs
// are coupled by Wu, Lin and Weng's second method (two classes: the
// pair's probability as it is); one-vs-rest, each class's sigmoid
// divided by their sum. It fails with ErrNoProbability on a model fitted
// without them.
func (c *Classifier) Probabilities(ctx context.Context, x linalg.Matrix[float64]) (linalg.Matrix[float64], error) {
	if c.mm == nil {
		return linalg.Matrix[float64]{}, fmt.Errorf("classify: the classifier is not fitted")
	}
	if c.prob == nil {
		return linalg.Matrix[float64]{}, fmt.Errorf("%w (fit it with probabilities: cv --probability)", ErrNoProbability)
	}
	dec, err := c.Decision(ctx, x)
	if err != nil {
		return linalg.Matrix[float64]{}, err
	}
	k := len(c.Classes)
	out := linalg.New[float64](x.Rows, k)
	r := make([]float64, k*k)
	for i := range x.Rows {
		c.mm.probabilities(c.prob, dec.Row(i), out.Row(i), r)
	}
	return out, nil
}

// probabilities sets p to the class probabilities of the decision values
// dec of mm's units under the probability model pm; r is k×k scratch.
func (mm *multi) probabilities(pm *svm.Probability, dec, p, r []float64) {
	k := len(p)
	sig := func(ui int) float64 {
		return calibrate.Sigmoid{A: pm.A[ui], B: pm.B[ui]}.Prob(dec[ui])
	}
	if mm.scheme == OneVsRest {
		var sum float64
		for ui, u := range mm.units {
			p[u.pos] = sig(ui)
			sum += p[u.pos]
		}
		for j := range p {
			if sum > 0 {
				p[j] /= sum
			} else {
				p[j] = 1 / float64(k)
			}
		}
		return
	}
	for ui, u := range mm.units {
		v := min(max(sig(ui), calibrate.MinProb), 1-calibrate.MinProb)
		r[u.pos*k+u.neg], r[u.neg*k+u.pos] = v, 1-v
	}
	if k == 2 {
		p[0], p[1] = r[1], r[2]
		return
	}
	calibrate.Couple(p, r)
}

// PredictProbable returns, for every row of x, the class of the largest
// probability (the first on ties), with the probabilities: the rule of
// predictions made with probabilities, which may differ from Predict's
// votes near a boundary.
func (c *Classifier) PredictProbable(ctx context.Context, x linalg.Matrix[float64]) ([]int, linalg.Matrix[float64], error) {
	p, err := c.Probabilities(ctx, x)
	if err != nil {
		return nil, p, err
	}
	idx := make([]int, x.Rows)
	for i := range idx {
		row := p.Row(i)
		for j, v := range row {
			if v > row[idx[i]] {
				idx[i] = j
			}
		}
	}
	return idx, p, nil
}
