package eigenpro

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/ntksvm/ntksvm/internal/rng"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// precond is the Nyström preconditioner (3) and the plan chosen with it.
type precond struct {
	s, q   int
	sub    []int                  // the subsample's training indices, ascending
	pos    []int                  // training index → position in sub, or −1
	e      linalg.Matrix[float64] // q×s: row j is e_j, the eigenvector of σ_j
	dscale []float64              // D of (4)
	plan   Plan
}

// precondition draws the subsample, computes the eigenpairs of K'_S and
// chooses q, the batch and the step (package doc, (3) and (5)).
func (e *epro) precondition(ctx context.Context, s int, cfg Config, maxBatch int) (*precond, error) {
	n := e.n
	pc := &precond{s: s, sub: rng.Subset(n, s, cfg.Seed^0x5bd1e9955bd1e995), pos: make([]int, n)}
	for i := range pc.pos {
		pc.pos[i] = -1
	}
	for t, p := range pc.sub {
		pc.pos[p] = t
	}
	xs := gather(e.x, pc.sub, make([]float32, s*e.d))
	ps, err := ntk.Prepare(xs, e.spec)
	if err != nil {
		return nil, err
	}
	ks32 := linalg.New[float32](s, s)
	same := make([]int, s)
	for i := range same {
		same[i] = i
	}
	if err := ps.Into(ctx, xs, same, ntk.Options{}, ks32); err != nil {
		return nil, err
	}
	ks := linalg.New[float64](s, s)
	for i, v := range ks32.Data {
		ks.Data[i] = float64(v)
	}
	ks32 = linalg.Matrix[float32]{}
	kdiag := make([]float64, s)
	for t := range s {
		ks.Data[t*s+t] += e.shift
		kdiag[t] = ks.Data[t*s+t]
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	qmax := min(s/4, DefaultMaxComponents)
	switch {
	case cfg.Components > 0:
		qmax = min(cfg.Components, s-1)
	case cfg.Components < 0:
		qmax = 0
	}
	r := min(s, qmax+1+max(16, qmax/2))
	vals, vecs, err := topEigen(ctx, ks, r, cfg.Seed)
	if err != nil {
		return nil, fmt.Errorf("eigenpro: the subsample's eigenpairs: %w", err)
	}
	qmax = min(qmax, len(vals)-1)
	// σ_j (descending) and e_j (rows of vecs).
	sigma := make([]float64, len(vals))
	for j, v := range vals {
		sigma[j] = v / float64(s)
	}
	if !(sigma[0] > 0) {
		return nil, fmt.Errorf("eigenpro: the kernel on the subsample has no positive eigenvalue (%v)", sigma[0])
	}
	vec := func(j int) []float64 { return vecs.Row(j) }
	// ke holds K'_S·e_j in row j: s·σ_j·e_j for exact eigenpairs, and what
	// the preconditioner (4) applies whether or not they are.
	ke := linalg.New[float64](vecs.Rows, s)
	if err := linalg.Gemm(linalg.NoTrans, linalg.NoTrans, 1, vecs, ks, 0, ke); err != nil {
		return nil, err
	}
	// β(q) = max_t (K'_S − K'_S·E·D·Eᵀ·K'_S)_tt = max_t K'_tt − A_t + τ·B_t
	// with u_jt = (K'_S·e_j)_t, A_t = Σ u_jt²/(s·σ_j), B_t = Σ u_jt²/(s·σ_j²),
	// τ = σ_{q+1}.
	a, b := make([]float64, s), make([]float64, s)
	beta := func(q int) float64 {
		tau := sigma[q]
		var m float64
		for t := range s {
			m = max(m, kdiag[t]-a[t]+tau*b[t])
		}
		return m
	}
	q := 0
	bq := beta(0)
	for j := 0; j < qmax; j++ {
		if !(sigma[j+1] > 0) {
			break
		}
		for t, u := range ke.Row(j) {
			a[t] += u * u / (float64(s) * sigma[j])
			b[t] += u * u / (float64(s) * sigma[j] * sigma[j])
		}
		bj := beta(j + 1)
		if cfg.Components == 0 && cfg.Batch == 0 && bj/sigma[j+1] > float64(maxBatch) {
			break
		}
		if cfg.Components == 0 && cfg.Batch > 0 && bj/sigma[j+1] > float64(cfg.Batch) {
			break
		}
		q, bq = j+1, bj
	}
	tau := sigma[q]
	// The Ritz pairs of a slowly decaying spectrum are not exact: the
	// preconditioned kernel's top eigenvalue on the subsample (Lanczos)
	// replaces τ in the batch and the step when it is larger.
	top, err := preconditionedTop(ctx, ks, ke, sigma, q, cfg.Seed)
	if err != nil {
		return nil, err
	}
	tauStep := max(tau, top)
	ks = linalg.Matrix[float64]{}
	m := cfg.Batch
	if m == 0 {
		m = int(math.Ceil(bq / tauStep))
		m = max(1, min(m, maxBatch, n))
	}
	m = min(m, n)
	scale := cfg.StepScale
	if scale == 0 {
		scale = 1
	}
	pc.q = q
	pc.e = linalg.New[float64](q, s)
	pc.dscale = make([]float64, q)
	for j := range q {
		copy(pc.e.Row(j), vec(j))
		pc.dscale[j] = (1 - tau/sigma[j]) / (float64(s) * sigma[j])
	}
	pc.plan = Plan{N: n, Outputs: e.k, Subsample: s, Components: q, Batch: m, Beta: bq, Tau: tauStep, Top: sigma[0],
		StepScale: scale, Step: scale * float64(m) / (bq + float64(m-1)*tauStep)}
	return pc, nil
}

// exactEigenMax is the largest subsample whose eigenpairs are all computed
// (linalg.EigenSym, O(s³) without blocking); larger ones get the top r by
// subspace iteration, whose work is GEMMs.
const exactEigenMax = 600

// powerSteps is the number of subspace iteration steps: the Ritz values
// of the top q directions of a kernel's spectrum are then within a few
// per cent, and the step (5) keeps a factor of about two in hand.
const powerSteps = 8

// topEigen returns the r largest eigenvalues of the symmetric s×s matrix
// a (descending) and their unit eigenvectors as the rows of an r×s
// matrix, all of them for s ≤ exactEigenMax and by subspace iteration
// (Halko, Martinsson and Tropp, SIAM Review 2011, Algorithm 4.4, with
// Cholesky QR twice for the orthonormalisation) otherwise.
func topEigen(ctx context.Context, a linalg.Matrix[float64], r int, seed uint64) ([]float64, linalg.Matrix[float64], error) {
	s := a.Rows
	if s <= exactEigenMax || r >= s/2 {
		vals, vecs, err := eigenSym(ctx, a)
		if err != nil {
			return nil, linalg.Matrix[float64]{}, err
		}
		r = min(r, s)
		out := linalg.New[float64](r, s)
		top := make([]float64, r)
		for j := range r {
			top[j] = vals[s-1-j]
			copy(out.Row(j), vecs.Row(s-1-j))
		}
		return top, out, nil
	}
	g := rng.SplitMix64(seed ^ 0x2545f4914f6cdd1d)
	v := linalg.New[float64](r, s)
	for i := range v.Data {
		v.Data[i] = float64(g.Uint64()>>11)/(1<<53) - 0.5
	}
	w := linalg.New[float64](r, s)
	gram := linalg.New[float64](r, r)
	orth := func(x linalg.Matrix[float64]) error {
		for range 2 {
			if err := linalg.Gemm(linalg.NoTrans, linalg.Trans, 1, x, x, 0, gram); err != nil {
				return err
			}
			var tr float64
			for i := range r {
				tr += gram.At(i, i)
			}
			for i := range r {
				gram.Set(i, i, gram.At(i, i)+1e-14*tr/float64(r))
			}
			if err := linalg.Cholesky(gram); err != nil {
				return err
			}
			if err := linalg.SolveLower(linalg.NoTrans, gram, x); err != nil {
				return err
			}
		}
		return nil
	}
	if err := orth(v); err != nil {
		return nil, linalg.Matrix[float64]{}, err
	}
	for range powerSteps {
		if err := ctx.Err(); err != nil {
			return nil, linalg.Matrix[float64]{}, err
		}
		if err := linalg.Gemm(linalg.NoTrans, linalg.NoTrans, 1, v, a, 0, w); err != nil {
			return nil, linalg.Matrix[float64]{}, err
		}
		v, w = w, v
		if err := orth(v); err != nil {
			return nil, linalg.Matrix[float64]{}, err
		}
	}
	// Rayleigh–Ritz: B = V·A·Vᵀ = W·Z·Wᵀ, eigenvectors Zᵀ·V.
	if err := linalg.Gemm(linalg.NoTrans, linalg.NoTrans, 1, v, a, 0, w); err != nil {
		return nil, linalg.Matrix[float64]{}, err
	}
	b := linalg.New[float64](r, r)
	if err := linalg.Gemm(linalg.NoTrans, linalg.Trans, 1, w, v, 0, b); err != nil {
		return nil, linalg.Matrix[float64]{}, err
	}
	for i := range r {
		for j := range i {
			m := (b.At(i, j) + b.At(j, i)) / 2
			b.Set(i, j, m)
			b.Set(j, i, m)
		}
	}
	vals, z, err := eigenSym(ctx, b)
	if err != nil {
		return nil, linalg.Matrix[float64]{}, err
	}
	zt := linalg.New[float64](r, r) // rows descending
	top := make([]float64, r)
	for j := range r {
		top[j] = vals[r-1-j]
		copy(zt.Row(j), z.Row(r-1-j))
	}
	if err := linalg.Gemm(linalg.NoTrans, linalg.NoTrans, 1, zt, v, 0, w); err != nil {
		return nil, linalg.Matrix[float64]{}, err
	}
	return top, w, nil
}

// preconditionedTop returns the largest eigenvalue of the preconditioned
// kernel on the subsample, (K'_S − K'_S·E·D·Eᵀ·K'_S)/s with D of (4) (ke
// holding K'_S·e_j in row j), by Lanczos (its upper bound): τ when the
// eigenpairs are exact.
func preconditionedTop(ctx context.Context, ks, ke linalg.Matrix[float64], sigma []float64, q int, seed uint64) (float64, error) {
	s := ks.Rows
	tau := sigma[q]
	mul := func(dst, x []float64) {
		_ = linalg.Gemv(linalg.NoTrans, 1, ks, x, 0, dst)
		for j := range q {
			var p float64
			for t, v := range ke.Row(j) {
				p += v * x[t]
			}
			d := (1 - tau/sigma[j]) / (float64(s) * sigma[j])
			linalg.Axpy(-d*p, ke.Row(j), dst)
		}
		for t := range dst {
			dst[t] /= float64(s)
		}
	}
	r, err := linalg.Lanczos(ctx, s, mul, linalg.LanczosOptions{Tol: 1e-3, MaxIter: min(s, 200), Seed: seed})
	if err != nil && !errors.Is(err, linalg.ErrNoConvergence) {
		return 0, fmt.Errorf("eigenpro: the preconditioned kernel's top eigenvalue: %w", err)
	}
	return r.MaxUpper(), nil
}

// eigenSym is linalg.EigenSym, which takes no context, on a goroutine of
// its own: a cancelled ctx returns at once, the decomposition finishing
// in the background and its result dropped.
func eigenSym(ctx context.Context, a linalg.Matrix[float64]) ([]float64, linalg.Matrix[float64], error) {
	type result struct {
		vals []float64
		vecs linalg.Matrix[float64]
		err  error
	}
	done := make(chan result, 1)
	go func() {
		v, z, err := linalg.EigenSym(a)
		done <- result{v, z, err}
	}()
	select {
	case r := <-done:
		return r.vals, r.vecs, r.err
	case <-ctx.Done():
		return nil, linalg.Matrix[float64]{}, ctx.Err()
	}
}
