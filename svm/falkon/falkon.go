// Package falkon solves kernel ridge regression on more points than a Gram
// fits in memory, after Falkon (Rudi, Carratino and Rosasco, NeurIPS 2017;
// Meanti, Carratino, Rosasco and Rudi, NeurIPS 2020): the machine is
// restricted to M Nyström centres C ⊂ X, g(x) = Σₘ αₘ K(x, c_m), and α
// solves the normal equations of the Nyström KRR,
//
//	(K_nMᵀ K_nM + c·K_MM) α = K_nMᵀ Y,                                   (1)
//
// by conjugate gradient preconditioned with the M×M Cholesky factors of
// Falkon's Algorithm 1, the n×M kernel K_nM computed a block of rows at a
// time on every iteration and never stored. Memory is O(M² + n·c + block),
// time O(n·M·d) per iteration plus O(M³) once.
//
// # Units
//
// The shift c is svm.KRR's: with every point a centre (M = n) and K
// invertible, (1) is K(K + cI)α = K·Y, so α is KRR's (K + cI)⁻¹Y, and
// Fit equals svm.KRR to the CG tolerance. In Falkon's notation, whose
// objective is (1/n)‖K_nMα − y‖² + λ αᵀK_MMα, c = λn; for the paper's sum
// objective λ/2‖β‖² + Σ(yᵢ − gᵢ)², c = λ/2 (svm.KRRShift).
//
// # Preconditioner
//
// With K_MM + δI = L·Lᵀ (T = Lᵀ in the paper; δ a jitter of M·2⁻⁵²·mean
// K_ii, raised tenfold while the factorisation fails) and
// LᵀL/M + (c/n)·I = R·Rᵀ, the preconditioner is B = L⁻ᵀR⁻ᵀ/√n, and CG runs
// on BᵀHBβ = BᵀK_nMᵀY with H the matrix of (1), α = Bβ. Since BBᵀ is the
// inverse of the Nyström estimate (n/M)·K_MM² + c·K_MM of H, BᵀHB is close
// to the identity and CG needs few iterations (Falkon's theory: about
// log(n) for M ≈ √n). The term c·K_MM·v is taken from K_nM·v at the rows of
// the centres (C ⊂ X), not from the factor, so the jitter changes the
// preconditioner only, never the solution. L and R share one M×M matrix
// (R in the lower triangle, L transposed in the upper, the two diagonals
// swapped in as needed), as in Falkon.
//
// # Outputs and determinism
//
// Y is n×c: one solve for all outputs (the c columns of a one-vs-rest
// classifier's ±1 targets), each column with its own CG coefficients, the
// kernel blocks shared. Every product runs on linalg's GEMM and triangular
// solves, whose results do not depend on the thread count, and the sums
// over row blocks are in a fixed order, so Fit gives the same bits for any
// GOMAXPROCS.
//
// # Checkpoints
//
// A long Fit can be stopped and continued: Config.Checkpoint receives the
// CG's State (three M×c matrices) after every iteration, and a later Fit
// given one as Config.Resume recomputes the centres and the
// preconditioner and continues the CG from it, to the same bits as the
// uninterrupted Fit.
//
// # Centres
//
// Uniform centres (the default) are M distinct points drawn with the seed.
// Config.Leverage draws them with probabilities proportional to
// approximate ridge leverage scores K_ii − k_iJᵀ(K_JJ + c·(s/n)·I)⁻¹k_iJ
// from a uniform sample J of s points (the Nyström estimate of Rudi et al.,
// "On fast leverage score sampling and optimal learning", NeurIPS 2018),
// which favours points the sample explains badly. The centres are not
// reweighted: (1) is the Nyström KRR of whichever centres are chosen.
package falkon

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ntksvm/ntksvm/internal/rng"
	"github.com/ntksvm/ntksvm/linalg"
)

// Kernel gives Fit the kernel of the n training points.
type Kernel interface {
	// Len returns the number of training points n.
	Len() int
	// Diag returns K(x_i, x_i) for every training point.
	Diag() []float64
	// Centre prepares the blocks against the centres cols (distinct
	// training indices).
	Centre(cols []int) (Blocks, error)
}

// Blocks computes kernel blocks against fixed centres C.
type Blocks interface {
	// Train writes K(x_r, C) for the training points r of rows into dst
	// (len(rows)×M). Each row's values must depend only on its point,
	// and the pair of a point with itself as a centre must be the exact
	// K(x, x) of Diag. ctx's error is returned once it is cancelled.
	Train(ctx context.Context, rows []int, dst linalg.Matrix[float64]) error
}

// Config configures Fit.
type Config struct {
	// M is the number of centres, 1 ≤ M ≤ n (ignored when Centres is
	// set).
	M int
	// Centres, if not nil, are the centres (distinct training indices).
	Centres []int
	// Seed seeds the draw of the centres.
	Seed uint64
	// Leverage draws the centres by approximate leverage scores from a
	// uniform sample of LeverageSample points (0 means M).
	Leverage       bool
	LeverageSample int
	// Shift is c > 0 of (1): svm.KRR's diagonal shift.
	Shift float64
	// MaxIter bounds the CG iterations; 0 means 100.
	MaxIter int
	// Tol stops CG when every output's residual norm is at most Tol times
	// its right-hand side's (in the preconditioned system); 0 means 1e-10.
	Tol float64
	// BlockRows is the number of rows of K_nM computed at once; 0 chooses
	// about 64 MiB of them (at least 64 and at most 4096 rows).
	BlockRows int
	// StoreBytes is memory for keeping blocks of K_nM in float32 between
	// iterations, when the budget has room: the first ⌊StoreBytes /
	// (BlockRows·M·4)⌋ blocks are computed once (rounded to float32 for
	// every use, the first included, so that all passes apply the same
	// matrix) and read back after; the rest are recomputed on every pass.
	// 0 stores nothing.
	StoreBytes int64
	// Progress, if not nil, is called after each CG iteration with the
	// iteration and the largest relative residual.
	Progress func(iter int, residual float64)
	// Checkpoint, if not nil, is called after each CG iteration with the
	// state after it, which the callee may keep (it is not reused); an
	// error stops Fit with it.
	Checkpoint func(*State) error
	// Resume, if not nil, continues from a state that Checkpoint got from
	// a Fit on the same kernel and targets with the same Config (see
	// State). A state that does not fit this Fit is refused with an error
	// wrapping ErrResume.
	Resume *State
}

// Result is a fitted Nyström KRR.
type Result struct {
	Centres []int                  // the training indices of the centres, ascending
	Alpha   linalg.Matrix[float64] // M×c coefficients: g(x) = Σₘ αₘ K(x, c_m)
	// Iterations is the number of CG iterations; Residuals the final
	// relative residual of each output; Converged says they all met Tol.
	Iterations int
	Residuals  []float64
	Converged  bool
	Jitter     float64 // δ added to K_MM's diagonal for its factor
	BlockRows  int     // the block size used
	// StoredBlocks is the number of blocks of K_nM kept in float32.
	StoredBlocks int
}

// ErrInput is wrapped by every error about the caller's arguments.
var ErrInput = errors.New("falkon: invalid input")

// ErrResume is wrapped by the error of a Fit given a State
// (Config.Resume) of another fit; the message names what differs.
var ErrResume = errors.New("falkon: the state is of another fit")

func inputErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInput, fmt.Sprintf(format, a...))
}

// Bytes returns the memory Fit needs for n points, M centres and c
// outputs, besides the kernel's own and Config.StoreBytes: the M×M
// factors, the CG vectors and one block of K_nM (blockRows 0: the default
// choice).
func Bytes(n, m, c, blockRows int) int64 {
	if blockRows <= 0 {
		blockRows = defaultBlockRows(m)
	}
	blockRows = min(blockRows, n)
	return 8 * (int64(m)*int64(m) + int64(blockRows)*int64(m+c) + 8*int64(m)*int64(c) + 2*int64(n)*int64(c) + 2*int64(n))
}

func defaultBlockRows(m int) int {
	return min(max((64<<20)/(8*max(m, 1)), 64), 4096)
}

// Fit solves (1) for the kernel k and targets y (n×c). Errors: bad
// arguments (wrapping ErrInput), the kernel's errors, a preconditioner
// that cannot be factored, and ctx's error once it is cancelled (checked
// between blocks).
func Fit(ctx context.Context, k Kernel, y linalg.Matrix[float64], cfg Config) (*Result, error) {
	n := k.Len()
	if n < 1 {
		return nil, inputErr("no training points")
	}
	if y.Rows != n || y.Cols < 1 {
		return nil, inputErr("targets are %d×%d for %d points; want %d×c with c ≥ 1", y.Rows, y.Cols, n, n)
	}
	for i := range y.Rows {
		for j, v := range y.Row(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, inputErr("target (%d, %d) is %v", i, j, v)
			}
		}
	}
	if !(cfg.Shift > 0) || math.IsInf(cfg.Shift, 0) {
		return nil, inputErr("shift c = %v; want a finite c > 0", cfg.Shift)
	}
	if cfg.MaxIter < 0 || cfg.Tol < 0 || cfg.BlockRows < 0 || cfg.LeverageSample < 0 {
		return nil, inputErr("negative MaxIter, Tol, BlockRows or LeverageSample")
	}
	diag := k.Diag()
	if len(diag) != n {
		return nil, fmt.Errorf("falkon: the kernel's diagonal has %d elements for %d points", len(diag), n)
	}
	centres, err := chooseCentres(ctx, k, diag, n, cfg)
	if err != nil {
		return nil, err
	}
	m := len(centres)
	blocks, err := k.Centre(centres)
	if err != nil {
		return nil, err
	}
	s := &solver{n: n, m: m, c: y.Cols, shift: cfg.Shift, blocks: blocks, centres: centres}
	s.blockRows = cfg.BlockRows
	if s.blockRows == 0 {
		s.blockRows = defaultBlockRows(m)
	}
	s.blockRows = min(s.blockRows, n)
	if cfg.StoreBytes < 0 {
		return nil, inputErr("StoreBytes %d", cfg.StoreBytes)
	}
	nblocks := (n + s.blockRows - 1) / s.blockRows
	s.stored = make([][]float32, min(int64(nblocks), cfg.StoreBytes/(int64(s.blockRows)*int64(m)*4)))
	res0 := len(s.stored)
	s.centreOf = make([]int, n)
	for i := range s.centreOf {
		s.centreOf[i] = -1
	}
	for j, c := range centres {
		s.centreOf[c] = j
	}
	maxIter, tol := cfg.MaxIter, cfg.Tol
	if maxIter == 0 {
		maxIter = 100
	}
	if tol == 0 {
		tol = 1e-10
	}
	if cfg.Resume != nil {
		// Checked before the preconditioner's O(M³) work.
		if err := cfg.Resume.check(s, res0, tol); err != nil {
			return nil, err
		}
	}
	if err := s.precondition(ctx, diag); err != nil {
		return nil, err
	}
	res := &Result{Centres: centres, Jitter: s.jitter, BlockRows: s.blockRows, StoredBlocks: res0}
	if err := s.cg(ctx, y, maxIter, tol, &cfg, res); err != nil {
		return nil, err
	}
	return res, nil
}

// chooseCentres returns the centres, ascending.
func chooseCentres(ctx context.Context, k Kernel, diag []float64, n int, cfg Config) ([]int, error) {
	if cfg.Centres != nil {
		if len(cfg.Centres) < 1 || len(cfg.Centres) > n {
			return nil, inputErr("%d centres for %d points", len(cfg.Centres), n)
		}
		c := slices.Clone(cfg.Centres)
		slices.Sort(c)
		for i, v := range c {
			if v < 0 || v >= n {
				return nil, inputErr("centre %d is not a point 0…%d", v, n-1)
			}
			if i > 0 && c[i-1] == v {
				return nil, inputErr("centre %d given twice", v)
			}
		}
		return c, nil
	}
	if cfg.M < 1 || cfg.M > n {
		return nil, inputErr("M = %d centres for %d points; want 1 ≤ M ≤ n", cfg.M, n)
	}
	if !cfg.Leverage {
		return rng.Subset(n, cfg.M, cfg.Seed), nil
	}
	return leverageCentres(ctx, k, diag, n, cfg)
}

// leverageCentres draws cfg.M centres without replacement with
// probabilities proportional to approximate leverage scores (see the
// package doc), by the keys u^(1/w) of Efraimidis and Spirakis.
func leverageCentres(ctx context.Context, k Kernel, diag []float64, n int, cfg Config) ([]int, error) {
	ss := cfg.LeverageSample
	if ss == 0 {
		ss = cfg.M
	}
	ss = min(ss, n)
	sample := rng.Subset(n, ss, cfg.Seed^0x9e3779b97f4a7c15)
	b, err := k.Centre(sample)
	if err != nil {
		return nil, err
	}
	// K_JJ + c(s/n)I, factored.
	kjj := linalg.New[float64](ss, ss)
	if err := b.Train(ctx, sample, kjj); err != nil {
		return nil, err
	}
	ridge := cfg.Shift * float64(ss) / float64(n)
	for i := range ss {
		kjj.Data[i*ss+i] += ridge
	}
	if err := linalg.CholeskyContext(ctx, kjj); err != nil {
		return nil, fmt.Errorf("falkon: leverage scores: %w", err)
	}
	score := make([]float64, n)
	br := defaultBlockRows(ss)
	rows := make([]int, 0, br)
	kb := linalg.New[float64](br, ss)
	for i0 := 0; i0 < n; i0 += br {
		i1 := min(i0+br, n)
		rows = rows[:0]
		for i := i0; i < i1; i++ {
			rows = append(rows, i)
		}
		blk := kb.Slice(0, i1-i0, 0, ss)
		if err := b.Train(ctx, rows, blk); err != nil {
			return nil, err
		}
		// k_iJᵀ(LLᵀ)⁻¹k_iJ = ‖L⁻¹k_iJ‖²: solve on the transposed block.
		kt := blk.T()
		if err := linalg.SolveLower(linalg.NoTrans, kjj, kt); err != nil {
			return nil, fmt.Errorf("falkon: leverage scores: %w", err)
		}
		for i := i0; i < i1; i++ {
			var q float64
			for j := range ss {
				v := kt.Data[j*kt.Stride+i-i0]
				q += v * v
			}
			score[i] = max(diag[i]-q, 0) + 1e-12*diag[i]
		}
	}
	g := rng.SplitMix64(cfg.Seed)
	type keyed struct {
		key float64
		i   int
	}
	keys := make([]keyed, n)
	for i, w := range score {
		u := (float64(g.Uint64()>>11) + 0.5) / (1 << 53)
		key := math.Inf(-1)
		if w > 0 {
			key = math.Log(u) / w
		}
		keys[i] = keyed{key, i}
	}
	slices.SortFunc(keys, func(a, b keyed) int {
		if a.key != b.key {
			if a.key > b.key {
				return -1
			}
			return 1
		}
		return a.i - b.i
	})
	out := make([]int, cfg.M)
	for j := range out {
		out[j] = keys[j].i
	}
	slices.Sort(out)
	return out, nil
}

// solver holds one Fit's state.
type solver struct {
	n, m, c   int
	shift     float64
	blocks    Blocks
	centres   []int
	centreOf  []int // training index → centre position, or −1
	blockRows int
	// f holds R (the factor of LᵀL/M + (c/n)I) in its lower triangle and
	// Lᵀ in its strict upper triangle; dL and dR are their diagonals.
	f      linalg.Matrix[float64]
	dL, dR []float64
	jitter float64
	// Scratch for the passes over K_nM.
	kb   linalg.Matrix[float64] // blockRows×M
	q    linalg.Matrix[float64] // blockRows×c
	rows []int
	// stored[b] is block b of K_nM in float32 once computed, for the
	// first len(stored) blocks.
	stored [][]float32
	// vT, outT and qT are v, the stored blocks' part of out and a chunk's
	// q, transposed (c×M, c×M, c×storedRows).
	vT, outT, qT linalg.Matrix[float64]
}

// precondition computes K_MM, its jittered Cholesky factor L, and R.
func (s *solver) precondition(ctx context.Context, diag []float64) error {
	m := s.m
	s.f = linalg.New[float64](m, m)
	var mean float64
	for _, c := range s.centres {
		mean += diag[c]
	}
	mean /= float64(m)
	if !(mean > 0) {
		return fmt.Errorf("falkon: the centres' kernel diagonal averages %v; the kernel is zero on them", mean)
	}
	s.jitter = float64(m) * 0x1p-52 * mean
	kmm := s.f
	for {
		if err := s.kmm(ctx, kmm); err != nil {
			return err
		}
		for i := range m {
			kmm.Data[i*m+i] += s.jitter
		}
		err := linalg.CholeskyContext(ctx, kmm)
		if err == nil {
			break
		}
		var nspd *linalg.NotSPDError
		if !errors.As(err, &nspd) || s.jitter > 1e-3*mean {
			return fmt.Errorf("falkon: K_MM + %.3g·I: %w", s.jitter, err)
		}
		s.jitter *= 10
	}
	// Move L to the upper triangle as Lᵀ, keep its diagonal.
	s.dL = make([]float64, m)
	for i := range m {
		s.dL[i] = kmm.Data[i*m+i]
		for j := 0; j < i; j++ {
			kmm.Data[j*m+i] = kmm.Data[i*m+j]
		}
	}
	// W = LᵀL = U·Uᵀ for U = Lᵀ (upper): its lower triangle, a block row
	// of nb rows at a time: W[I, :I1] = Ū_I·[U[:I0, I0:]; Ū_I]ᵀ with Ū_I
	// the rows I of U from column I0 on (zero below the diagonal). The
	// block row is written only after it is computed, and the rows of U
	// it reads lie in the upper triangle, which no block row writes.
	const nb = 128
	ubar := linalg.New[float64](nb, m)
	tmp := linalg.New[float64](nb, m)
	for i0 := 0; i0 < m; i0 += nb {
		if err := ctx.Err(); err != nil {
			return err
		}
		i1 := min(i0+nb, m)
		r := i1 - i0
		ub := ubar.Slice(0, r, 0, m-i0)
		for i := i0; i < i1; i++ {
			row := ub.Row(i - i0)
			clear(row[:i-i0])
			row[i-i0] = s.dL[i]
			copy(row[i-i0+1:], kmm.Data[i*m+i+1:i*m+m])
		}
		out := tmp.Slice(0, r, 0, i1)
		if i0 > 0 {
			above := kmm.Slice(0, i0, i0, m)
			if err := linalg.Gemm(linalg.NoTrans, linalg.Trans, 1, ub, above, 0, out.Slice(0, r, 0, i0)); err != nil {
				return fmt.Errorf("falkon: preconditioner: %w", err)
			}
		}
		if err := linalg.Gemm(linalg.NoTrans, linalg.Trans, 1, ub, ub, 0, out.Slice(0, r, i0, i1)); err != nil {
			return fmt.Errorf("falkon: preconditioner: %w", err)
		}
		for i := i0; i < i1; i++ {
			copy(kmm.Data[i*m:i*m+i+1], out.Row(i - i0)[:i+1])
		}
	}
	// R·Rᵀ = W/M + (c/n)·I; Cholesky reads and writes the lower triangle
	// only, so Lᵀ in the strict upper triangle stays.
	inv, add := 1/float64(m), s.shift/float64(s.n)
	for i := range m {
		row := kmm.Data[i*m : i*m+i+1]
		for j := range row {
			row[j] *= inv
		}
		row[i] += add
	}
	if err := linalg.CholeskyContext(ctx, kmm); err != nil {
		return fmt.Errorf("falkon: preconditioner LᵀL/M + (c/n)I: %w", err)
	}
	s.dR = make([]float64, m)
	for i := range m {
		s.dR[i] = kmm.Data[i*m+i]
	}
	return nil
}

// kmm writes K_MM into dst, a block of centres at a time.
func (s *solver) kmm(ctx context.Context, dst linalg.Matrix[float64]) error {
	for j0 := 0; j0 < s.m; j0 += s.blockRows {
		j1 := min(j0+s.blockRows, s.m)
		if err := s.blocks.Train(ctx, s.centres[j0:j1], dst.Slice(j0, j1, 0, s.m)); err != nil {
			return err
		}
	}
	return nil
}

// setDiag writes d on the diagonal of f.
func (s *solver) setDiag(d []float64) {
	for i, v := range d {
		s.f.Data[i*s.m+i] = v
	}
}

// applyB sets v = B·v = L⁻ᵀR⁻ᵀv/√n in place (v is M×c).
func (s *solver) applyB(v linalg.Matrix[float64]) error {
	s.setDiag(s.dR)
	if err := linalg.SolveLower(linalg.Trans, s.f, v); err != nil {
		return err
	}
	s.setDiag(s.dL)
	if err := linalg.SolveUpper(linalg.NoTrans, s.f, v); err != nil {
		return err
	}
	scale(v, 1/math.Sqrt(float64(s.n)))
	return nil
}

// applyBt sets v = Bᵀ·v = R⁻¹L⁻¹v/√n in place.
func (s *solver) applyBt(v linalg.Matrix[float64]) error {
	s.setDiag(s.dL)
	if err := linalg.SolveUpper(linalg.Trans, s.f, v); err != nil {
		return err
	}
	s.setDiag(s.dR)
	if err := linalg.SolveLower(linalg.NoTrans, s.f, v); err != nil {
		return err
	}
	scale(v, 1/math.Sqrt(float64(s.n)))
	return nil
}

func scale(v linalg.Matrix[float64], a float64) {
	for i := range v.Rows {
		for j := range v.Row(i) {
			v.Row(i)[j] *= a
		}
	}
}

// pass computes, over all row blocks of K_nM in order, out = K_nMᵀ·(K_nM·v)
// + c·K_MM·v when v is given (M×c), and out = K_nMᵀ·y when y is given
// instead; K_MM·v is read off K_nM·v at the centres' rows. A computed
// block goes through two GEMMs; a stored float32 block is read in place,
// storedRows rows at a time (in cache for the 2c matrix–vector products
// with float64 sums, linalg.GemvF32F64), without a float64 copy.
func (s *solver) pass(ctx context.Context, v, y, out linalg.Matrix[float64]) error {
	if s.kb.Data == nil {
		s.kb = linalg.New[float64](s.blockRows, s.m)
		s.q = linalg.New[float64](s.blockRows, s.c)
		s.rows = make([]int, 0, s.blockRows)
		if len(s.stored) > 0 {
			s.vT = linalg.New[float64](s.c, s.m)
			s.outT = linalg.New[float64](s.c, s.m)
			s.qT = linalg.New[float64](s.c, storedRows)
		}
	}
	for i := range out.Rows {
		clear(out.Row(i))
	}
	if s.outT.Data != nil {
		clear(s.outT.Data)
		if v.Data != nil {
			for i := range s.m {
				for j, x := range v.Row(i) {
					s.vT.Data[j*s.m+i] = x
				}
			}
		}
	}
	for i0 := 0; i0 < s.n; i0 += s.blockRows {
		if err := ctx.Err(); err != nil {
			return err
		}
		i1 := min(i0+s.blockRows, s.n)
		b := i1 - i0
		if bi := i0 / s.blockRows; bi < len(s.stored) && s.stored[bi] != nil {
			if err := s.storedBlock(s.stored[bi], i0, i1, v, y, out); err != nil {
				return err
			}
			continue
		}
		s.rows = s.rows[:0]
		for i := i0; i < i1; i++ {
			s.rows = append(s.rows, i)
		}
		kb := s.kb.Slice(0, b, 0, s.m)
		if err := s.blocks.Train(ctx, s.rows, kb); err != nil {
			return err
		}
		if bi := i0 / s.blockRows; bi < len(s.stored) {
			// Kept from now on: this pass, too, uses the float32 values.
			f := make([]float32, b*s.m)
			for i, x := range kb.Data[:b*s.m] {
				f[i] = float32(x)
			}
			s.stored[bi] = f
			if err := s.storedBlock(f, i0, i1, v, y, out); err != nil {
				return err
			}
			continue
		}
		var q linalg.Matrix[float64]
		if v.Data != nil {
			q = s.q.Slice(0, b, 0, s.c)
			if err := linalg.Gemm(linalg.NoTrans, linalg.NoTrans, 1, kb, v, 0, q); err != nil {
				return err
			}
			for i := i0; i < i1; i++ {
				if j := s.centreOf[i]; j >= 0 {
					linalg.Axpy(s.shift, q.Row(i-i0), out.Row(j))
				}
			}
		} else {
			q = y.Slice(i0, i1, 0, s.c)
		}
		if err := linalg.Gemm(linalg.Trans, linalg.NoTrans, 1, kb, q, 1, out); err != nil {
			return err
		}
	}
	if s.outT.Data != nil {
		for i := range s.m {
			r := out.Row(i)
			for j := range r {
				r[j] += s.outT.Data[j*s.m+i]
			}
		}
	}
	return nil
}

// storedRows is the number of rows of a stored block taken at a time: 32
// rows of M float32 (1.25 MiB for M = 10,000) stay in cache for the 2c
// products.
const storedRows = 32

// storedBlock is pass on the stored block f (rows i0…i1−1), accumulating
// K_fᵀq into outT (c×M) and the centres' term into out.
func (s *solver) storedBlock(f []float32, i0, i1 int, v, y, out linalg.Matrix[float64]) error {
	m := s.m
	for r0 := i0; r0 < i1; r0 += storedRows {
		r1 := min(r0+storedRows, i1)
		k := r1 - r0
		chunk := linalg.Matrix[float32]{Rows: k, Cols: m, Stride: m, Data: f[(r0-i0)*m : (r1-i0)*m]}
		for c := range s.c {
			q := s.qT.Row(c)[:k]
			if v.Data != nil {
				if err := linalg.GemvF32F64(linalg.NoTrans, 1, chunk, s.vT.Row(c), 0, q); err != nil {
					return err
				}
				for t, x := range q {
					if j := s.centreOf[r0+t]; j >= 0 {
						out.Row(j)[c] += s.shift * x
					}
				}
			} else {
				for t := range q {
					q[t] = y.At(r0+t, c)
				}
			}
			if err := linalg.GemvF32F64(linalg.Trans, 1, chunk, q, 1, s.outT.Row(c)); err != nil {
				return err
			}
		}
	}
	return nil
}

// cg runs the preconditioned conjugate gradient on BᵀHBβ = BᵀK_nMᵀY,
// column by column in its coefficients, from cfg.Resume when given, and
// sets res.Alpha = Bβ.
func (s *solver) cg(ctx context.Context, y linalg.Matrix[float64], maxIter int, tol float64, cfg *Config, res *Result) error {
	m, c := s.m, s.c
	st, err := s.cgStart(ctx, y, tol, cfg.Resume)
	if err != nil {
		return err
	}
	beta, r, p, rr, target := st.Beta, st.R, st.P, st.RR, st.Target
	res.Iterations = st.Iteration
	progress := cfg.Progress
	bp := linalg.New[float64](m, c)
	hp := linalg.New[float64](m, c)
	active := make([]bool, c)
	res.Residuals = make([]float64, c)
	done := func() bool {
		all := true
		worst := 0.0
		for j := range c {
			active[j] = rr[j] > target[j] && rr[j] > 0
			all = all && !active[j]
			if target[j] > 0 {
				res.Residuals[j] = math.Sqrt(rr[j] * tol * tol / target[j])
			}
			worst = max(worst, res.Residuals[j])
		}
		if progress != nil && res.Iterations > 0 {
			progress(res.Iterations, worst)
		}
		return all
	}
	for !done() && res.Iterations < maxIter {
		if err := ctx.Err(); err != nil {
			return err
		}
		// hp = BᵀHB·p.
		copy(bp.Data, p.Data)
		if err := s.applyB(bp); err != nil {
			return err
		}
		if err := s.pass(ctx, bp, linalg.Matrix[float64]{}, hp); err != nil {
			return err
		}
		if err := s.applyBt(hp); err != nil {
			return err
		}
		php := colDots(p, hp)
		a := make([]float64, c)
		for j := range c {
			if active[j] && php[j] > 0 {
				a[j] = rr[j] / php[j]
			}
		}
		for i := range m {
			br, rrow, prow, hrow := beta.Row(i), r.Row(i), p.Row(i), hp.Row(i)
			for j := range c {
				br[j] += a[j] * prow[j]
				rrow[j] -= a[j] * hrow[j]
			}
		}
		rrNew := colDots(r, r)
		for i := range m {
			rrow, prow := r.Row(i), p.Row(i)
			for j := range c {
				if a[j] != 0 {
					prow[j] = rrow[j] + rrNew[j]/rr[j]*prow[j]
				}
			}
		}
		for j := range c {
			if a[j] != 0 {
				rr[j] = rrNew[j]
			}
		}
		res.Iterations++
		if cfg.Checkpoint != nil {
			if err := cfg.Checkpoint(s.state(res.Iterations, tol, beta, r, p, rr, target)); err != nil {
				return err
			}
		}
	}
	res.Converged = true
	for j := range c {
		res.Converged = res.Converged && !active[j]
	}
	if err := s.applyB(beta); err != nil {
		return err
	}
	res.Alpha = beta
	return nil
}

// colDots returns the dot products of the columns of a and b, each summed
// over the rows in order.
func colDots(a, b linalg.Matrix[float64]) []float64 {
	d := make([]float64, a.Cols)
	for i := range a.Rows {
		ar, br := a.Row(i), b.Row(i)
		for j := range d {
			d[j] = math.FMA(ar[j], br[j], d[j])
		}
	}
	return d
}

// Predict returns the outputs g(z) = K(z, C)·α (rows×c) for rows points
// whose blocks against the centres block writes: block(ctx, i0, i1, dst)
// fills dst ((i1−i0)×M) with K(z_i, C) for i0 ≤ i < i1. It computes
// Result.BlockRows points at a time.
func (r *Result) Predict(ctx context.Context, rows int, block func(ctx context.Context, i0, i1 int, dst linalg.Matrix[float64]) error) (linalg.Matrix[float64], error) {
	m, c := r.Alpha.Rows, r.Alpha.Cols
	out := linalg.New[float64](rows, c)
	br := max(r.BlockRows, 1)
	kb := linalg.New[float64](min(br, max(rows, 1)), m)
	for i0 := 0; i0 < rows; i0 += br {
		i1 := min(i0+br, rows)
		blk := kb.Slice(0, i1-i0, 0, m)
		if err := block(ctx, i0, i1, blk); err != nil {
			return linalg.Matrix[float64]{}, err
		}
		if err := linalg.Gemm(linalg.NoTrans, linalg.NoTrans, 1, blk, r.Alpha, 0, out.Slice(i0, i1, 0, c)); err != nil {
			return linalg.Matrix[float64]{}, err
		}
	}
	return out, nil
}
