package classify

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/ntksvm/ntksvm/internal/rng"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// Grid is the set of hyper-parameters cross-validation chooses from: every
// kernel kind × depth × σ_b, each with every C, and with Fixed also the
// NTKs whose first layers are not trained. Order (see Kernels) matters only
// for ties (the first point in this order wins).
type Grid struct {
	Kinds    []ntk.Kind
	Depths   []int     // hidden layers; 0 is the input kernel
	BiasStds []float64 // σ_b
	Cs       []float64 // the SVMs' C (KRR: the ridge is 1/C)
	// Fixed adds, for every depth L of Depths, the NTK of the network
	// whose first F layers are not trained for every F = 1…L−1 (Arora et
	// al., ICLR 2020; ntk.Spec.Fixed): F = 0 is the NTK and F = L the
	// NNGP, which Kinds selects.
	Fixed bool
	// ClassWeights are the class weightings to try (svm and svm2), each
	// with every kernel and C; empty means NoClassWeight only.
	ClassWeights []ClassWeight
}

// classWeights returns the grid's weightings, NoClassWeight alone when
// it has none.
func (g Grid) classWeights() []ClassWeight {
	if len(g.ClassWeights) == 0 {
		return []ClassWeight{NoClassWeight}
	}
	return g.ClassWeights
}

// GridKernel is one kernel of a grid at a given σ_b: its kind, depth and
// number of fixed layers.
type GridKernel struct {
	Kind  ntk.Kind
	Depth int
	Fixed int
}

// Kernels returns the grid's kernels in grid order: every kind of Kinds
// with every depth of Depths, in their order, then with Fixed, for every
// depth L of Depths in order, the NTKs with F = 1…L−1 fixed layers. Each
// σ_b of BiasStds repeats this list.
func (g Grid) Kernels() []GridKernel {
	var out []GridKernel
	for _, kind := range g.Kinds {
		for _, d := range g.Depths {
			out = append(out, GridKernel{Kind: kind, Depth: d})
		}
	}
	if g.Fixed {
		for _, d := range g.Depths {
			for f := 1; f < d; f++ {
				out = append(out, GridKernel{Kind: ntk.KindNTK, Depth: d, Fixed: f})
			}
		}
	}
	return out
}

// DefaultGrid is the grid used when Options.Grid is empty: the NTK of
// depth 1…5 and C = 10⁻²…10⁴, the grid of the NTK-SVM literature on small
// tabular data (Arora et al., ICLR 2020), and σ_b ∈ {0, 0.5, 1, 2}. The
// bias makes the kernel depend on the inputs' norms beyond a factor (with
// σ_b = 0 it is ‖x‖‖x'‖ times a function of their angle); on ten UCI and
// scikit-learn datasets it raises the mean test accuracy of the default
// protocol by about half a point, at four times the work.
func DefaultGrid() Grid {
	return Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{1, 2, 3, 4, 5}, BiasStds: []float64{0, 0.5, 1, 2},
		Cs: LogGrid(1e-2, 1e4, 7)}
}

// LogGrid returns n values from lo to hi evenly spaced in log scale.
func LogGrid(lo, hi float64, n int) []float64 {
	if n == 1 {
		return []float64{lo}
	}
	v := make([]float64, n)
	a, b := math.Log10(lo), math.Log10(hi)
	for i := range v {
		v[i] = math.Pow(10, a+(b-a)*float64(i)/float64(n-1))
		if r := math.Round(v[i]); math.Abs(v[i]-r) < 1e-9*v[i] {
			v[i] = r
		}
		// 15 significant digits: math.Pow and math.Log10 round their last
		// bit differently on arm64 (0.09999999999999996 for 0.1), and the
		// grid must be the same everywhere.
		v[i], _ = strconv.ParseFloat(strconv.FormatFloat(v[i], 'g', 15, 64), 64)
	}
	return v
}

// Size returns the number of grid points.
func (g Grid) Size() int {
	return len(g.Kernels()) * len(g.BiasStds) * len(g.classWeights()) * len(g.Cs)
}

// Validate checks the grid.
func (g Grid) Validate() error {
	if g.Size() == 0 {
		fixed := ""
		if g.Fixed && len(g.Kinds) == 0 {
			fixed = " (fixed layers need a depth ≥ 2)"
		}
		return fmt.Errorf("classify: the grid is empty (%d kinds × %d depths × %d σ_b × %d C%s)", len(g.Kinds), len(g.Depths), len(g.BiasStds), len(g.Cs), fixed)
	}
	for _, d := range g.Depths {
		if d < 0 || d > 100 {
			return fmt.Errorf("classify: depth %d: want 0…100", d)
		}
	}
	for _, b := range g.BiasStds {
		if !(b >= 0) || math.IsInf(b, 0) {
			return fmt.Errorf("classify: σ_b %v: want a finite number ≥ 0", b)
		}
	}
	for _, c := range g.Cs {
		if !(c > 0) || math.IsInf(c, 0) {
			return fmt.Errorf("classify: C %v: want a finite number > 0", c)
		}
	}
	return nil
}

// Selection is the rule that picks a grid point from the CV scores.
type Selection uint8

const (
	// SelectOneSE picks, among the points whose mean CV accuracy is within
	// one standard error of the best, the simplest: fewest layers, then
	// smallest C (then grid order, which puts the kinds before the
	// kernels with fixed layers). It over-fits the selection less than
	// SelectBest on small data.
	SelectOneSE Selection = iota
	// SelectBest picks the point of the best mean CV accuracy, the first
	// in grid order on ties (scikit-learn's GridSearchCV).
	SelectBest
)

// ParseSelection parses "1se" or "best".
func ParseSelection(s string) (Selection, error) {
	switch s {
	case "1se":
		return SelectOneSE, nil
	case "best":
		return SelectBest, nil
	}
	return 0, fmt.Errorf("classify: selection rule %q: want 1se or best", s)
}

// String returns "1se" or "best".
func (s Selection) String() string {
	if s == SelectBest {
		return "best"
	}
	return "1se"
}

// Point is one grid point: the kernel (its σ_w and storage type those of
// the Options), C and the class weighting.
type Point struct {
	ntk.Spec
	C           float64
	ClassWeight ClassWeight
}

// spec returns the kernel k of the grid with σ_b = biasStd, and o's σ_w
// and storage type.
func (o *Options) spec(k GridKernel, biasStd float64) ntk.Spec {
	return ntk.Spec{Kind: k.Kind, Depth: k.Depth, Fixed: k.Fixed, WeightStd: o.weightStd(), BiasStd: biasStd, Float32: o.Float32}
}

// pointJSON is a Point's JSON form: {"depth", "fixed", "sigma_b", "c",
// "class_weight"}, "fixed" and "class_weight" omitted when empty. The
// kernel's kind is its Score's "kernel"; σ_w and the storage type, the
// options', are not written.
type pointJSON struct {
	Depth       int         `json:"depth"`
	Fixed       int         `json:"fixed,omitempty"`
	BiasStd     float64     `json:"sigma_b"`
	C           float64     `json:"c"`
	ClassWeight ClassWeight `json:"class_weight,omitempty"`
}

func (p Point) toJSON() pointJSON {
	return pointJSON{Depth: p.Depth, Fixed: p.Fixed, BiasStd: p.BiasStd, C: p.C, ClassWeight: p.ClassWeight}
}

func (j pointJSON) point(kind ntk.Kind) Point {
	return Point{Spec: ntk.Spec{Kind: kind, Depth: j.Depth, Fixed: j.Fixed, BiasStd: j.BiasStd}, C: j.C, ClassWeight: j.ClassWeight}
}

// MarshalJSON writes p in its JSON form (see Score), rather than as the
// embedded ntk.Spec would write itself.
func (p Point) MarshalJSON() ([]byte, error) { return json.Marshal(p.toJSON()) }

// UnmarshalJSON reads p from its JSON form (the kind is the NTK).
func (p *Point) UnmarshalJSON(b []byte) error {
	var j pointJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*p = j.point(ntk.KindNTK)
	return nil
}

// Score is a grid point's cross-validated accuracy: the mean and the
// population standard deviation over the folds (and repeats). Its JSON
// form is the point's fields, then "kernel" (the kind's name), "mean",
// "std" and "folds".
type Score struct {
	Point
	KindName string
	Mean     float64
	Std      float64
	Folds    []float64
}

// scoreJSON is Score's JSON form.
type scoreJSON struct {
	pointJSON
	KindName string    `json:"kernel"`
	Mean     float64   `json:"mean"`
	Std      float64   `json:"std"`
	Folds    []float64 `json:"folds"`
}

// MarshalJSON writes s in its JSON form.
func (s Score) MarshalJSON() ([]byte, error) {
	return json.Marshal(scoreJSON{pointJSON: s.Point.toJSON(), KindName: s.KindName, Mean: s.Mean, Std: s.Std, Folds: s.Folds})
}

// UnmarshalJSON reads s from its JSON form.
func (s *Score) UnmarshalJSON(b []byte) error {
	var j scoreJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	kind, err := ntk.ParseKind(j.KindName)
	if err != nil {
		return err
	}
	*s = Score{Point: j.pointJSON.point(kind), KindName: j.KindName, Mean: j.Mean, Std: j.Std, Folds: j.Folds}
	return nil
}

// CVResult is the table of a cross-validation and the point it chose.
type CVResult struct {
	Scores []Score `json:"scores"`
	Chosen int     `json:"chosen"` // index into Scores
	Rule   string  `json:"rule"`
	Folds  int     `json:"folds"`
}

// StratifiedFolds assigns each example to one of k folds so that every
// class is spread over the folds as evenly as it can be: the examples of
// each class, shuffled with the seed, are dealt to the folds in turn,
// continuing where the previous class stopped. A class of fewer than k
// examples is in some folds only (SmallClasses names them); the training
// part of the others then lacks it, and cross-validation counts its
// validation examples there as errors (see fitMulti). It fails when there
// are fewer examples than folds.
func StratifiedFolds(y []int, nclass, k int, seed uint64) ([]int, error) {
	if k < 2 {
		return nil, fmt.Errorf("classify: %d folds: want at least 2", k)
	}
	if len(y) < k {
		return nil, fmt.Errorf("classify: %d examples, fewer than the %d folds: a fold would validate nothing", len(y), k)
	}
	byClass := make([][]int, nclass)
	for i, c := range y {
		byClass[c] = append(byClass[c], i)
	}
	fold := make([]int, len(y))
	r := rng.SplitMix64(seed)
	next := 0
	for _, idx := range byClass {
		for i := len(idx) - 1; i > 0; i-- {
			j := int(rng.Below(&r, uint64(i+1)))
			idx[i], idx[j] = idx[j], idx[i]
		}
		for _, i := range idx {
			fold[i] = next % k
			next++
		}
	}
	return fold, nil
}

// SmallClasses returns a warning for each class of y (nclass classes,
// named by classes when not nil) with fewer examples than k folds: the
// folds that lack it in their training part cannot predict it, so its
// validation examples there count as errors.
func SmallClasses(y []int, nclass, k int, classes []string) []string {
	count := make([]int, nclass)
	for _, c := range y {
		count[c]++
	}
	var w []string
	for c, n := range count {
		if n >= k {
			continue
		}
		name := fmt.Sprint(c)
		if classes != nil {
			name = fmt.Sprintf("%q", classes[c])
		}
		ex := "examples"
		if n == 1 {
			ex = "example"
		}
		w = append(w, fmt.Sprintf("class %s has %d %s, fewer than the %d folds: the folds whose training part lacks it count its validation examples as errors", name, n, ex, k))
	}
	return w
}

// crossValidate scores every class weighting and C of the grid on the
// kernel k (n×n over all training examples) with the fold assignment,
// returning accuracy[wi·len(cs) + ci][f] for weighting wi and C ci.
func crossValidate[T linalg.Float](ctx context.Context, k linalg.Matrix[T], y []int, nclass int, folds []int, nfold int, cs []float64, ws []ClassWeight, classes []string, m Machine, s Scheme, threads int) ([][]float64, error) {
	acc, err := crossValidateAll(ctx, []linalg.Matrix[T]{k}, y, nclass, folds, nfold, cs, ws, classes, m, s, threads)
	if err != nil {
		return nil, err
	}
	return acc[0], nil
}

// crossValidateAll is crossValidate on several kernels at once, returning
// accuracy[kernel][wi·len(cs) + ci][f]: the (kernel, fold, weighting)
// walks share one pool of threads, so that no thread waits for the
// slowest fold of one kernel before the next kernel starts. Balanced
// weights are those of each fold's training examples.
func crossValidateAll[T linalg.Float](ctx context.Context, ks []linalg.Matrix[T], y []int, nclass int, folds []int, nfold int, cs []float64, ws []ClassWeight, classes []string, m Machine, s Scheme, threads int) ([][][]float64, error) {
	trainOf, valOf := make([][]int, nfold), make([][]int, nfold)
	for i, f := range folds {
		valOf[f] = append(valOf[f], i)
		for g := range nfold {
			if g != f {
				trainOf[g] = append(trainOf[g], i)
			}
		}
	}
	acc := make([][][]float64, len(ks))
	for ki := range acc {
		acc[ki] = make([][]float64, len(ws)*len(cs))
		for ci := range acc[ki] {
			acc[ki][ci] = make([]float64, nfold)
		}
	}
	// Each (kernel, fold, weighting) is one task that walks the C values
	// upwards, each solve warm-started from the one before.
	order := identity(len(cs))
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(cs[a], cs[b]) })
	nw := len(ws)
	errs := make([]error, len(ks)*nfold*nw)
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(threads, 1))
	// Finished walks hand their arenas to the next ones; they are garbage
	// once this call returns, so the fits after it do not hold them.
	arenas := make(chan *rowArena, max(threads, 1))
	for task := range len(ks) * nfold * nw {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			ki, f, wi := task/(nfold*nw), task/nw%nfold, task%nw
			k := ks[ki]
			cw, err := ws[wi].weights(classes, y, trainOf[f])
			if err != nil {
				errs[task] = err
				return
			}
			var prev *multi
			prevC := 0.0
			vb := valBlock(k, valOf[f], threads)
			var ar *rowArena
			select {
			case ar = <-arenas:
			default:
				ar = new(rowArena)
			}
			defer func() { // after the walk, when its views are gone
				ar.reset()
				select {
				case arenas <- ar:
				default:
				}
			}()
			for _, ci := range order {
				mm, err := fitMulti(ctx, k, trainOf[f], y, nclass, m, s, cs[ci], 1, prev, prevC, ar, cw)
				if err != nil {
					errs[task] = err
					return
				}
				acc[ki][wi*len(cs)+ci][f] = accuracy(mm, k, valOf[f], y, nclass, vb)
				prev, prevC = mm, cs[ci]
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return acc, ctx.Err()
}

// accuracy returns the fraction of the points val (rows of the Gram k)
// that mm classifies as y says, reading the block vb = valBlock(k, val)
// unless it is the zero Matrix. Each unit's decision values at val are
// computed once (unit.valDec): a unit that the next C reuses unchanged
// costs nothing more.
func accuracy[T linalg.Float](mm *multi, k linalg.Matrix[T], val, y []int, nclass int, vb linalg.Matrix[float64]) float64 {
	for ui := range mm.units {
		if u := &mm.units[ui]; u.valDec == nil {
			u.valDec = make([]float64, len(val))
			if vb.Rows > 0 {
				decideBlock(u, u.valDec, vb)
			} else {
				decideAt(u, u.valDec, k, val)
			}
		}
	}
	dec, votes := make([]float64, len(mm.units)), make([]int, nclass)
	right := 0
	for t, i := range val {
		for ui := range mm.units {
			dec[ui] = mm.units[ui].valDec[t]
		}
		if mm.class(dec, votes) == y[i] {
			right++
		}
	}
	return float64(right) / float64(len(val))
}

// choose returns the index of the score the rule picks.
func choose(scores []Score, rule Selection, nfold int) int {
	best := 0
	for i, s := range scores {
		if s.Mean > scores[best].Mean {
			best = i
		}
	}
	if rule == SelectBest {
		return best
	}
	se := scores[best].Std / math.Sqrt(float64(nfold))
	pick := -1
	for i, s := range scores {
		if s.Mean < scores[best].Mean-se-1e-12 {
			continue
		}
		if pick < 0 || s.Depth < scores[pick].Depth || (s.Depth == scores[pick].Depth && s.C < scores[pick].C) {
			pick = i
		}
	}
	return pick
}

// MeanStd returns the mean and the population standard deviation (ddof
// 0) of v, as the CV scores report them.
func MeanStd(v []float64) (mean, std float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(v)))
}

// wantsNNGP reports whether a kernel with f fixed layers is an NNGP of
// depth 1 or more (depth 0, the input kernel, is the ladder's ntk[0]).
func wantsNNGP(kernels []GridKernel, f int) bool {
	for _, k := range kernels {
		if k.Fixed == f && k.Kind == ntk.KindNNGP && k.Depth > 0 {
			return true
		}
	}
	return false
}

// gridSearch cross-validates every point of g on the standardised inputs
// x. When the Grams of every depth fit in memory, one pass of the
// arc-cosine recursion per σ_b and number of fixed layers gives them all
// (ntk.GramLadder); otherwise, or with Options.Float32, each kernel's Gram
// is computed on its own, one at a time. Every C and every fold is a view
// of the Gram.
func gridSearch(ctx context.Context, x linalg.Matrix[float64], y []int, classes []string, folds []int, nfold int, o *Options) (*CVResult, error) {
	g := o.grid()
	nclass, ws := len(classes), g.classWeights()
	res := &CVResult{Rule: o.Select.String(), Folds: nfold}
	kernels := g.Kernels()
	// The deepest kernel of each number of fixed layers, in increasing F.
	deepest := map[int]int{}
	var fixeds []int
	for _, k := range kernels {
		if _, ok := deepest[k.Fixed]; !ok {
			fixeds = append(fixeds, k.Fixed)
		}
		deepest[k.Fixed] = max(deepest[k.Fixed], k.Depth)
	}
	slices.Sort(fixeds)
	maxDepth := slices.Max(g.Depths)
	n := int64(x.Rows)
	ladder := (2*int64(maxDepth) + 2) * n * n * 8
	accs := make([][][]float64, len(kernels))
	for _, bs := range g.BiasStds {
		if o.Float32 || (o.MaxBytes > 0 && ladder > o.MaxBytes) || len(kernels) == 1 {
			for ki, k := range kernels {
				acc, err := cvKernel(ctx, o.spec(k, bs), x, y, classes, folds, nfold, o)
				if err != nil {
					return nil, err
				}
				accs[ki] = acc
			}
		} else {
			for _, f := range fixeds {
				l, err := ntk.GramLadder(ctx, x, o.spec(GridKernel{Depth: deepest[f], Fixed: f}, bs),
					ntk.Options{Threads: o.Threads, NTKOnly: !wantsNNGP(kernels, f)})
				if err != nil {
					return nil, err
				}
				var which []int
				var grams []linalg.Matrix[float64]
				for ki, k := range kernels {
					if k.Fixed != f {
						continue
					}
					gram, err := l.Gram(o.spec(k, bs))
					if err != nil {
						return nil, err
					}
					which, grams = append(which, ki), append(grams, gram)
				}
				acc, err := crossValidateAll(ctx, grams, y, nclass, folds, nfold, g.Cs, ws, classes, o.Machine, o.Scheme, o.threads())
				if err != nil {
					return nil, err
				}
				for i, ki := range which {
					accs[ki] = acc[i]
				}
			}
		}
		for ki, k := range kernels {
			for wi, w := range ws {
				for ci, c := range g.Cs {
					a := accs[ki][wi*len(g.Cs)+ci]
					mean, std := MeanStd(a)
					res.Scores = append(res.Scores, Score{Point: Point{Spec: o.spec(k, bs), C: c, ClassWeight: w},
						KindName: k.Kind.String(), Mean: mean, Std: std, Folds: a})
				}
			}
		}
	}
	res.Chosen = choose(res.Scores, o.Select, nfold)
	return res, nil
}

// cvKernel cross-validates every class weighting and C on the Gram of
// one kernel.
func cvKernel(ctx context.Context, spec ntk.Spec, x linalg.Matrix[float64], y []int, classes []string, folds []int, nfold int, o *Options) ([][]float64, error) {
	g := o.grid()
	if spec.Float32 {
		k, err := gram[float32](ctx, spec, x, o)
		if err != nil {
			return nil, err
		}
		return crossValidate(ctx, k, y, len(classes), folds, nfold, g.Cs, g.classWeights(), classes, o.Machine, o.Scheme, o.threads())
	}
	k, err := gram[float64](ctx, spec, x, o)
	if err != nil {
		return nil, err
	}
	return crossValidate(ctx, k, y, len(classes), folds, nfold, g.Cs, g.classWeights(), classes, o.Machine, o.Scheme, o.threads())
}

// gram computes the Gram of spec on x stored as T, after checking that it
// fits in o.MaxBytes.
func gram[T linalg.Float](ctx context.Context, spec ntk.Spec, x linalg.Matrix[float64], o *Options) (linalg.Matrix[T], error) {
	var zero T
	need := int64(x.Rows) * int64(x.Rows) * int64(unsafe.Sizeof(zero))
	if o.MaxBytes > 0 && need > o.MaxBytes {
		return linalg.Matrix[T]{}, fmt.Errorf("classify: the %d×%d Gram needs %.1f GB as %s, more than the %.1f GB allowed (use float32, fewer examples, or more memory)",
			x.Rows, x.Rows, float64(need)/1e9, spec.Type(), float64(o.MaxBytes)/1e9)
	}
	return ntk.Gram(ctx, spec, linalg.Convert[T](x), ntk.Options{Threads: o.Threads})
}

// ParseDepths parses a list of depths: "3", "1-5", "0,2,4" or a mix
// ("0,2-4").
func ParseDepths(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || b > 100 {
			return nil, fmt.Errorf("classify: depths %q: want numbers 0…100 or ranges such as 1-5, separated by commas", s)
		}
		for d := a; d <= b; d++ {
			out = append(out, d)
		}
	}
	return out, nil
}

// ParseValues parses a list of positive numbers ("0.1,1,10") or a
// logarithmic range LO:HI:N ("1e-2:1e4:7", N values from LO to HI). zeroOK
// admits 0 (σ_b).
func ParseValues(s string, zeroOK bool) ([]float64, error) {
	bad := func() error {
		return fmt.Errorf("classify: values %q: want numbers separated by commas, or LO:HI:N for N values from LO to HI in log scale", s)
	}
	if f := strings.Split(s, ":"); len(f) == 3 {
		lo, err1 := strconv.ParseFloat(f[0], 64)
		hi, err2 := strconv.ParseFloat(f[1], 64)
		n, err3 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil || err3 != nil || !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 0) || n < 1 || n > 1000 {
			return nil, bad()
		}
		return LogGrid(lo, hi, n), nil
	}
	var out []float64
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || (v == 0 && !zeroOK) {
			return nil, bad()
		}
		out = append(out, v)
	}
	return out, nil
}

// ParseKinds parses "ntk", "nngp" or "ntk,nngp".
func ParseKinds(s string) ([]ntk.Kind, error) {
	var out []ntk.Kind
	for _, part := range strings.Split(s, ",") {
		k, err := ntk.ParseKind(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// ParseKernels parses a list of "ntk", "nngp" and "fixed" (Grid.Fixed:
// the NTKs with 1…L−1 fixed layers for every depth L), such as
// "ntk,nngp,fixed", into a grid's Kinds and Fixed.
func ParseKernels(s string) (kinds []ntk.Kind, fixed bool, err error) {
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "fixed" {
			fixed = true
			continue
		}
		k, err := ntk.ParseKind(part)
		if err != nil {
			return nil, false, fmt.Errorf("classify: kernel %q: want ntk, nngp or fixed", part)
		}
		kinds = append(kinds, k)
	}
	return kinds, fixed, nil
}

// Confusion returns the confusion matrix of predicted against true class
// indices: m[t][p] counts the examples of class t predicted as p.
func Confusion(truth, pred []int, nclass int) [][]int {
	m := make([][]int, nclass)
	for i := range m {
		m[i] = make([]int, nclass)
	}
	for i, t := range truth {
		m[t][pred[i]]++
	}
	return m
}
