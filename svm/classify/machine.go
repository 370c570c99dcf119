package classify

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/ntksvm/ntksvm/asm"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/svm"
)

// Machine is the kernel machine fitted to each binary sub-problem (the
// machines of the paper's Table 1 that classify).
type Machine uint8

const (
	// SVM is the soft-margin SVM with a bias, libsvm's C-SVC: hinge loss,
	// ½‖β‖² + C Σ hinge, solved exactly by SMO.
	SVM Machine = iota
	// SVM2 is the 2-norm soft-margin SVM (squared hinge) with a bias.
	SVM2
	// KRR is kernel ridge regression on ±1 class-indicator targets,
	// ½‖β‖²/C + Σ (yᵢ − gᵢ)²/2, one output per class from one Cholesky
	// factorisation (always one-vs-rest).
	KRR
)

var machineNames = []string{"svm", "svm2", "krr"}

// String returns "svm", "svm2" or "krr".
func (m Machine) String() string {
	if int(m) < len(machineNames) {
		return machineNames[m]
	}
	return fmt.Sprintf("Machine(%d)", int(m))
}

// ParseMachine parses "svm", "svm2" or "krr".
func ParseMachine(s string) (Machine, error) {
	for i, n := range machineNames {
		if s == n {
			return Machine(i), nil
		}
	}
	return 0, fmt.Errorf("classify: machine %q: want svm, svm2 or krr", s)
}

// Scheme is how binary machines make a multi-class one.
type Scheme uint8

const (
	// OneVsOne fits one machine per pair of classes and predicts by
	// voting, ties going to the class that comes first (libsvm's scheme).
	OneVsOne Scheme = iota
	// OneVsRest fits one machine per class against all others and
	// predicts the class of the largest decision value.
	OneVsRest
)

// String returns "ovo" or "ovr".
func (s Scheme) String() string {
	if s == OneVsRest {
		return "ovr"
	}
	return "ovo"
}

// ParseScheme parses "ovo" or "ovr".
func ParseScheme(s string) (Scheme, error) {
	switch s {
	case "ovo":
		return OneVsOne, nil
	case "ovr":
		return OneVsRest, nil
	}
	return 0, fmt.Errorf("classify: multi-class scheme %q: want ovo or ovr", s)
}

// unit is one binary machine g(x) = Σ alpha[k]·K(x, x_idx[k]) + bias: class
// pos against class neg (neg < 0: against every other class).
type unit struct {
	pos, neg int
	idx      []int // training points (indices into the Gram's columns)
	alpha    []float64
	bias     float64
	// The SVM's whole sub-problem and its dual variables, kept while
	// cross-validation warm-starts the next C from them.
	points []int
	dual   []float64
	ka     []float64        // K·α at dual, for the warm start's svm.DualConfig.InitKa
	kernel svm.KernelMatrix // the sub-problem's view, with its cached rows
	// valDec holds the decision values at the validation points of the
	// fold being cross-validated, computed on first use; a unit carried
	// over unchanged to a larger C (see atBound) keeps them.
	valDec []float64
}

// multi is a multi-class machine over the columns of a Gram.
type multi struct {
	scheme  Scheme
	classes int
	units   []unit
}

// fitMulti fits machine m with scheme s and constant c on the training
// points train (indices into the square Gram k) whose classes are y[i]
// (indexed like k). Sub-problems are fitted on views of k, on up to
// threads goroutines; the result does not depend on threads. When prev is
// the same machine fitted at a smaller constant prevC, each SVM starts from
// its dual variables (feasible: the box [0, C] only grows), unless most of
// its support vectors are at the bound (see warmStarts). Kept as they are
// rather than scaled by c/prevC: on separable sub-problems the solution
// stops changing once no variable is at its bound, and then the warm start
// is already optimal. The views' cached rows come from ar when it is not
// nil (see rowArena). cw, when not nil, weighs the C of each class (see
// ClassWeight); prev must then have been fitted with the same cw.
func fitMulti[T linalg.Float](ctx context.Context, k linalg.Matrix[T], train, y []int, nclass int, m Machine, s Scheme, c float64, threads int, prev *multi, prevC float64, ar *rowArena, cw []float64) (*multi, error) {
	if m == KRR {
		u, err := fitKRR(ctx, k, train, y, nclass, c)
		if err != nil {
			return nil, err
		}
		return &multi{scheme: OneVsRest, classes: nclass, units: u}, nil
	}
	byClass := make([][]int, nclass)
	for _, i := range train {
		byClass[y[i]] = append(byClass[y[i]], i)
	}
	var units []unit
	switch {
	case s == OneVsOne || nclass == 2:
		for a := range nclass {
			for b := a + 1; b < nclass; b++ {
				idx := mergeSorted(byClass[a], byClass[b])
				units = append(units, unit{pos: a, neg: b, idx: idx})
			}
		}
	default:
		for a := range nclass {
			units = append(units, unit{pos: a, neg: -1, idx: train})
		}
	}
	if err := fitUnits(ctx, k, units, y, m, c, threads, prev, prevC, ar, cw); err != nil {
		return nil, err
	}
	sch := s
	if nclass == 2 {
		sch = OneVsOne
	}
	return &multi{scheme: sch, classes: nclass, units: units}, nil
}

// fitUnits fits the SVMs units (each with its sub-problem's points in
// idx) in place, as fitMulti does: on up to threads goroutines, each
// started from (or, when it is the same optimum, taken from) the unit of
// prev at the same position, fitted at prevC.
func fitUnits[T linalg.Float](ctx context.Context, k linalg.Matrix[T], units []unit, y []int, m Machine, c float64, threads int, prev *multi, prevC float64, ar *rowArena, cw []float64) error {
	if threads > 1 {
		ar = nil // an arena serves one goroutine at a time
	}
	errs := make([]error, len(units))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(threads, 1))
	for ui := range units {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			var init, ka []float64
			var kv *view[T]
			w := pointWeights(cw, y, units[ui].idx)
			if prev != nil && len(prev.units) == len(units) && prev.units[ui].dual != nil {
				p := &prev.units[ui]
				kv, _ = p.kernel.(*view[T])
				if m == SVM && c > prevC && !atBound(p.dual, prevC, w) {
					units[ui] = *p // the same optimum: see atBound
					return
				}
				if warmStarts(p.dual, prevC, w) {
					init = make([]float64, len(p.dual))
					same := true
					for t, a := range p.dual {
						init[t] = min(a, c*weight(w, t))
						same = same && init[t] == a
					}
					if same {
						ka = p.ka
					}
				}
			}
			if kv == nil {
				kv = newView(k, units[ui].idx, units[ui].idx)
				kv.arena = ar
			}
			errs[ui] = fitUnit(ctx, kv, &units[ui], y, m, c, init, ka, w)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// warmStarts reports whether the solution dual at the constant c is a
// good start for the next, larger constant: not when most of its support
// vectors sit at the bound c. Those must all move to new values, one SMO
// pair at a time, and starting from zero takes fewer steps; past the
// first few C values the warm start is the shorter one (step counts in
// docs/performance.md, "Warm starts along the C path").
// With the points' weights w (nil: all 1) the bound of point t is c·w[t].
func warmStarts(dual []float64, c float64, w []float64) bool {
	sv, bound := 0, 0
	for t, a := range dual {
		if a > 0 {
			sv++
		}
		if a >= c*weight(w, t) {
			bound++
		}
	}
	return 2*bound <= sv
}

// atBound reports whether some dual variable of a hinge-loss SVM solved at
// constant c sits at its upper bound c. When none does, the solution is
// also optimal for every larger constant: the KKT conditions of the free
// variables (0 < a < c) and of those at 0 do not involve c, and the box only
// grows, so the free set, the dual and libsvm's bias (the mean over the
// free variables) are all the same. Cross-validation walks C upwards and
// reuses such a solution instead of solving again; on separable
// sub-problems every C past the first that separates them costs nothing.
// With the points' weights w (nil: all 1) the bound of point t is c·w[t].
func atBound(dual []float64, c float64, w []float64) bool {
	for t, a := range dual {
		if a >= c*weight(w, t) {
			return true
		}
	}
	return false
}

// weight returns w[t], or 1 when w is nil.
func weight(w []float64, t int) float64 {
	if w == nil {
		return 1
	}
	return w[t]
}

// mergeSorted returns the union of two sorted disjoint index lists, sorted.
func mergeSorted(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0] < b[0] {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// fitUnit solves the SVM dual of one binary sub-problem, each point t of
// u.idx with the weight w[t] of C (w nil: all 1).
func fitUnit(ctx context.Context, kv svm.KernelMatrix, u *unit, y []int, m Machine, c float64, init, ka, w []float64) error {
	yb := make([]float64, len(u.idx))
	npos := 0
	for i, t := range u.idx {
		yb[i] = -1
		if y[t] == u.pos {
			yb[i] = 1
			npos++
		}
	}
	if npos == 0 || npos == len(yb) {
		// A side without a training example (a class with fewer examples
		// than folds, in a fold that lacks it): the unit decides for the
		// side it has, as a machine never shown a class does at
		// prediction, and one-vs-rest never picks the missing class.
		u.idx, u.alpha, u.points, u.dual, u.ka, u.kernel = nil, nil, nil, nil, nil, nil
		switch {
		case npos > 0:
			u.bias = 1
		case u.neg < 0:
			u.bias = math.Inf(-1)
		default:
			u.bias = -1
		}
		return nil
	}
	loss := svm.Hinge
	if m == SVM2 {
		loss = svm.SquaredHinge
	}
	if m == SVM2 {
		for t := range init {
			init[t] = 0 // the 2-norm dual has no box: scaling is feasible but not better
		}
		ka = nil
	}
	res, err := svm.SolveDual(ctx, kv, yb,
		svm.DualConfig{Loss: loss, Lambda: 1 / c, Bias: true, KKT: 1e-3, Init: init, InitKa: ka, Weights: w})
	if err != nil {
		return fmt.Errorf("classify: classes %d vs %d: %w", u.pos, u.neg, err)
	}
	u.points, u.dual, u.ka, u.kernel = u.idx, res.Dual, res.Ka, kv
	// Keep the support vectors only.
	idx := make([]int, 0, res.SupportVectors)
	alpha := make([]float64, 0, res.SupportVectors)
	for i, a := range res.Machine.Alpha {
		if a != 0 {
			idx, alpha = append(idx, u.idx[i]), append(alpha, a)
		}
	}
	u.idx, u.alpha, u.bias = idx, alpha, res.Machine.Bias
	return nil
}

// fitKRR solves (K + I/C)A = Y for the ±1 indicator targets of every class
// with one Cholesky factorisation.
func fitKRR[T linalg.Float](ctx context.Context, k linalg.Matrix[T], train, y []int, nclass int, c float64) ([]unit, error) {
	n := len(train)
	a := linalg.New[float64](n, n)
	for r, i := range train {
		row, ki := a.Row(r), k.Row(i)
		for s, j := range train {
			row[s] = float64(ki[j])
		}
		row[r] += 1 / c
	}
	b := linalg.New[float64](n, nclass)
	for r, i := range train {
		for cl := range nclass {
			b.Set(r, cl, -1)
		}
		b.Set(r, y[i], 1)
	}
	if err := linalg.SolveSPDContext(ctx, a, b); err != nil {
		return nil, fmt.Errorf("classify: kernel ridge regression: %w", err)
	}
	present := make([]bool, nclass)
	for _, i := range train {
		present[y[i]] = true
	}
	units := make([]unit, nclass)
	for cl := range units {
		if !present[cl] { // see fitUnit
			units[cl] = unit{pos: cl, neg: -1, bias: math.Inf(-1)}
			continue
		}
		units[cl] = unit{pos: cl, neg: -1, idx: train, alpha: make([]float64, n)}
		for r := range n {
			units[cl].alpha[r] = b.At(r, cl)
		}
	}
	return units, nil
}

// decide writes the decision value of every unit of mm for the point whose
// kernel values against the Gram's columns are krow.
func decide[T linalg.Float](mm *multi, dst []float64, krow []T) {
	for ui, u := range mm.units {
		s := u.bias
		for k, j := range u.idx {
			s += float64(u.alpha[k] * float64(krow[j]))
		}
		dst[ui] = s
	}
}

// valBlockBytes bounds the blocks of Gram columns that decideBlock reads,
// all the walks under way together (each of threads walks has its own);
// past it, decideAt gathers.
const valBlockBytes = 64 << 20

// valBlock returns the columns pts of the Gram k as the rows of a block,
// b.Row(j)[t] = k[j, pts[t]], for decideBlock, or the zero Matrix when k is
// not float64 or the block would exceed its share of valBlockBytes, one of
// threads.
func valBlock[T linalg.Float](k linalg.Matrix[T], pts []int, threads int) linalg.Matrix[float64] {
	k64, ok := any(k).(linalg.Matrix[float64])
	if !ok || len(pts) == 0 || int64(k.Rows)*int64(len(pts))*8 > valBlockBytes/int64(max(threads, 1)) {
		return linalg.Matrix[float64]{}
	}
	b := linalg.New[float64](k.Rows, len(pts))
	for j := range k.Rows {
		src, dst := k64.Row(j), b.Row(j)[:len(pts)]
		for t, i := range pts {
			dst[t] = src[i]
		}
	}
	return b
}

// decideBlock is decideAt on the block b = valBlock(k, rows): the terms are
// added one support vector at a time over all the points
// (asm.AxpyUnfused64, contiguous), which gives every sum the same additions
// in the same order, so the same values.
func decideBlock(u *unit, dst []float64, b linalg.Matrix[float64]) {
	for t := range dst {
		dst[t] = u.bias
	}
	for q, j := range u.idx {
		asm.AxpyUnfused64(u.alpha[q], b.Row(j)[:len(dst)], dst)
	}
}

// decideAt writes u's decision value at each point rows[t] of the Gram k
// into dst[t], with decide's arithmetic (the bias, then the terms in
// order, each product rounded before it is added), four points at a time
// so that their sums proceed together.
func decideAt[T linalg.Float](u *unit, dst []float64, k linalg.Matrix[T], rows []int) {
	t := 0
	for ; t+4 <= len(rows); t += 4 {
		r0, r1, r2, r3 := k.Row(rows[t]), k.Row(rows[t+1]), k.Row(rows[t+2]), k.Row(rows[t+3])
		s0, s1, s2, s3 := u.bias, u.bias, u.bias, u.bias
		for q, j := range u.idx {
			a := u.alpha[q]
			s0 += float64(a * float64(r0[j]))
			s1 += float64(a * float64(r1[j]))
			s2 += float64(a * float64(r2[j]))
			s3 += float64(a * float64(r3[j]))
		}
		dst[t], dst[t+1], dst[t+2], dst[t+3] = s0, s1, s2, s3
	}
	for ; t < len(rows); t++ {
		r := k.Row(rows[t])
		s := u.bias
		for q, j := range u.idx {
			s += float64(u.alpha[q] * float64(r[j]))
		}
		dst[t] = s
	}
}

// class returns the predicted class from the units' decision values.
func (mm *multi) class(dec []float64, votes []int) int {
	if mm.scheme == OneVsOne {
		clear(votes)
		for ui, u := range mm.units {
			if dec[ui] > 0 {
				votes[u.pos]++
			} else {
				votes[u.neg]++
			}
		}
		best := 0
		for c, v := range votes {
			if v > votes[best] {
				best = c
			}
		}
		return best
	}
	best, bv := 0, math.Inf(-1)
	for ui, u := range mm.units {
		if dec[ui] > bv {
			best, bv = u.pos, dec[ui]
		}
	}
	return best
}
