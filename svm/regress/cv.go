package regress

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/ntksvm/ntksvm/internal/rng"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/classify"
)

// Grid is what cross-validation chooses from: the kernels, depths, σ_b
// and C of a classify.Grid (KRR's ridge is 1/C), and for SVR every ε of
// Epsilons with each of them.
type Grid struct {
	classify.Grid
	// Epsilons are SVR's ε, in units of the targets' standard deviation
	// (of the targets themselves with Options.NoTargetScaling); KRR
	// ignores them.
	Epsilons []float64
}

// DefaultEpsilons are the ε of DefaultGrid: a tube of 1 %, 10 % and 50 %
// of the targets' standard deviation (scikit-learn's SVR defaults to
// ε = 0.1 on targets it does not scale).
func DefaultEpsilons() []float64 { return []float64{0.01, 0.1, 0.5} }

// DefaultGrid is classify.DefaultGrid (the NTK of depth 1…5, σ_b ∈ {0,
// 0.5, 1, 2}) with C = 10⁻³…10⁴ (DefaultCs) and DefaultEpsilons.
func DefaultGrid() Grid {
	g := Grid{Grid: classify.DefaultGrid(), Epsilons: DefaultEpsilons()}
	g.Cs = DefaultCs()
	return g
}

// DefaultCs are the C of DefaultGrid: 10⁻³…10⁴, one per decade, a decade
// below the classifier's: noisy targets want strong regularisation (on
// scikit-learn's diabetes data ε-SVR's best CV point is at C = 10⁻²).
func DefaultCs() []float64 { return classify.LogGrid(1e-3, 1e4, 8) }

// epsilons returns the ε values machine m runs through: one 0 for KRR.
func (g Grid) epsilons(m Machine) []float64 {
	if m == KRR {
		return []float64{0}
	}
	return g.Epsilons
}

// Points returns the grid's points for machine m in grid order: σ_b
// outermost, then the kernels (classify.Grid.Kernels), then ε, then C.
func (g Grid) Points(m Machine) []Point {
	var out []Point
	for _, bs := range g.BiasStds {
		for _, k := range g.Kernels() {
			for _, eps := range g.epsilons(m) {
				for _, c := range g.Cs {
					out = append(out, Point{Kind: k.Kind, Depth: k.Depth, Fixed: k.Fixed, BiasStd: bs, C: c, Epsilon: eps})
				}
			}
		}
	}
	return out
}

// validate checks the grid for machine m.
func (g Grid) validate(m Machine) error {
	if err := g.Grid.Validate(); err != nil {
		return fmt.Errorf("regress: %w", err)
	}
	if m == SVR && len(g.Epsilons) == 0 {
		return fmt.Errorf("regress: SVR's grid has no ε")
	}
	for _, e := range g.Epsilons {
		if !(e >= 0) || math.IsInf(e, 0) {
			return fmt.Errorf("regress: ε %v: want a finite number ≥ 0", e)
		}
	}
	return nil
}

// Point is one grid point.
type Point struct {
	Kind    ntk.Kind `json:"-"`
	Depth   int      `json:"depth"`
	Fixed   int      `json:"fixed,omitempty"`
	BiasStd float64  `json:"sigma_b"`
	C       float64  `json:"c"`
	Epsilon float64  `json:"epsilon,omitempty"` // SVR
}

// Spec returns the kernel of p with σ_w given.
func (p Point) Spec(weightStd float64) ntk.Spec {
	return ntk.Spec{Kind: p.Kind, Depth: p.Depth, Fixed: p.Fixed, WeightStd: weightStd, BiasStd: p.BiasStd}
}

// Score is a grid point's cross-validated mean squared error, in the
// targets' units: its mean and population standard deviation over the
// folds (and repeats), and RMSE = √Mean.
type Score struct {
	Point
	KindName string    `json:"kernel"`
	Mean     float64   `json:"mse"`
	Std      float64   `json:"mse_std"`
	RMSE     float64   `json:"rmse"`
	Folds    []float64 `json:"folds"`
}

// CVResult is the table of a cross-validation and the point it chose.
type CVResult struct {
	Scores []Score `json:"scores"`
	Chosen int     `json:"chosen"` // index into Scores
	Rule   string  `json:"rule"`
	Folds  int     `json:"folds"`
}

// KFolds assigns each of n examples to one of k folds: the examples,
// shuffled with the seed, are dealt to the folds in turn (fold sizes
// differ by at most one). It fails when n < k.
func KFolds(n, k int, seed uint64) ([]int, error) {
	if k < 2 {
		return nil, fmt.Errorf("regress: %d folds: want at least 2", k)
	}
	if n < k {
		return nil, fmt.Errorf("regress: %d examples, fewer than the %d folds", n, k)
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	r := rng.SplitMix64(seed)
	for i := n - 1; i > 0; i-- {
		j := int(rng.Below(&r, uint64(i+1)))
		idx[i], idx[j] = idx[j], idx[i]
	}
	fold := make([]int, n)
	for t, i := range idx {
		fold[i] = t % k
	}
	return fold, nil
}

// crossValidate scores every point of the grid on the standardised inputs
// xs and scaled targets z (scale converts their squared errors back to
// the targets' units), with o's folds, and chooses by o's rule.
func crossValidate(ctx context.Context, xs linalg.Matrix[float64], z []float64, scale float64, o *Options) (*CVResult, error) {
	var assignments [][]int
	nfold := o.folds()
	if o.FoldOf != nil {
		if len(o.FoldOf) != len(z) {
			return nil, fmt.Errorf("regress: %d fold assignments for %d examples", len(o.FoldOf), len(z))
		}
		nfold = 0
		for _, f := range o.FoldOf {
			if f < 0 {
				return nil, fmt.Errorf("regress: fold %d: want ≥ 0", f)
			}
			nfold = max(nfold, f+1)
		}
		counts := make([]int, nfold)
		for _, f := range o.FoldOf {
			counts[f]++
		}
		for f, c := range counts {
			if c == 0 || c == len(z) {
				return nil, fmt.Errorf("regress: fold %d has %d of the %d examples: every fold needs some, and so does the rest", f, c, len(z))
			}
		}
		assignments = [][]int{o.FoldOf}
	} else {
		for rep := range max(o.Repeats, 1) {
			f, err := KFolds(len(z), nfold, o.Seed+uint64(rep))
			if err != nil {
				return nil, err
			}
			assignments = append(assignments, f)
		}
	}
	g := o.grid()
	points := g.Points(o.Machine)
	mse := make([][]float64, len(points)) // [point][fold of every repeat]
	byKernel := map[kernelKey][]int{}     // the points of each kernel, in grid order
	var kernels []kernelKey
	for pi, p := range points {
		key := kernelKey{p.Kind, p.Depth, p.Fixed, p.BiasStd}
		if _, ok := byKernel[key]; !ok {
			kernels = append(kernels, key)
		}
		byKernel[key] = append(byKernel[key], pi)
	}
	ladder, err := planMemory(len(z), nfold, g, o)
	if err != nil {
		return nil, err
	}
	for _, bs := range g.BiasStds {
		var grams map[classify.GridKernel]linalg.Matrix[float64]
		if ladder {
			if grams, err = gramsAt(ctx, xs, g, bs, o); err != nil {
				return nil, err
			}
		}
		for _, key := range kernels {
			if key.biasStd != bs {
				continue
			}
			k := grams[gridKernel(key)]
			if !ladder {
				if k, err = gram(ctx, Point{Kind: key.kind, Depth: key.depth, Fixed: key.fixed, BiasStd: bs}.Spec(o.weightStd()), xs, o); err != nil {
					return nil, err
				}
			}
			for _, folds := range assignments {
				errs, err := cvKernel(ctx, k, z, folds, nfold, points, byKernel[key], o)
				if err != nil {
					return nil, err
				}
				for t, pi := range byKernel[key] {
					for _, e := range errs[t] {
						mse[pi] = append(mse[pi], e*scale*scale)
					}
				}
			}
		}
	}
	res := &CVResult{Rule: o.Select.String(), Folds: nfold * len(assignments)}
	for pi, p := range points {
		mean, std := classify.MeanStd(mse[pi])
		res.Scores = append(res.Scores, Score{Point: p, KindName: p.Kind.String(), Mean: mean, Std: std, RMSE: math.Sqrt(mean), Folds: mse[pi]})
	}
	res.Chosen = choose(res.Scores, o.Select, res.Folds)
	return res, ctx.Err()
}

// kernelKey names one kernel of the grid.
type kernelKey struct {
	kind         ntk.Kind
	depth, fixed int
	biasStd      float64
}

// gridKernel returns the classify.GridKernel of a kernel key.
func gridKernel(k kernelKey) classify.GridKernel {
	return classify.GridKernel{Kind: k.kind, Depth: k.depth, Fixed: k.fixed}
}

// planMemory reports whether cross-validation on n examples in nfold
// folds computes the Grams of every depth at once (ntk.GramLadder: when
// there are several kernels and they fit o.MaxBytes) or one kernel at a
// time, and refuses, before anything large is allocated, a
// cross-validation whose Gram and folds' work (on each thread, a fold's
// training Gram, KRR's factor of it and its validation block) do not fit.
func planMemory(n, nfold int, g Grid, o *Options) (ladder bool, err error) {
	nn, ntr := int64(n), int64(n-n/nfold)
	work := int64(min(o.threads(), nfold)) * (2*ntr*ntr + (nn-ntr)*ntr) * 8
	all := (2*int64(slices.Max(g.Depths)) + 2) * nn * nn * 8
	if len(g.Kernels()) > 1 && (o.MaxBytes <= 0 || all+work <= o.MaxBytes) {
		return true, nil
	}
	if need := nn*nn*8 + work; o.MaxBytes > 0 && need > o.MaxBytes {
		return false, fmt.Errorf("regress: cross-validation on %d examples needs %.2f GB (the %d×%d Gram and each thread's fold), more than the %.2f GB allowed (use fewer examples, fewer threads, or more memory)",
			n, float64(need)/1e9, n, n, float64(o.MaxBytes)/1e9)
	}
	return false, nil
}

// gramsAt returns the Gram of every kernel of g at σ_b = bs on xs, by one
// pass of the recursion per number of fixed layers (ntk.GramLadder).
func gramsAt(ctx context.Context, xs linalg.Matrix[float64], g Grid, bs float64, o *Options) (map[classify.GridKernel]linalg.Matrix[float64], error) {
	out := map[classify.GridKernel]linalg.Matrix[float64]{}
	kernels := g.Kernels()
	deepest := map[int]int{}
	for _, k := range kernels {
		deepest[k.Fixed] = max(deepest[k.Fixed], k.Depth)
	}
	for f, depth := range deepest {
		l, err := ntk.GramLadder(ctx, xs, Point{Depth: depth, Fixed: f, BiasStd: bs}.Spec(o.weightStd()), ntk.Options{Threads: o.Threads})
		if err != nil {
			return nil, err
		}
		for _, k := range kernels {
			if k.Fixed != f {
				continue
			}
			if out[k], err = l.Gram(Point{Kind: k.Kind, Depth: k.Depth, Fixed: k.Fixed, BiasStd: bs}.Spec(o.weightStd())); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// gram computes the Gram of spec on x, after checking that it fits in
// o.MaxBytes.
func gram(ctx context.Context, spec ntk.Spec, x linalg.Matrix[float64], o *Options) (linalg.Matrix[float64], error) {
	need := int64(x.Rows) * int64(x.Rows) * 8
	if o.MaxBytes > 0 && need > o.MaxBytes {
		return linalg.Matrix[float64]{}, fmt.Errorf("regress: the %d×%d Gram needs %.1f GB, more than the %.1f GB allowed (use fewer examples or more memory)",
			x.Rows, x.Rows, float64(need)/1e9, float64(o.MaxBytes)/1e9)
	}
	return ntk.Gram(ctx, spec, x, ntk.Options{Threads: o.Threads})
}

// cvKernel returns, for each point pts[t] (all on the Gram k), the mean
// squared error of the scaled targets z on each validation fold:
// errs[t][f]. The folds run on up to o.threads() goroutines; each walks
// the C values upwards, SVR's solves warm-started from the one before.
func cvKernel(ctx context.Context, k linalg.Matrix[float64], z []float64, folds []int, nfold int, points []Point, pts []int, o *Options) ([][]float64, error) {
	errs := make([][]float64, len(pts))
	for t := range errs {
		errs[t] = make([]float64, nfold)
	}
	// The points of each ε, by increasing C.
	byEps := map[float64][]int{}
	var epss []float64
	for t, pi := range pts {
		e := points[pi].Epsilon
		if _, ok := byEps[e]; !ok {
			epss = append(epss, e)
		}
		byEps[e] = append(byEps[e], t)
	}
	for _, e := range epss {
		slices.SortStableFunc(byEps[e], func(a, b int) int { return cmp.Compare(points[pts[a]].C, points[pts[b]].C) })
	}
	fail := make([]error, nfold)
	var wg sync.WaitGroup
	sem := make(chan struct{}, min(o.threads(), nfold))
	for f := range nfold {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			var train, val []int
			for i, g := range folds {
				if g == f {
					val = append(val, i)
				} else {
					train = append(train, i)
				}
			}
			ktr, kval := sub(k, train, train), sub(k, val, train)
			ztr := make([]float64, len(train))
			for s, i := range train {
				ztr[s] = z[i]
			}
			kd := svm.NewDense(ktr)
			pred := make([]float64, len(val))
			for _, e := range epss {
				var prev *fitted
				for _, t := range byEps[e] {
					p := points[pts[t]]
					m, err := fitMachine(ctx, kd, ztr, o.Machine, p.C, p.Epsilon, o.tol(), prev)
					if err != nil {
						fail[f] = fmt.Errorf("regress: fold %d, %s, C = %g: %w", f, p.Spec(o.weightStd()), p.C, err)
						return
					}
					for v := range val {
						pred[v] = dot(m.alpha, kval.Row(v), m.bias)
					}
					var s float64
					for v, i := range val {
						d := pred[v] - z[i]
						s += d * d
					}
					errs[t][f] = s / float64(len(val))
					prev = m
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range fail {
		if err != nil {
			return nil, err
		}
	}
	return errs, ctx.Err()
}

// sub returns the rows rows and columns cols of k as a new matrix.
func sub(k linalg.Matrix[float64], rows, cols []int) linalg.Matrix[float64] {
	m := linalg.New[float64](len(rows), len(cols))
	for r, i := range rows {
		src, dst := k.Row(i), m.Row(r)
		for c, j := range cols {
			dst[c] = src[j]
		}
	}
	return m
}

// fitted is one machine over the columns of a training Gram, with SVR's
// dual solution for a warm start.
type fitted struct {
	alpha []float64
	bias  float64
	c     float64
	dual  []float64
	ka    []float64
}

// fitMachine fits machine m with constant c (and ε) on the training Gram
// k with targets z. KRR solves (K + I/C)α = z by Cholesky; SVR solves
// libsvm's ε-SVR dual with a bias by SMO to the KKT tolerance tol,
// starting from prev's dual variables when prev was fitted at a smaller C
// with the same ε (feasible: the box [0, C] only grows).
func fitMachine(ctx context.Context, k *svm.Dense[float64], z []float64, m Machine, c, eps, tol float64, prev *fitted) (*fitted, error) {
	if m == KRR {
		km, err := svm.KRR(ctx, k, z, 1/c)
		if err != nil {
			return nil, err
		}
		return &fitted{alpha: km.Alpha, c: c}, nil
	}
	cfg := svm.DualConfig{Loss: svm.EpsInsensitiveLoss(eps), Lambda: 1 / c, Bias: true, KKT: tol}
	if prev != nil && prev.c <= c && prev.dual != nil {
		cfg.Init, cfg.InitKa = prev.dual, prev.ka
	}
	res, err := svm.SolveDual(ctx, k, z, cfg)
	if err != nil {
		return nil, err
	}
	return &fitted{alpha: res.Machine.Alpha, bias: res.Machine.Bias, c: c, dual: res.Dual, ka: res.Ka}, nil
}

// choose returns the index of the score the rule picks: the smallest
// mean squared error (the first in grid order on ties), or with
// classify.SelectOneSE, among the points within one standard error of it,
// the simplest: fewest layers, then smallest C, then widest ε.
func choose(scores []Score, rule classify.Selection, nfold int) int {
	best := 0
	for i, s := range scores {
		if s.Mean < scores[best].Mean {
			best = i
		}
	}
	if rule == classify.SelectBest {
		return best
	}
	se := scores[best].Std / math.Sqrt(float64(nfold))
	pick := -1
	for i, s := range scores {
		if s.Mean > scores[best].Mean+se+1e-12*scores[best].Mean {
			continue
		}
		if pick < 0 {
			pick = i
			continue
		}
		p := scores[pick]
		if c := cmp.Or(cmp.Compare(s.Depth, p.Depth), cmp.Compare(s.C, p.C), cmp.Compare(p.Epsilon, s.Epsilon)); c < 0 {
			pick = i
		}
	}
	return pick
}
