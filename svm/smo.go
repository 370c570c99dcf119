package svm

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/ntksvm/ntksvm/asm"
)

// DualConfig configures SolveDual, the exact solver of the SVM duals.
//
// The machines and their duals (sum objective λ/2‖β‖² + Σ l, divided by λ
// so that C = 1/λ; Q_ij = yᵢyⱼK_ij; in the kernel expansion αᵢ = yᵢaᵢ):
//
//	Hinge (1-norm soft margin):   max Σa − ½aᵀQa,              0 ≤ a ≤ C
//	SquaredHinge (2-norm):        max Σa − ½aᵀ(Q + I/(2C))a,   0 ≤ a
//	EpsInsensitive (SVR, ε):      max −ε Σ(a+a*) + Σ y(a−a*) − ½(a−a*)ᵀK(a−a*),
//	                              0 ≤ a, a* ≤ C, αᵢ = aᵢ − a*ᵢ
//
// With Bias the machine is g + b and the dual gains the constraint
// Σ yᵢaᵢ = 0 (Σ(aᵢ − a*ᵢ) = 0 for SVR), as in libsvm; without it (the
// paper's homogeneous machine) only the box constraints remain.
//
// The 2-norm shift: the primal ½‖β‖² + C Σ ξᵢ² with yᵢg(xᵢ) ≥ 1 − ξᵢ has
// the Lagrangian stationarity 2Cξᵢ = aᵢ, so Σ aᵢξᵢ − CΣξᵢ² = Σ aᵢ²/(4C)
// and the dual quadratic term becomes ½aᵀ(Q + I/(2C))a: the diagonal
// shift is 1/(2C) = λ/2 for the squared-hinge sum objective with λ.
type DualConfig struct {
	Loss   Loss    // Hinge, SquaredHinge or EpsInsensitive (with its ε)
	Lambda float64 // λ > 0 of the sum objective; C = 1/λ
	Bias   bool    // add the bias b (libsvm's machine)
	// Tol is the target relative duality gap (P − D)/|P|; 0 means 1e-3.
	Tol float64
	// MaxIter bounds the SMO iterations; 0 means max(10⁷, 100·n).
	MaxIter int
	// NoShrink turns off shrinking (for tests; shrinking never changes
	// the result beyond the tolerance).
	NoShrink bool
	// KKT, when positive, replaces the duality-gap target by libsvm's
	// stopping rule: one pass until the maximal violation of the KKT
	// conditions, m(a) − M(a), is below KKT (libsvm's -e, whose default is
	// 1e-3), with libsvm's bias (the mean over the free variables). Model
	// selection, which solves thousands of small problems, uses it.
	KKT float64
	// Init, when not nil, starts SMO from these dual variables instead of
	// 0 (a warm start, e.g. from the solution at a smaller C scaled by the
	// ratio of the C's): one per dual variable (n, or 2n for SVR), each
	// in [0, C], satisfying the bias constraint when Bias is set.
	Init []float64
	// Weights, when not nil, multiply C point by point (libsvm's class
	// weights, -wi: C_c = w_c·C, given here for each training point): the
	// primal becomes ½‖β‖² + C Σ wᵢ l(g(xᵢ), yᵢ), so the hinge and
	// ε-insensitive duals get the box 0 ≤ aᵢ ≤ C·wᵢ (both aᵢ and a*ᵢ for
	// SVR) and the squared hinge the diagonal shift 1/(2C·wᵢ). One finite
	// positive weight per training point.
	Weights []float64
	// InitKa, with Init, is K·α at Init (α the kernel expansion's
	// weights), as DualResult.Ka of the solve that returned Init as its
	// Dual gives it: the solver starts from it instead of computing it (a
	// product with the Gram), the same numbers when Init is that Dual
	// unchanged. It must have one entry per training point.
	InitKa []float64
}

// DualResult is the exact solution and its certificate.
type DualResult struct {
	Machine KernelMachine
	Dual    []float64 // the dual variables a (2n for SVR: a then a*)
	// Primal and Dual objectives in the C-form ½‖β‖² + C Σ wᵢ l (so
	// Primal − DualObj is the duality gap, ≥ 0 up to rounding).
	Primal, DualObj float64
	RelGap          float64 // (Primal − DualObj)/max(|Primal|, 1e-300)
	// Objective is the paper's sum objective λ/2‖β‖² + Σ l = λ·Primal.
	Objective      float64
	Iterations     int
	SupportVectors int  // αᵢ ≠ 0
	Converged      bool // RelGap ≤ Tol
	Outputs        []float64
	// Ka is K·α, the outputs without the bias, for InitKa of a solve
	// warm-started from Dual.
	Ka []float64
}

// SolveDual solves the soft-margin (hinge), 2-norm (squared hinge) or
// ε-insensitive SVM exactly on the training Gram k (n×n, symmetric PSD,
// held in memory or computed on demand: see RowPrefetcher) by SMO with libsvm's second-order working-set selection
// (WSS2 of Fan, Chen and Lin, JMLR 2005) and shrinking; without a bias it
// is greedy dual coordinate descent, two variables at a time (the pair
// with the best second-order gain, its 2-D box QP solved exactly). The KKT
// tolerance starts at 1 and is tightened tenfold until the relative
// duality gap, computed from an exact g = Kα, is at most cfg.Tol; a
// result that misses it (MaxIter, or a tolerance below 1e-14) comes back
// with Converged false and no error. Cancelling ctx returns its error with
// the state reached.
// The bias, when asked for, minimises the primal given β.
func SolveDual(ctx context.Context, k KernelMatrix, y []float64, cfg DualConfig) (*DualResult, error) {
	n, c := k.Dims()
	if n != c {
		return nil, inputErr("training Gram is %d×%d, not square", n, c)
	}
	if len(y) != n {
		return nil, inputErr("%d targets for a Gram of %d points", len(y), n)
	}
	if !(cfg.Lambda > 0) || math.IsInf(cfg.Lambda, 0) {
		return nil, inputErr("λ = %v; the exact SVM needs a finite λ > 0 (C = 1/λ)", cfg.Lambda)
	}
	if !cfg.Loss.Valid() {
		return nil, inputErr("invalid loss %v", cfg.Loss)
	}
	if cfg.Tol < 0 || math.IsNaN(cfg.Tol) {
		return nil, inputErr("tolerance %v; want ≥ 0", cfg.Tol)
	}
	if err := checkLabels(cfg.Loss, y); err != nil {
		return nil, err
	}
	if err := checkWeights(cfg.Weights, n); err != nil {
		return nil, err
	}
	s := &smo{k: k, n: n, y: y, loss: cfg.Loss, bias: cfg.Bias, shrink: !cfg.NoShrink, w: cfg.Weights}
	C := 1 / cfg.Lambda
	switch cfg.Loss.kind {
	case lossHinge:
		s.setup(n, C, 0)
		for t := range n {
			s.idx[t], s.sgn[t], s.p[t] = t, y[t], -1
		}
	case lossSquaredHinge:
		s.setup(n, math.Inf(1), 1/(2*C))
		for t := range n {
			s.idx[t], s.sgn[t], s.p[t] = t, y[t], -1
		}
	case lossEpsInsensitive:
		s.setup(2*n, C, 0)
		for t := range n {
			s.idx[t], s.sgn[t], s.p[t] = t, 1, cfg.Loss.Epsilon-y[t]
			s.idx[n+t], s.sgn[n+t], s.p[n+t] = t, -1, cfg.Loss.Epsilon+y[t]
		}
	default:
		return nil, inputErr("no dual solver for the %s loss (use KRR for squared, subgradient for logistic)", cfg.Loss.Name())
	}
	s.C = C
	s.weigh()
	tol := cfg.Tol
	if tol == 0 {
		tol = 1e-3
	}
	maxIter := cfg.MaxIter
	if maxIter <= 0 {
		maxIter = max(10_000_000, 100*n)
	}
	if d, ok := k.(Diagonal); ok {
		d.DiagTo(s.diag)
	} else {
		for i := range n {
			s.diag[i] = k.At(i, i)
		}
	}
	if cfg.Init != nil {
		if err := s.warmStart(cfg.Init); err != nil {
			return nil, err
		}
	}
	if cfg.InitKa != nil {
		if cfg.Init == nil || len(cfg.InitKa) != n {
			return nil, inputErr("%d values of K·α for %d points (and initial dual variables: %v)", len(cfg.InitKa), n, cfg.Init != nil)
		}
		s.setAlpha()
		copy(s.g, cfg.InitKa)
		s.gradient()
	} else {
		s.reconstruct() // G = Qa + p
	}
	res := &DualResult{}
	if cfg.KKT > 0 {
		s.libsvm = true
		err := s.run(ctx, cfg.KKT, maxIter)
		s.reconstruct()
		s.final = true // s is not used after this certificate
		s.certificate(res)
		res.Converged = err == nil && s.iter < maxIter
		return res, err
	}
	eps := 1.0 // KKT tolerance, tightened tenfold until the gap is small enough
	for {
		err := s.run(ctx, eps, maxIter)
		s.reconstruct()
		s.certificate(res)
		if err != nil {
			return res, err
		}
		if res.RelGap <= tol {
			res.Converged = true
			return res, nil
		}
		if s.iter >= maxIter || eps < 1e-14 {
			return res, nil
		}
		eps /= 10
	}
}

// checkWeights checks DualConfig.Weights: nil, or n finite positive
// numbers.
func checkWeights(w []float64, n int) error {
	if w == nil {
		return nil
	}
	if len(w) != n {
		return inputErr("%d weights for %d training points", len(w), n)
	}
	for i, v := range w {
		if !(v > 0) || math.IsInf(v, 0) {
			return inputErr("weight %d is %v; want a finite number > 0", i, v)
		}
	}
	return nil
}

// smo is the state of the dual solver over nv variables (n, or 2n for SVR):
// variable t is sgn[t]·a[t] on training point idx[t]; the dual minimised is
// ½aᵀQa + pᵀa over 0 ≤ a[t] ≤ ub[t] with Q_ts = sgn_t·sgn_s·K[idx_t, idx_s]
// + shift_t·[t = s] (shift_t is shiftv[t] when the shifts differ, else
// shift).
type smo struct {
	k       KernelMatrix
	n, nv   int
	y       []float64
	loss    Loss
	bias    bool
	shrink  bool
	C       float64   // 1/λ, the primal's loss weight
	w       []float64 // the points' weights of C (nil: all 1)
	ub      []float64 // upper bound of each a[t] (C·w, or +Inf for the 2-norm SVM)
	shift   float64
	shiftv  []float64 // per-variable shifts (weighted 2-norm SVM), else nil
	idx     []int
	sgn, p  []float64
	a, G    []float64
	diag    []float64 // K_ii
	active  []int     // variables not shrunk
	g       []float64 // Kα after reconstruct
	alpha   []float64
	iter    int
	rowI    []float64
	rowJ    []float64
	up, low []bool // t ∈ I_up, t ∈ I_low (kept by status)
	// The same as penalties added to −yₜGₜ, for loops without a branch on
	// membership: upPen[t] is 0 when t ∈ I_up, else −Inf; lowPen[t] is 0
	// when t ∈ I_low, else +Inf.
	upPen, lowPen []float64
	// The selection of i for the next stepPair, computed while updating G.
	nextI    int
	nextGmax float64
	nz       []int // support vectors and their α, for reconstruct
	nzw      []float64
	dense64  *Dense[float64]
	libsvm   bool          // libsvm's bias estimate instead of the primal-optimal one
	final    bool          // the next certificate is the last use of the state
	pf       RowPrefetcher // k's, if it computes rows on demand
	rc       RowCache      // k's, if it keeps rows at hand
	cand     []prefetchCand
	seen     []bool
}

// warmStart sets the dual variables to init after checking them.
func (s *smo) warmStart(init []float64) error {
	if len(init) != s.nv {
		return inputErr("%d initial dual variables for %d", len(init), s.nv)
	}
	var sum, scale float64
	for t, a := range init {
		if !(a >= 0) || a > s.ub[t]*(1+1e-12) {
			return inputErr("initial dual variable %d is %v, outside [0, %v]", t, a, s.ub[t])
		}
		sum += s.sgn[t] * a
		scale += a
	}
	if s.bias && math.Abs(sum) > 1e-9*max(scale, 1) {
		return inputErr("initial dual variables break the bias constraint (Σ yᵢaᵢ = %v)", sum)
	}
	for t, a := range init {
		s.a[t] = min(a, s.ub[t])
	}
	return nil
}

// RowPrefetcher is implemented by a KernelMatrix that computes its rows on
// demand (package svm/ondemand), for which one row costs about as much as
// a block of dozens computed together through the GEMM. When the SMO
// needs a row that is not at hand it asks for a block at once: that row
// and the rows of the variables that violate the optimality conditions
// most, the likeliest members of the next working sets.
type RowPrefetcher interface {
	// Cached reports whether row i is at hand.
	Cached(i int) bool
	// PrefetchRows is the number of rows worth asking for at once.
	PrefetchRows() int
	// Prefetch makes the given rows at hand, computing the missing ones
	// together.
	Prefetch(rows []int)
}

// prefetchCand is a variable and how strongly it violates the optimality
// conditions.
type prefetchCand struct {
	score float64
	t     int
}

func (s *smo) setup(nv int, ub, shift float64) {
	s.nv, s.shift = nv, shift
	// One allocation per element type: a solve on a small sub-problem
	// (cross-validation runs thousands) would otherwise spend much of its
	// time allocating.
	ints := make([]int, 2*nv)
	s.idx, s.active = ints[:nv:nv], ints[nv:nv]
	bools := make([]bool, 2*nv)
	s.up, s.low = bools[:nv:nv], bools[nv:]
	n := s.n
	f := make([]float64, 7*nv+5*n)
	take := func(m int) []float64 {
		r := f[:m:m]
		f = f[m:]
		return r
	}
	s.sgn, s.p, s.a, s.G, s.upPen, s.lowPen = take(nv), take(nv), take(nv), take(nv), take(nv), take(nv)
	s.ub = take(nv)
	for t := range s.ub {
		s.ub[t] = ub
	}
	s.rowI, s.rowJ, s.diag, s.g, s.alpha = take(n), take(n), take(n), take(n), take(n)
	s.nextI = -1
	s.dense64, _ = s.k.(*Dense[float64])
	s.pf, _ = s.k.(RowPrefetcher)
	s.rc, _ = s.k.(RowCache)
}

// weigh applies the points' weights s.w, once idx is set: the upper
// bounds C·wᵢ, or for the 2-norm SVM the shifts 1/(2C·wᵢ).
func (s *smo) weigh() {
	if s.w == nil {
		return
	}
	if s.loss.kind == lossSquaredHinge {
		s.shiftv = make([]float64, s.nv)
		for t := range s.nv {
			s.shiftv[t] = 1 / (2 * s.C * s.w[s.idx[t]])
		}
		return
	}
	for t := range s.nv {
		s.ub[t] = s.C * s.w[s.idx[t]]
	}
}

// sh is the diagonal shift of variable t.
func (s *smo) sh(t int) float64 {
	if s.shiftv != nil {
		return s.shiftv[t]
	}
	return s.shift
}

// row returns K row i as float64 (buf is used for other element types).
func (s *smo) row(i int, buf []float64) []float64 {
	if s.dense64 != nil {
		return s.dense64.M.Row(i)
	}
	if s.rc != nil {
		if r := s.rc.CachedRow(i); r != nil {
			return r
		}
	}
	if s.pf != nil && !s.pf.Cached(i) {
		s.prefetch(i)
	}
	s.k.RowTo(buf, i)
	return buf
}

// prefetch asks s.pf for row i and the rows of the active variables that
// violate the optimality conditions most: with the bias, the largest of
// −yₜGₜ over I_up and yₜGₜ over I_low (the candidates for i and j of the
// working-set selection); without it, the largest |projected gradient|.
// Ties go to the lower index, so the choice depends only on the state.
func (s *smo) prefetch(i int) {
	want := s.pf.PrefetchRows()
	if want <= 1 {
		s.pf.Prefetch([]int{i})
		return
	}
	s.cand = s.cand[:0]
	for _, t := range s.active {
		var score float64
		if s.bias {
			score = math.Inf(-1)
			if s.up[t] {
				score = -s.sgn[t] * s.G[t]
			}
			if s.low[t] {
				score = max(score, s.sgn[t]*s.G[t])
			}
		} else {
			score = math.Abs(s.projGrad(t))
		}
		if !s.pf.Cached(s.idx[t]) && !math.IsInf(score, -1) {
			s.cand = append(s.cand, prefetchCand{score, t})
		}
	}
	slices.SortFunc(s.cand, func(a, b prefetchCand) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.t, b.t)
	})
	if s.seen == nil {
		s.seen = make([]bool, s.n)
	}
	rows := []int{i}
	s.seen[i] = true
	for _, c := range s.cand {
		if len(rows) >= want {
			break
		}
		if r := s.idx[c.t]; !s.seen[r] {
			s.seen[r] = true
			rows = append(rows, r)
		}
	}
	for _, r := range rows {
		s.seen[r] = false
	}
	s.pf.Prefetch(rows)
}

// reconstruct recomputes α, g = Kα and the whole gradient G exactly, and
// makes every variable active.
func (s *smo) reconstruct() {
	s.setAlpha()
	// g = Kα from the rows of the support vectors (K is symmetric) when
	// they are few, else one product.
	if s.nz == nil {
		s.nz, s.nzw = make([]int, 0, s.n), make([]float64, 0, s.n)
	}
	s.nz, s.nzw = s.nz[:0], s.nzw[:0]
	for i, a := range s.alpha {
		if a != 0 {
			s.nz = append(s.nz, i)
			s.nzw = append(s.nzw, a)
		}
	}
	if len(s.nz) < s.n/4 {
		clear(s.g)
		s.k.AddRows(s.g, s.nz, s.nzw)
	} else {
		s.k.MulVec(s.g, s.alpha)
	}
	s.gradient()
}

// setAlpha sets α from the dual variables.
func (s *smo) setAlpha() {
	clear(s.alpha)
	for t, at := range s.a {
		s.alpha[s.idx[t]] += s.sgn[t] * at
	}
}

// gradient sets G from g = Kα and makes every variable active.
func (s *smo) gradient() {
	for t := range s.nv {
		s.G[t] = s.sgn[t]*s.g[s.idx[t]] + s.sh(t)*s.a[t] + s.p[t]
	}
	s.active = s.active[:0]
	for t := range s.nv {
		s.active = append(s.active, t)
		s.status(t)
	}
	s.nextI = -1
}

func (s *smo) inUp(t int) bool  { return s.up[t] }
func (s *smo) inLow(t int) bool { return s.low[t] }

// status recomputes whether t is in I_up (y·a can grow) and I_low (y·a
// can shrink) after a[t] changed.
func (s *smo) status(t int) {
	if s.sgn[t] > 0 {
		s.up[t], s.low[t] = s.a[t] < s.ub[t], s.a[t] > 0
	} else {
		s.up[t], s.low[t] = s.a[t] > 0, s.a[t] < s.ub[t]
	}
	s.upPen[t], s.lowPen[t] = 0, 0
	if !s.up[t] {
		s.upPen[t] = math.Inf(-1)
	}
	if !s.low[t] {
		s.lowPen[t] = math.Inf(1)
	}
}

// run iterates until the maximal KKT violation over all variables is
// below eps, maxIter is reached or ctx is cancelled.
func (s *smo) run(ctx context.Context, eps float64, maxIter int) error {
	shrinkEvery := min(s.nv, 1000)
	counter := shrinkEvery
	// ctx is checked every pollWork variables scanned (a step scans the
	// active set twice): about a millisecond of work, whatever n is.
	const pollWork = 1 << 18
	work := pollWork
	for s.iter < maxIter {
		if work += len(s.active); work >= pollWork {
			work = 0
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if s.shrink {
			counter--
			if counter == 0 {
				counter = shrinkEvery
				s.doShrink()
			}
		}
		var done bool
		if s.bias {
			done = s.stepPair(eps)
		} else {
			done = s.stepSingle(eps)
		}
		if done {
			if len(s.active) == s.nv {
				return nil
			}
			s.reconstruct() // unshrink and check the whole problem
			counter = shrinkEvery
			continue
		}
		s.iter++
	}
	return nil
}

// stepPair does one SMO step with WSS2 on the active set; it reports
// whether the active set already satisfies m(a) − M(a) < eps.
func (s *smo) stepPair(eps float64) bool {
	if s.nv == s.n && s.shiftv == nil {
		return s.stepPairDirect(eps)
	}
	gmax, i := s.nextGmax, s.nextI
	if i < 0 {
		gmax = math.Inf(-1)
		for _, t := range s.active {
			if s.up[t] {
				if v := -s.sgn[t] * s.G[t]; v >= gmax {
					gmax, i = v, t
				}
			}
		}
	}
	s.nextI = -1
	if i < 0 {
		return true
	}
	ki := s.row(s.idx[i], s.rowI)
	qii := s.diag[s.idx[i]] + s.sh(i)
	gmin, j, best := math.Inf(1), -1, math.Inf(1)
	for _, t := range s.active {
		if !s.low[t] {
			continue
		}
		v := -s.sgn[t] * s.G[t]
		gmin = min(gmin, v)
		if b := gmax - v; b > 0 && t != i {
			// a_it = Q_ii + Q_tt − 2yᵢyₜQ_it = K_ii + K_tt − 2K_it + 2·shift.
			quad := qii + s.diag[s.idx[t]] + s.sh(t) - 2*ki[s.idx[t]]
			if quad <= 0 {
				quad = 1e-12
			}
			if obj := -b * b / quad; obj <= best {
				best, j = obj, t
			}
		}
	}
	if j < 0 || gmax-gmin < eps {
		return true
	}
	kj := s.row(s.idx[j], s.rowJ)
	d := s.pairStep(i, j, gmax, qii+s.diag[s.idx[j]]+s.sh(j)-2*ki[s.idx[j]])
	if d <= 0 {
		return true
	}
	// G_t += sgn_t·d·(K[t, i] − K[t, j]) (+ the shift on i and j), and
	// the next i = argmax over I_up of −y_t·G_t in the same pass.
	next, nextMax := -1, math.Inf(-1)
	for _, t := range s.active {
		it := s.idx[t]
		g := s.G[t] + s.sgn[t]*d*(ki[it]-kj[it])
		if t == i {
			g += s.sh(i) * s.sgn[i] * d
		} else if t == j {
			g -= s.sh(j) * s.sgn[j] * d
		}
		s.G[t] = g
		if s.up[t] {
			if v := -s.sgn[t] * g; v >= nextMax {
				next, nextMax = t, v
			}
		}
	}
	s.nextI, s.nextGmax = next, nextMax
	return false
}

// stepPairDirect is stepPair when variable t is training point t (nv =
// n, idx the identity: the hinge and squared-hinge duals) and the shift
// is the same for every variable: the same
// arithmetic and the same choices, read without the index indirection and
// from slices whose length the loops share.
func (s *smo) stepPairDirect(eps float64) bool {
	n := s.n
	G, sgn, diag := s.G[:n], s.sgn[:n], s.diag[:n]
	up := s.up[:n]
	shift := s.shift
	gmax, i := s.nextGmax, s.nextI
	if i < 0 {
		gmax = math.Inf(-1)
		for _, t := range s.active {
			if up[t] {
				if v := -sgn[t] * G[t]; v >= gmax {
					gmax, i = v, t
				}
			}
		}
	}
	s.nextI = -1
	if i < 0 {
		return true
	}
	ki := s.row(i, s.rowI)[:n]
	qii := diag[i] + shift
	// A variable outside I_low has v = +Inf: it leaves gmin as it is and
	// has b = −Inf, so it is never chosen.
	lowPen, upPen := s.lowPen[:n], s.upPen[:n]
	// With every variable active (no shrinking so far) both passes are
	// the SIMD kernels of package asm; the loops below compute the same
	// values (each product rounded, never fused) and make the same choices.
	all := len(s.active) == n
	gmin, j, best := math.Inf(1), -1, math.Inf(1)
	if all {
		j, gmin = asm.SMOSelect64(G, sgn, lowPen, diag, ki, gmax, qii, shift, i)
	} else {
		for _, t := range s.active {
			v := lowPen[t] - float64(sgn[t]*G[t])
			gmin = min(gmin, v)
			if b := gmax - v; b > 0 && t != i {
				quad := qii + diag[t] + shift - 2*ki[t]
				if quad <= 0 {
					quad = 1e-12
				}
				if obj := -b * b / quad; obj <= best {
					best, j = obj, t
				}
			}
		}
	}
	if j < 0 || gmax-gmin < eps {
		return true
	}
	kj := s.row(j, s.rowJ)[:n]
	d := s.pairStep(i, j, gmax, qii+diag[j]+shift-2*ki[j])
	if d <= 0 {
		return true
	}
	if all && shift == 0 {
		s.nextI, s.nextGmax = asm.SMOUpdate64(G, sgn, upPen, ki, kj, d)
		return false
	}
	next, nextMax := -1, math.Inf(-1)
	for _, t := range s.active {
		g := G[t] + float64(float64(sgn[t]*d)*(ki[t]-kj[t]))
		if t == i {
			g += shift * sgn[i] * d
		} else if t == j {
			g -= shift * sgn[j] * d
		}
		G[t] = g
		// Outside I_up, v = −Inf: chosen only while no member of I_up has
		// been seen, and dropped below if none is.
		if v := upPen[t] - float64(sgn[t]*g); v >= nextMax {
			next, nextMax = t, v
		}
	}
	if math.IsInf(nextMax, -1) {
		next = -1
	}
	s.nextI, s.nextGmax = next, nextMax
	return false
}

// pairStep takes the SMO step on the pair (i, j): quad is
// Q_ii + Q_jj − 2yᵢyⱼQ_ij and gmax is −yᵢGᵢ. a_i moves by sgnᵢ·d and a_j by
// −sgnⱼ·d, d the unconstrained minimiser clipped to both boxes. It returns
// d, and moves nothing when d ≤ 0.
func (s *smo) pairStep(i, j int, gmax, quad float64) float64 {
	if quad <= 0 {
		quad = 1e-12
	}
	d := (gmax + s.sgn[j]*s.G[j]) / quad
	capI := s.a[i]
	if s.sgn[i] > 0 {
		capI = s.ub[i] - s.a[i]
	}
	capJ := s.ub[j] - s.a[j]
	if s.sgn[j] > 0 {
		capJ = s.a[j]
	}
	d = min(d, capI, capJ)
	if d <= 0 {
		return d
	}
	s.move(i, s.sgn[i]*d, d == capI)
	s.move(j, -s.sgn[j]*d, d == capJ)
	return d
}

// move adds da to a[t], snapping to the nearer bound when it was the cap.
func (s *smo) move(t int, da float64, capped bool) {
	s.a[t] += da
	if capped {
		if da > 0 {
			s.a[t] = s.ub[t]
		} else {
			s.a[t] = 0
		}
	}
	s.a[t] = min(max(s.a[t], 0), s.ub[t])
	s.status(t)
}

// stepSingle does one step of the box-only dual (no bias) on two
// variables: i is the variable whose exact (clipped) coordinate
// minimisation decreases the dual most (among those whose projected
// gradient exceeds eps), j the one that decreases it most after that
// step; then the two-variable box QP in (i, j) is solved exactly. It
// reports whether no projected gradient exceeds eps.
func (s *smo) stepSingle(eps float64) bool {
	best, i := 0.0, -1
	var newI float64
	for _, t := range s.active {
		if math.Abs(s.projGrad(t)) < eps {
			continue
		}
		na, gain := s.coordinate(t, s.G[t])
		if gain > best || i < 0 {
			best, i, newI = gain, t, na
		}
	}
	if i < 0 {
		return true
	}
	ki := s.row(s.idx[i], s.rowI)
	di := newI - s.a[i]
	ci := s.sgn[i] * di
	best, j := 0.0, -1
	for _, t := range s.active {
		if t == i {
			continue
		}
		// The gradient at t after the step on i.
		if _, gain := s.coordinate(t, s.G[t]+s.sgn[t]*ci*ki[s.idx[t]]); gain > best {
			best, j = gain, t
		}
	}
	var dj float64
	var kj []float64
	if j >= 0 {
		kj = s.row(s.idx[j], s.rowJ)
		h12 := s.sgn[i] * s.sgn[j] * ki[s.idx[j]]
		di, dj = s.box2(i, j, h12)
	}
	if di == 0 && dj == 0 {
		return true
	}
	s.a[i] = min(max(s.a[i]+di, 0), s.ub[i])
	s.status(i)
	ci = s.sgn[i] * di
	for _, t := range s.active {
		s.G[t] += s.sgn[t] * ci * ki[s.idx[t]]
	}
	s.G[i] += s.sh(i) * di
	if dj != 0 {
		s.a[j] = min(max(s.a[j]+dj, 0), s.ub[j])
		s.status(j)
		cj := s.sgn[j] * dj
		for _, t := range s.active {
			s.G[t] += s.sgn[t] * cj * kj[s.idx[t]]
		}
		s.G[j] += s.sh(j) * dj
	}
	return false
}

// box2 minimises gᵀd + ½dᵀHd over the box of variables i and j
// (dₜ ∈ [−aₜ, ub − aₜ]) with H = [[Q_ii, h12], [h12, Q_jj]]: the
// unconstrained minimiser if it is inside, else the best of the minimisers
// along the four edges (the minimum of a convex QP that is not interior
// lies on the boundary).
func (s *smo) box2(i, j int, h12 float64) (di, dj float64) {
	h11 := s.diag[s.idx[i]] + s.sh(i)
	h22 := s.diag[s.idx[j]] + s.sh(j)
	g1, g2 := s.G[i], s.G[j]
	lo1, hi1 := -s.a[i], s.ub[i]-s.a[i]
	lo2, hi2 := -s.a[j], s.ub[j]-s.a[j]
	f := func(x, y float64) float64 { return g1*x + g2*y + (h11*x*x+2*h12*x*y+h22*y*y)/2 }
	if det := h11*h22 - h12*h12; det > 1e-12*h11*h22 {
		x := (-g1*h22 + g2*h12) / det
		y := (-g2*h11 + g1*h12) / det
		if x >= lo1 && x <= hi1 && y >= lo2 && y <= hi2 {
			return x, y
		}
	}
	// 1-D minimiser of c·z + ½h·z² over [lo, hi].
	line := func(c, h, lo, hi float64) float64 {
		switch {
		case h > 0:
			return min(max(-c/h, lo), hi)
		case c < 0:
			return hi
		default:
			return lo
		}
	}
	bestF := 0.0 // d = 0 is feasible
	try := func(x, y float64) {
		if math.IsInf(x, 0) || math.IsInf(y, 0) || math.IsNaN(x) || math.IsNaN(y) {
			return
		}
		if v := f(x, y); v < bestF {
			bestF, di, dj = v, x, y
		}
	}
	for _, x := range []float64{lo1, hi1} {
		try(x, line(g2+h12*x, h22, lo2, hi2))
	}
	for _, y := range []float64{lo2, hi2} {
		try(line(g1+h12*y, h11, lo1, hi1), y)
	}
	return di, dj
}

// coordinate returns the minimiser of the dual along variable t within
// its box, given its gradient g, and the decrease of the dual it gives.
func (s *smo) coordinate(t int, g float64) (na, gain float64) {
	q := s.diag[s.idx[t]] + s.sh(t)
	switch {
	case q > 0:
		na = min(max(s.a[t]-g/q, 0), s.ub[t])
	case g < 0:
		na = s.ub[t]
	default:
		na = 0
	}
	if math.IsInf(na, 1) {
		na = s.a[t] // unbounded direction of a zero kernel row: leave it
	}
	d := na - s.a[t]
	return na, -(g*d + q*d*d/2)
}

// projGrad is the projected gradient of the box-constrained dual at t.
func (s *smo) projGrad(t int) float64 {
	switch g := s.G[t]; {
	case s.a[t] <= 0:
		return min(g, 0)
	case s.a[t] >= s.ub[t]:
		return max(g, 0)
	default:
		return g
	}
}

// doShrink drops from the active set the variables at a bound whose
// gradient says they stay there (libsvm's rule; for the box-only dual, a
// variable at a bound whose projected gradient is 0 and whose gradient
// points outside by more than the current largest violation).
func (s *smo) doShrink() {
	s.nextI = -1
	keep := s.active[:0]
	if s.bias {
		gmax1, gmax2 := math.Inf(-1), math.Inf(-1) // m(a) and −M(a)
		for _, t := range s.active {
			if s.inUp(t) {
				gmax1 = max(gmax1, -s.sgn[t]*s.G[t])
			}
			if s.inLow(t) {
				gmax2 = max(gmax2, s.sgn[t]*s.G[t])
			}
		}
		for _, t := range s.active {
			if !s.shrinkable(t, gmax1, gmax2) {
				keep = append(keep, t)
			}
		}
	} else {
		var worst float64
		for _, t := range s.active {
			worst = max(worst, math.Abs(s.projGrad(t)))
		}
		for _, t := range s.active {
			g := s.G[t]
			if (s.a[t] <= 0 && g > worst) || (s.a[t] >= s.ub[t] && -g > worst) {
				continue
			}
			keep = append(keep, t)
		}
	}
	s.active = keep
}

func (s *smo) shrinkable(t int, gmax1, gmax2 float64) bool {
	g := s.G[t]
	switch {
	case s.a[t] >= s.ub[t]:
		if s.sgn[t] > 0 {
			return -g > gmax1
		}
		return -g > gmax2
	case s.a[t] <= 0:
		if s.sgn[t] > 0 {
			return g > gmax2
		}
		return g > gmax1
	}
	return false
}

// certificate fills res from the exact state after reconstruct.
func (s *smo) certificate(res *DualResult) {
	var f float64
	for t, at := range s.a {
		f += at * (s.G[t] + s.p[t])
	}
	dual := -f / 2
	b := 0.0
	switch {
	case s.bias && s.libsvm:
		b = s.libsvmBias()
	case s.bias:
		b = s.bestBias()
	}
	var reg, loss float64
	for i, a := range s.alpha {
		reg += a * s.g[i]
		if s.w != nil {
			loss += s.w[i] * s.loss.Value(s.g[i]+b, s.y[i])
		} else {
			loss += s.loss.Value(s.g[i]+b, s.y[i])
		}
	}
	primal := reg/2 + s.C*loss
	if s.final {
		// The last certificate of a solve hands its vectors over rather
		// than copying them.
		res.Machine = KernelMachine{Alpha: s.alpha, Bias: b}
		res.Dual, res.Ka = s.a, s.g
	} else {
		res.Machine = KernelMachine{Alpha: append([]float64(nil), s.alpha...), Bias: b}
		res.Dual = append(res.Dual[:0], s.a...)
		res.Ka = append(res.Ka[:0], s.g...)
	}
	res.Primal, res.DualObj = primal, dual
	res.RelGap = (primal - dual) / max(math.Abs(primal), 1e-300)
	res.Objective = primal / s.C
	res.Iterations = s.iter
	res.SupportVectors = 0
	for _, a := range s.alpha {
		if a != 0 {
			res.SupportVectors++
		}
	}
	res.Outputs = make([]float64, s.n)
	for i, v := range s.g {
		res.Outputs[i] = v + b
	}
}

// libsvmBias is libsvm's estimate of b: minus the mean of yᵢ∇ᵢ over the
// free variables, or the middle of the bounds the others give.
func (s *smo) libsvmBias() float64 {
	var sum float64
	nfree := 0
	ubv, lbv := math.Inf(1), math.Inf(-1)
	for t := range s.nv {
		yg := s.sgn[t] * s.G[t]
		switch {
		case s.a[t] > 0 && s.a[t] < s.ub[t]:
			sum += yg
			nfree++
		case (s.sgn[t] > 0) == (s.a[t] >= s.ub[t]):
			lbv = max(lbv, yg)
		default:
			ubv = min(ubv, yg)
		}
	}
	var b0 float64
	switch {
	case nfree > 0:
		b0 = -sum / float64(nfree)
	case !math.IsInf(ubv, 0) && !math.IsInf(lbv, 0):
		b0 = -(ubv + lbv) / 2
	}
	return b0
}

// bestBias returns the b minimising Σ wᵢ l(gᵢ + b, yᵢ): libsvm's estimate
// from the free variables, refined by golden-section search on the convex
// function of b when that lowers it.
func (s *smo) bestBias() float64 {
	b0 := s.libsvmBias()
	// F is called about 90 times per certificate: the hinge loss is
	// written out (the same arithmetic as Loss.Value, so the same sums),
	// and each value is computed once.
	y := s.y[:len(s.g)]
	F := func(b float64) float64 {
		var v float64
		if s.w != nil {
			for i, gi := range s.g {
				v += s.w[i] * s.loss.Value(gi+b, y[i])
			}
			return v
		}
		if s.loss.kind == lossHinge {
			for i, gi := range s.g {
				v += max(0, 1-y[i]*(gi+b))
			}
			return v
		}
		for i, gi := range s.g {
			v += s.loss.Value(gi+b, y[i])
		}
		return v
	}
	lo, hi := b0-1, b0+1
	fb0 := F(b0)
	for range 60 { // widen until the minimum is inside
		flo, fhi := F(lo), F(hi)
		if flo > fb0 && fhi > fb0 {
			break
		}
		if flo <= fb0 {
			lo = b0 - 2*(b0-lo)
		}
		if fhi <= fb0 {
			hi = b0 + 2*(hi-b0)
		}
	}
	const r = 0.6180339887498949
	x1, x2 := hi-r*(hi-lo), lo+r*(hi-lo)
	f1, f2 := F(x1), F(x2)
	for range 80 {
		if f1 <= f2 {
			hi, x2, f2 = x2, x1, f1
			x1 = hi - r*(hi-lo)
			f1 = F(x1)
		} else {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + r*(hi-lo)
			f2 = F(x2)
		}
	}
	best := (lo + hi) / 2
	if F(best) < fb0 {
		return best
	}
	return b0
}

// String describes the result in one line.
func (r *DualResult) String() string {
	return fmt.Sprintf("primal %.10g dual %.10g rel. gap %.3g, %d iterations, %d support vectors, b = %.6g",
		r.Primal, r.DualObj, r.RelGap, r.Iterations, r.SupportVectors, r.Machine.Bias)
}
