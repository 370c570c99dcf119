package classify

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/dataset"
)

// Cross-validation in pieces: a CVPlan splits the grid search of a
// Classifier into cells that separate processes evaluate (EvaluateCells,
// one array task each) and FitCells combines into the model Fit returns,
// bit for bit. A cell is one fold of one repeat on one kernel of the grid
// (σ_b, kind, depth), with every C of the grid: the C values of a fold are
// walked upwards, each solve warm-started from the one before, so they
// stay together. One-vs-one SVMs with more than two classes are split
// further, one cell per class pair, since each pair's sub-problem and its
// warm starts are independent of the others'; the pair's cell records
// which of its two classes wins each validation point's vote, and the
// votes are counted when the cells are combined.

// CVCell is one cell of a CVPlan.
type CVCell struct {
	Kernel int `json:"kernel"` // index into CVPlan.Kernels
	// Weight is the class weighting, an index into the grid's
	// ClassWeights (0 when it has none).
	Weight int `json:"weight,omitempty"`
	Repeat int `json:"repeat"`
	Fold   int `json:"fold"`
	// Pair is the class pair (a, b), a < b, in the order (0,1), (0,2), …,
	// (1,2), … when the cell holds one pair's machine, and −1 when it
	// holds every binary machine.
	Pair int `json:"pair"`
}

// CVCellResult is what a cell found, for each C of the grid in grid
// order.
type CVCellResult struct {
	Cell int `json:"cell"` // index into CVPlan.Cells
	// Accuracy is the fraction of the fold's validation points classified
	// right, for a cell with every binary machine.
	Accuracy []float64 `json:"accuracy,omitempty"`
	// Wins holds, for a class-pair cell, one byte per validation point
	// (in index order): '1' if the pair's first class wins its vote, '0'
	// if the second does.
	Wins []string `json:"wins,omitempty"`
}

// CVSpec is everything the cells' results depend on: a plan's
// fingerprint. Two plans with equal specs have the same cells and give
// the same results.
type CVSpec struct {
	Data      string    `json:"data_sha256"` // the inputs, labels and class names
	N         int       `json:"n"`
	D         int       `json:"d"`
	Classes   int       `json:"classes"`
	Machine   string    `json:"machine"`
	Scheme    string    `json:"multiclass"`
	Select    string    `json:"select"`
	Kinds     []string  `json:"kinds"` // with "fixed" last for Grid.Fixed
	Depths    []int     `json:"depths"`
	BiasStds  []float64 `json:"sigma_b"`
	Cs        []float64 `json:"c"`
	WeightStd float64   `json:"sigma_w"`
	Folds     int       `json:"folds"`
	Repeats   int       `json:"repeats"`
	Seed      uint64    `json:"seed"`
	FoldOf    string    `json:"fold_of_sha256,omitempty"` // explicit folds (Options.FoldOf)
	Standard  bool      `json:"standardize"`
	UnitNorm  bool      `json:"unit_norm,omitempty"`
	Float32   bool      `json:"float32"`
	Cells     int       `json:"cells"`
	// ClassWeights are the grid's class weightings (empty: none).
	ClassWeights []string `json:"class_weights,omitempty"`
}

// Equal reports whether s and t are the same spec.
func (s *CVSpec) Equal(t *CVSpec) bool {
	return s.Data == t.Data && s.N == t.N && s.D == t.D && s.Classes == t.Classes && s.Machine == t.Machine &&
		s.Scheme == t.Scheme && s.Select == t.Select && slices.Equal(s.Kinds, t.Kinds) && slices.Equal(s.Depths, t.Depths) &&
		slices.Equal(s.BiasStds, t.BiasStds) && slices.Equal(s.Cs, t.Cs) && s.WeightStd == t.WeightStd && s.Folds == t.Folds &&
		s.Repeats == t.Repeats && s.Seed == t.Seed && s.FoldOf == t.FoldOf && s.Standard == t.Standard &&
		s.UnitNorm == t.UnitNorm && s.Float32 == t.Float32 && s.Cells == t.Cells && slices.Equal(s.ClassWeights, t.ClassWeights)
}

// CVPlan is the grid search of a Classifier on one dataset as cells.
type CVPlan struct {
	Spec    CVSpec
	Kernels []ntk.Spec // the grid's kernels in the order of CVResult.Scores
	Cells   []CVCell   // kernel by kernel, then class weighting, repeat, fold and pair
	folds   [][]int    // the fold of every example, per repeat
	y       []int      // the class of every example
	classes []string   // the class names
	nfold   int
	pairs   [][2]int // the class pairs, when cells are split by pair
}

// PlanCV returns the cells of the grid search that Fit would run on d.
// It fails where Fit would before cross-validating, and for a grid of one
// point (Fit does not cross-validate it).
func (c *Classifier) PlanCV(d *dataset.Dataset) (*CVPlan, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	o := &c.opts
	g := o.grid()
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if g.Size() < 2 {
		return nil, fmt.Errorf("classify: the grid has one point: there is nothing to cross-validate")
	}
	if err := checkClasses(d.Y, d.Classes); err != nil {
		return nil, err
	}
	if err := o.checkClassWeights(d.Classes); err != nil {
		return nil, err
	}
	p := &CVPlan{y: slices.Clone(d.Y), classes: d.Classes}
	nclass := len(d.Classes)
	if o.FoldOf != nil {
		if len(o.FoldOf) != len(d.Y) {
			return nil, fmt.Errorf("classify: %d fold assignments for %d examples", len(o.FoldOf), len(d.Y))
		}
		size := map[int]int{}
		for _, f := range o.FoldOf {
			if f < 0 {
				return nil, fmt.Errorf("classify: fold %d: want ≥ 0", f)
			}
			p.nfold = max(p.nfold, f+1)
			size[f]++
		}
		for f := range p.nfold {
			if size[f] == 0 {
				return nil, fmt.Errorf("classify: fold %d has no examples", f)
			}
		}
		p.folds = [][]int{o.FoldOf}
	} else {
		p.nfold = o.folds()
		for _, w := range SmallClasses(d.Y, nclass, p.nfold, d.Classes) {
			o.warn(w)
		}
		for r := range max(o.Repeats, 1) {
			f, err := StratifiedFolds(d.Y, nclass, p.nfold, o.Seed+uint64(r))
			if err != nil {
				return nil, err
			}
			p.folds = append(p.folds, f)
		}
	}
	if o.Machine != KRR && (o.Scheme == OneVsOne || nclass == 2) && nclass > 2 {
		for a := range nclass {
			for b := a + 1; b < nclass; b++ {
				p.pairs = append(p.pairs, [2]int{a, b})
			}
		}
	}
	for _, bs := range g.BiasStds {
		for _, k := range g.Kernels() {
			p.Kernels = append(p.Kernels, o.spec(k, bs))
		}
	}
	for k := range p.Kernels {
		for w := range g.classWeights() {
			for r := range p.folds {
				for f := range p.nfold {
					if p.pairs == nil {
						p.Cells = append(p.Cells, CVCell{Kernel: k, Weight: w, Repeat: r, Fold: f, Pair: -1})
						continue
					}
					for pair := range p.pairs {
						p.Cells = append(p.Cells, CVCell{Kernel: k, Weight: w, Repeat: r, Fold: f, Pair: pair})
					}
				}
			}
		}
	}
	p.Spec = CVSpec{Data: datasetSHA256(d), N: d.N(), D: d.D(), Classes: nclass, Machine: o.Machine.String(),
		Scheme: o.Scheme.String(), Select: o.Select.String(), Depths: g.Depths, BiasStds: g.BiasStds, Cs: g.Cs,
		WeightStd: o.weightStd(), Folds: p.nfold, Repeats: len(p.folds), Seed: o.Seed, Standard: !o.NoStandardize,
		UnitNorm: o.UnitNorm, Float32: o.Float32, Cells: len(p.Cells)}
	for _, k := range g.Kinds {
		p.Spec.Kinds = append(p.Spec.Kinds, k.String())
	}
	if g.Fixed {
		p.Spec.Kinds = append(p.Spec.Kinds, "fixed")
	}
	for _, w := range g.ClassWeights {
		p.Spec.ClassWeights = append(p.Spec.ClassWeights, w.String())
	}
	if o.FoldOf != nil {
		p.Spec.Seed, p.Spec.FoldOf = 0, intsSHA256(o.FoldOf)
	}
	return p, nil
}

// samePlan checks that p is the plan of c's options on d.
func (c *Classifier) samePlan(d *dataset.Dataset, p *CVPlan) error {
	q, err := c.PlanCV(d)
	if err != nil {
		return err
	}
	if !q.Spec.Equal(&p.Spec) {
		return fmt.Errorf("classify: the plan is of another dataset or other options")
	}
	return nil
}

// datasetSHA256 hashes the inputs (svm.InputsSHA256), the labels and the
// class names of d.
func datasetSHA256(d *dataset.Dataset) string {
	h := sha256.New()
	h.Write([]byte(svm.InputsSHA256(d.X)))
	h.Write([]byte(intsSHA256(d.Y)))
	for _, c := range d.Classes {
		h.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(c))))
		h.Write([]byte(c))
	}
	return hex.EncodeToString(h.Sum(nil))
}

func intsSHA256(v []int) string {
	h := sha256.New()
	for _, x := range v {
		h.Write(binary.LittleEndian.AppendUint64(nil, uint64(x)))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Task returns the cells [lo, hi) of task i of n: consecutive cells, the
// counts differing by at most one, so that a task's cells share kernels.
// It panics unless 0 ≤ i < n (a programmer error: check n against
// len(Cells) first).
func (p *CVPlan) Task(i, n int) (lo, hi int) {
	if i < 0 || i >= n {
		panic(fmt.Sprintf("classify: task %d of %d", i, n))
	}
	m := len(p.Cells)
	return i * m / n, (i + 1) * m / n
}

// EvaluateCells evaluates the cells [lo, hi) of the plan p (from PlanCV on
// the same d and options) and returns their results in order. Each kernel
// of those cells is computed once; cells of one kernel run on up to
// Options.Threads goroutines. The results do not depend on the thread
// count or on how the cells are split into tasks.
func (c *Classifier) EvaluateCells(ctx context.Context, d *dataset.Dataset, p *CVPlan, lo, hi int) ([]CVCellResult, error) {
	if lo < 0 || hi > len(p.Cells) || lo > hi {
		return nil, fmt.Errorf("classify: cells %d…%d of a plan of %d", lo, hi-1, len(p.Cells))
	}
	if err := c.samePlan(d, p); err != nil {
		return nil, err
	}
	var s Classifier
	s.opts = c.opts
	xs, err := s.standardize(d.X)
	if err != nil {
		return nil, err
	}
	out := make([]CVCellResult, 0, hi-lo)
	for a := lo; a < hi; {
		b := a
		for b < hi && p.Cells[b].Kernel == p.Cells[a].Kernel {
			b++
		}
		spec := p.Kernels[p.Cells[a].Kernel]
		var res []CVCellResult
		if spec.Float32 {
			res, err = evalKernel[float32](ctx, spec, xs, d.Y, len(d.Classes), p, a, b, &c.opts)
		} else {
			res, err = evalKernel[float64](ctx, spec, xs, d.Y, len(d.Classes), p, a, b, &c.opts)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, res...)
		a = b
	}
	return out, nil
}

// evalKernel computes the Gram of spec and evaluates the cells [a, b),
// all of that kernel.
func evalKernel[T linalg.Float](ctx context.Context, spec ntk.Spec, xs linalg.Matrix[float64], y []int, nclass int, p *CVPlan, a, b int, o *Options) ([]CVCellResult, error) {
	k, err := gram[T](ctx, spec, xs, o)
	if err != nil {
		return nil, err
	}
	g := o.grid()
	order := identity(len(g.Cs))
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(g.Cs[a], g.Cs[b]) })
	res := make([]CVCellResult, b-a)
	errs := make([]error, b-a)
	var wg sync.WaitGroup
	sem := make(chan struct{}, o.threads())
	for i := range res {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			res[i], errs[i] = evalCell(ctx, k, y, nclass, p, a+i, g.Cs, order, o)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return res, ctx.Err()
}

// evalCell evaluates one cell on its kernel's Gram k, walking the C values
// upwards in the order order, as crossValidate walks them for one fold.
func evalCell[T linalg.Float](ctx context.Context, k linalg.Matrix[T], y []int, nclass int, p *CVPlan, ci int, cs []float64, order []int, o *Options) (CVCellResult, error) {
	cell := p.Cells[ci]
	folds := p.folds[cell.Repeat]
	var train, val []int
	for i, f := range folds {
		if f == cell.Fold {
			val = append(val, i)
		} else {
			train = append(train, i)
		}
	}
	r := CVCellResult{Cell: ci}
	cw, err := o.grid().classWeights()[cell.Weight].weights(p.classes, y, train)
	if err != nil {
		return r, err
	}
	if cell.Pair < 0 {
		r.Accuracy = make([]float64, len(cs))
		var prev *multi
		prevC := 0.0
		vb := valBlock(k, val, o.threads())
		for _, c := range order {
			mm, err := fitMulti(ctx, k, train, y, nclass, o.Machine, o.Scheme, cs[c], 1, prev, prevC, nil, cw)
			if err != nil {
				return r, err
			}
			r.Accuracy[c] = accuracy(mm, k, val, y, nclass, vb)
			prev, prevC = mm, cs[c]
		}
		return r, nil
	}
	pa, pb := p.pairs[cell.Pair][0], p.pairs[cell.Pair][1]
	var ia, ib []int
	for _, i := range train {
		switch y[i] {
		case pa:
			ia = append(ia, i)
		case pb:
			ib = append(ib, i)
		}
	}
	idx := mergeSorted(ia, ib)
	r.Wins = make([]string, len(cs))
	var prev *multi
	prevC := 0.0
	dec := make([]float64, 1)
	for _, c := range order {
		mm := &multi{scheme: OneVsOne, classes: nclass, units: []unit{{pos: pa, neg: pb, idx: idx}}}
		if err := fitUnits(ctx, k, mm.units, y, o.Machine, cs[c], 1, prev, prevC, nil, cw); err != nil {
			return r, err
		}
		wins := make([]byte, len(val))
		for t, i := range val {
			decide(mm, dec, k.Row(i))
			wins[t] = '0'
			if dec[0] > 0 {
				wins[t] = '1'
			}
		}
		r.Wins[c] = string(wins)
		prev, prevC = mm, cs[c]
	}
	return r, nil
}

// Combine checks that results hold every cell of p exactly once, each of
// the right shape, and returns the table of the cross-validation and the
// point the selection rule picks: what Fit's cross-validation gives.
func (c *Classifier) Combine(p *CVPlan, results []CVCellResult) (*CVResult, error) {
	o := &c.opts
	g := o.grid()
	seen := make([]bool, len(p.Cells))
	ws := g.classWeights()
	nc := len(g.Cs)
	// acc[kernel][weighting·len(Cs) + ci][repeat·nfold + fold]
	acc := make([][][]float64, len(p.Kernels))
	for k := range acc {
		acc[k] = make([][]float64, len(ws)*nc)
		for ci := range acc[k] {
			acc[k][ci] = make([]float64, len(p.folds)*p.nfold)
		}
	}
	// The class-pair cells of one (kernel, repeat, fold), gathered before
	// their votes are counted.
	type group struct{ kernel, weight, repeat, fold int }
	pairWins := map[group][][]string{}
	for _, r := range results {
		if r.Cell < 0 || r.Cell >= len(p.Cells) {
			return nil, fmt.Errorf("classify: result for cell %d of a plan of %d", r.Cell, len(p.Cells))
		}
		if seen[r.Cell] {
			return nil, fmt.Errorf("classify: cell %d appears twice", r.Cell)
		}
		seen[r.Cell] = true
		cell := p.Cells[r.Cell]
		nval := 0
		for _, f := range p.folds[cell.Repeat] {
			if f == cell.Fold {
				nval++
			}
		}
		if cell.Pair < 0 {
			if len(r.Accuracy) != len(g.Cs) || r.Wins != nil {
				return nil, fmt.Errorf("classify: cell %d: want %d accuracies, one per C", r.Cell, len(g.Cs))
			}
			for ci, a := range r.Accuracy {
				if !(a >= 0 && a <= 1) {
					return nil, fmt.Errorf("classify: cell %d: accuracy %v", r.Cell, a)
				}
				acc[cell.Kernel][cell.Weight*nc+ci][cell.Repeat*p.nfold+cell.Fold] = a
			}
			continue
		}
		if len(r.Wins) != len(g.Cs) || r.Accuracy != nil {
			return nil, fmt.Errorf("classify: cell %d: want %d vote strings, one per C", r.Cell, len(g.Cs))
		}
		for _, w := range r.Wins {
			if len(w) != nval || len(w) != countBytes(w) {
				return nil, fmt.Errorf("classify: cell %d: want one 0 or 1 per validation point (%d)", r.Cell, nval)
			}
		}
		key := group{cell.Kernel, cell.Weight, cell.Repeat, cell.Fold}
		if pairWins[key] == nil {
			pairWins[key] = make([][]string, len(p.pairs))
		}
		pairWins[key][cell.Pair] = r.Wins
	}
	for i, ok := range seen {
		if !ok {
			cell := p.Cells[i]
			return nil, fmt.Errorf("classify: no result for cell %d (kernel %s, repeat %d, fold %d)", i, p.Kernels[cell.Kernel], cell.Repeat, cell.Fold)
		}
	}
	if p.pairs != nil {
		nclass := p.Spec.Classes
		mm := multi{scheme: OneVsOne, classes: nclass}
		for _, pr := range p.pairs {
			mm.units = append(mm.units, unit{pos: pr[0], neg: pr[1]})
		}
		dec, votes := make([]float64, len(p.pairs)), make([]int, nclass)
		for key, wins := range pairWins {
			var val []int
			for i, f := range p.folds[key.repeat] {
				if f == key.fold {
					val = append(val, i)
				}
			}
			for ci := range g.Cs {
				right := 0
				for t, i := range val {
					for u := range wins {
						dec[u] = -1
						if wins[u][ci][t] == '1' {
							dec[u] = 1
						}
					}
					if mm.class(dec, votes) == p.y[i] {
						right++
					}
				}
				acc[key.kernel][key.weight*nc+ci][key.repeat*p.nfold+key.fold] = float64(right) / float64(len(val))
			}
		}
	}
	res := &CVResult{Rule: o.Select.String(), Folds: len(p.folds) * p.nfold}
	for k, spec := range p.Kernels {
		for wi, w := range ws {
			for ci, cv := range g.Cs {
				a := acc[k][wi*nc+ci]
				mean, std := MeanStd(a)
				res.Scores = append(res.Scores, Score{Point: Point{Spec: spec, C: cv, ClassWeight: w},
					KindName: spec.Kind.String(), Mean: mean, Std: std, Folds: a})
			}
		}
	}
	res.Chosen = choose(res.Scores, o.Select, res.Folds)
	return res, nil
}

// countBytes returns the number of bytes of w that are '0' or '1'.
func countBytes(w string) int {
	n := 0
	for i := range len(w) {
		if w[i] == '0' || w[i] == '1' {
			n++
		}
	}
	return n
}

// FitCells fits c on d as Fit does, with the cross-validation taken from
// the results of every cell of the plan p (from PlanCV on the same d and
// options): the same table, the same chosen point and the same model as
// Fit, bit for bit.
func (c *Classifier) FitCells(ctx context.Context, d *dataset.Dataset, p *CVPlan, results []CVCellResult) error {
	if err := c.samePlan(d, p); err != nil {
		return err
	}
	cv, err := c.Combine(p, results)
	if err != nil {
		return err
	}
	return c.fitWith(ctx, d.X, d.Y, d.Classes, func(context.Context, linalg.Matrix[float64], []int, []string) (*CVResult, error) {
		return cv, nil
	})
}
