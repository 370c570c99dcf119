// Package eigenpro solves kernel ridge regression on all n training points
// without ever holding the n×n Gram: preconditioned stochastic gradient
// descent over blocks of kernel rows, EigenPro (Ma and Belkin, "Diving into
// the shallows", NeurIPS 2017) with the batch size and step of EigenPro 2.0
// (Ma and Belkin, "Kernel machines that adapt to GPUs", MLSys 2019).
//
// # Problem
//
// The machine is f(x) = Σᵢ αᵢ K(x, xᵢ) over every training point, with k
// outputs (one-hot classes or real targets, Y is n×k). With the shift
// c ≥ 0 (svm.KRR's and falkon's: the ridge on the Gram's diagonal) the
// iteration interpolates the shifted kernel K' = K + c·I on the training
// points,
//
//	K'α = (K + cI)α = Y,                                                  (1)
//
// whose solution is kernel ridge regression, α = (K + cI)⁻¹Y, and with
// c = 0 the interpolating kernel machine of the EigenPro papers. It
// minimises the square loss L(f) = 1/(2n) Σᵢ ‖f(xᵢ) − yᵢ‖² of the shifted
// kernel's machine (f(xᵢ) includes c·αᵢ on training points only; the
// returned Model predicts with K alone).
//
// # Iteration (EigenPro 2017, section 4 and Algorithm 1)
//
// A step takes a batch B of m training points (a seeded permutation per
// epoch), its residuals rᵢ = f(xᵢ) − yᵢ from one block of kernel rows
// K'(X_B, X) (m×n), and applies the preconditioned stochastic gradient
//
//	f ← f − η·P·g,   g = (1/m) Σ_{i∈B} rᵢ K'(xᵢ, ·),                       (2)
//	P = I − Σ_{j≤q} (1 − τ/σⱼ) ψⱼ ⊗ ψⱼ,   τ = σ_{q+1},                    (3)
//
// P being EigenPro's preconditioner: it flattens the top q eigenvalues
// σ₁ ≥ … ≥ σ_q of the covariance operator to its (q+1)-th one, τ, so that
// the step can be about 1/τ instead of 1/σ₁. The eigenpairs are the
// Nyström estimates from s subsampled points X_S (EigenPro's section 4.2):
// K'_S e_j = s·σⱼ·e_j (linalg.EigenSym, unit eᵢ) and ψⱼ = Σ_{t∈S}
// a_{jt} K'(x_t, ·) with a_j = e_j/√(s·σⱼ), unit in the kernel's RKHS. In
// coefficients, (2)–(3) are
//
//	α_B ← α_B − (η/m)·r_B,
//	α_S ← α_S + (η/m)·E·D·Eᵀ·K'(X_S, X_B)·r_B,   D = diag((1 − τ/σⱼ)/(s·σⱼ)),  (4)
//
// E = (e₁ … e_q): one GEMM against the block's columns at S, O(m·s·k), next
// to the block's O(m·n·d).
//
// # Batch and step (EigenPro 2.0, section 3; Ma, Bassily and Belkin, ICML 2018)
//
// With β = max_{t∈S} K'_P(x_t, x_t), the largest diagonal of the
// preconditioned kernel (K' less the q eigen-directions' share, by the
// Nyström estimate), the critical batch is m* = β/τ and the step of a
// batch of m is
//
//	η(m) = m/(β + (m − 1)·τ),                                             (5)
//
// the optimal step of SGD on an interpolated quadratic loss (linear in m up
// to m*, saturating after). EigenPro 2.0 fits q to the device: q is the
// largest number of eigen-directions (at most s/4 and
// DefaultMaxComponents) whose critical batch
// m*(q) fits in memory, and m = m*(q), so that the memory bounds the batch
// rather than the step. Config.Components, Config.Batch and
// Config.StepScale override the choices.
//
// # Memory and cost
//
// One float32 buffer of m×n kernel values is computed per batch through
// ntk.Prepared.Into (one GEMM of the batch against all n points and the
// arc-cosine recursion), reused for every batch; the n×n Gram never
// exists. The products f(X_B) = K'(X_B, X)·α are float32 GEMMs over
// column chunks of the block (α rounded to float32 for them) summed in
// float64, and α itself is float64. An epoch costs n²·d multiply-adds
// (plus the recursion); memory is linear in n (Bytes).
//
// # Stopping, determinism, checkpoints
//
// Fit runs Config.Epochs epochs, or, with Config.Holdout, evaluates the
// held-out points after every epoch and returns the coefficients of the
// best epoch. The result is the same bit for bit for any thread count (the
// kernel rows and GEMMs of linalg do not depend on it, and every other sum
// runs in a fixed order). Config.Checkpoint receives the State after every
// epoch; Fit given it as Config.Resume continues to the same bits as the
// uninterrupted run, and refuses a State of other data or settings. ctx is
// checked between batches and inside the kernel's recursion.
package eigenpro

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/ntksvm/ntksvm/internal/membudget"
	"github.com/ntksvm/ntksvm/internal/rng"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// Metric is what a holdout compares epochs by.
type Metric int

const (
	// Loss is the mean squared error over the outputs (lower is better).
	Loss Metric = iota
	// Accuracy is the share of held-out points whose largest output is at
	// the index of their target's largest value (higher is better).
	Accuracy
)

// Holdout is a held-out split: its points (not among the training points)
// are evaluated after every epoch and Fit keeps the best epoch by Metric.
type Holdout struct {
	X      linalg.Matrix[float32] // h×d inputs
	Y      linalg.Matrix[float64] // h×k targets
	Metric Metric
}

// Config configures Fit.
type Config struct {
	// Shift is c ≥ 0 of (1), the ridge on the diagonal (svm.KRR's shift).
	Shift float64
	// Epochs is the number of passes over the training points, ≥ 1.
	Epochs int
	// Subsample is s, the points of the Nyström preconditioner; 0 chooses
	// min(n, DefaultSubsample).
	Subsample int
	// Components is q, the eigen-directions flattened; 0 chooses by
	// EigenPro 2.0's rule (package doc), −1 means none (plain SGD).
	Components int
	// Batch is m; 0 is the critical batch m*(q) capped by the memory.
	Batch int
	// StepScale multiplies the step (5); 0 means 1. It must be in (0, 2].
	StepScale float64
	// MemBytes bounds Bytes (the solver's memory besides the caller's
	// inputs); 0 means no bound beyond n rows per batch.
	MemBytes int64
	// Seed seeds the subsample and the batch order.
	Seed uint64
	// Holdout, if not nil, selects the best epoch.
	Holdout *Holdout
	// Progress, if not nil, is called after every batch.
	Progress func(Progress)
	// Checkpoint, if not nil, is called after every epoch with the state
	// after it (the callee may keep it); its error stops Fit.
	Checkpoint func(*State) error
	// Resume, if not nil, continues from a State of a Fit on the same
	// data and Config.
	Resume *State
}

// DefaultSubsample is the subsample size s when Config.Subsample is 0.
const DefaultSubsample = 2000

// DefaultMaxComponents bounds the q that Fit chooses (besides s/4).
const DefaultMaxComponents = 300

// Progress is the state of a Fit after a batch.
type Progress struct {
	Epoch, Epochs  int // the epoch under way (1-based) and the total
	Batch, Batches int // batches done in this epoch and per epoch
	// Loss is the mean squared residual of the epoch's batches so far,
	// each taken before its step.
	Loss    float64
	Elapsed time.Duration // since Fit started (this run)
	ETA     time.Duration // estimated time to the last epoch's end
	// EpochDone is set on the last batch of an epoch; Stats is then the
	// epoch's record.
	EpochDone bool
	Stats     EpochStats
}

// EpochStats records an epoch.
type EpochStats struct {
	Epoch int
	Loss  float64 // mean squared training residual during the epoch
	// HoldoutLoss and HoldoutAccuracy are the held-out split's mean
	// squared error and accuracy after the epoch (NaN without a holdout).
	HoldoutLoss, HoldoutAccuracy float64
	Seconds                      float64 // the epoch's wall time
}

// Plan is what Fit chose.
type Plan struct {
	N, Outputs, Subsample, Components, Batch int
	// Beta, Tau and Top are β, τ = σ_{q+1} and σ₁ of the package doc.
	Beta, Tau, Top float64
	Step           float64 // η(m) of (5) times StepScale
	// StepScale is Config.StepScale (1 for 0); a batch of m' < m rows
	// (an epoch's last) steps by η(m') of (5) times it.
	StepScale float64
	Bytes     int64 // Bytes for this plan
}

// Model is a fitted machine f(z) = K(z, X)·α.
type Model struct {
	Spec  ntk.Spec
	X     linalg.Matrix[float32] // the n training inputs (referred to, not copied)
	Alpha linalg.Matrix[float64] // n×k coefficients
	Shift float64
	// Epoch is the epoch whose coefficients these are; History records
	// every epoch run.
	Epoch   int
	History []EpochStats
	Plan    Plan
}

// ErrInput is wrapped by every error about the caller's arguments.
var ErrInput = errors.New("eigenpro: invalid input")

// ErrResume is wrapped by the error of a Fit given a State of another fit.
var ErrResume = errors.New("eigenpro: the checkpoint is of another fit")

func inputErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInput, fmt.Sprintf(format, a...))
}

// chunkCols is the width of the column chunks of f(X_B) = K'(X_B, X)·α:
// each chunk's float32 product is added into the float64 sum.
const chunkCols = 1024

// Bytes returns the memory Fit needs for n points of d features, k outputs,
// s subsampled points and batches of m, besides the caller's inputs (X, Y
// and a holdout's): the coefficients (float64, a float32 copy, the best
// epoch's), the m×n block and its batch's scratch, and the larger of the
// preconditioner's setup (the s×s kernel and its eigen-decomposition) and
// its m×s part of the block.
func Bytes(n, d, k, s, m int) int64 {
	n64, d64, k64, s64, m64 := int64(n), int64(d), int64(k), int64(s), int64(m)
	fixed := n64*k64*(8+4+8) + 16*n64 + s64*d64*4 + s64*s64*8/4 + 8*s64*k64*2
	setup := s64*s64*(4+8+8+8) + s64*8*4
	run := m64*n64*4 + m64*d64*4 + m64*k64*(8*3+4) + m64*s64*8 + m64*16
	return fixed + max(setup, run)
}

// Fit solves (1) for the training inputs x (n×d, float32), targets y
// (n×k) and the kernel spec (depth ≥ 1). Errors: bad arguments (wrapping
// ErrInput; NaN or ±Inf in x or y, an empty x, Epochs < 1), a budget that
// does not hold one block (a *membudget.NeedError, before allocating), a
// Resume of another fit (wrapping ErrResume), the Checkpoint's error, and
// ctx's error once it is cancelled.
func Fit(ctx context.Context, x linalg.Matrix[float32], y linalg.Matrix[float64], spec ntk.Spec, cfg Config) (*Model, error) {
	n, d := x.Rows, x.Cols
	if n < 1 || d < 1 {
		return nil, inputErr("%d training points of %d features", n, d)
	}
	if y.Rows != n || y.Cols < 1 {
		return nil, inputErr("targets are %d×%d for %d points; want %d×k with k ≥ 1", y.Rows, y.Cols, n, n)
	}
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInput, err)
	}
	if spec.Depth < 1 {
		return nil, inputErr("kernel depth %d: want at least one hidden layer", spec.Depth)
	}
	if err := finite32("training input", x); err != nil {
		return nil, err
	}
	if err := finite64("target", y); err != nil {
		return nil, err
	}
	if cfg.Epochs < 1 {
		return nil, inputErr("%d epochs: want at least 1", cfg.Epochs)
	}
	if !(cfg.Shift >= 0) || math.IsInf(cfg.Shift, 0) {
		return nil, inputErr("shift %v: want a finite shift ≥ 0", cfg.Shift)
	}
	if cfg.Subsample < 0 || cfg.Components < -1 || cfg.Batch < 0 || cfg.MemBytes < 0 {
		return nil, inputErr("negative Subsample (%d), Components (%d), Batch (%d) or MemBytes (%d)", cfg.Subsample, cfg.Components, cfg.Batch, cfg.MemBytes)
	}
	if cfg.StepScale < 0 || cfg.StepScale > 2 || math.IsNaN(cfg.StepScale) {
		return nil, inputErr("step scale %v: want 0 < scale ≤ 2", cfg.StepScale)
	}
	if h := cfg.Holdout; h != nil {
		if h.X.Rows < 1 || h.X.Cols != d || h.Y.Rows != h.X.Rows || h.Y.Cols != y.Cols {
			return nil, inputErr("holdout of %d×%d inputs and %d×%d targets; want h ≥ 1 rows of %d features and %d outputs", h.X.Rows, h.X.Cols, h.Y.Rows, h.Y.Cols, d, y.Cols)
		}
		if h.Metric != Loss && h.Metric != Accuracy {
			return nil, inputErr("holdout metric %d", h.Metric)
		}
		if err := finite32("holdout input", h.X); err != nil {
			return nil, err
		}
		if err := finite64("holdout target", h.Y); err != nil {
			return nil, err
		}
	}
	k := y.Cols
	s := cfg.Subsample
	if s == 0 {
		s = DefaultSubsample
	}
	s = min(s, n)
	// The largest batch the budget holds, checked before any allocation.
	maxBatch := n
	if cfg.MemBytes > 0 {
		if need := Bytes(n, d, k, s, 1); need > cfg.MemBytes {
			return nil, &membudget.NeedError{What: fmt.Sprintf("EigenPro on %d points (%d features, %d outputs, a subsample of %d) with a block of one row", n, d, k, s),
				Need: need, Budget: cfg.MemBytes, Hint: "use a smaller subsample or a larger budget"}
		}
		for maxBatch > 1 && Bytes(n, d, k, s, maxBatch) > cfg.MemBytes {
			lo, hi := 1, maxBatch
			for lo < hi {
				mid := lo + (hi-lo+1)/2
				if Bytes(n, d, k, s, mid) <= cfg.MemBytes {
					lo = mid
				} else {
					hi = mid - 1
				}
			}
			maxBatch = lo
		}
	}
	if cfg.Batch > 0 {
		if cfg.Batch > maxBatch {
			return nil, &membudget.NeedError{What: fmt.Sprintf("EigenPro with batches of %d rows of %d points", cfg.Batch, n),
				Need: Bytes(n, d, k, s, min(cfg.Batch, n)), Budget: cfg.MemBytes, Hint: fmt.Sprintf("at most %d rows fit", maxBatch)}
		}
	}
	if cfg.Resume != nil {
		if err := cfg.Resume.Check(); err != nil {
			return nil, err
		}
		if cfg.Resume.N != n || cfg.Resume.Outputs != k {
			return nil, fmt.Errorf("%w: %d points with %d outputs in the checkpoint, %d with %d here", ErrResume, cfg.Resume.N, cfg.Resume.Outputs, n, k)
		}
	}
	prep, err := ntk.Prepare(x, spec)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInput, err)
	}
	diag := prep.Diag()
	e := &epro{x: x, y: y, spec: spec, prep: prep, diag: diag, n: n, d: d, k: k, shift: cfg.Shift}
	pc, err := e.precondition(ctx, s, cfg, maxBatch)
	if err != nil {
		return nil, err
	}
	e.pc = pc
	plan := pc.plan
	plan.Bytes = Bytes(n, d, k, s, plan.Batch)
	fp := fingerprint(x, y, spec, cfg, plan)
	if cfg.Resume != nil {
		if err := cfg.Resume.matches(fp, plan); err != nil {
			return nil, err
		}
	}
	return e.run(ctx, cfg, plan, fp)
}

// epro is one Fit's solver.
type epro struct {
	x          linalg.Matrix[float32]
	y          linalg.Matrix[float64]
	spec       ntk.Spec
	prep       *ntk.Prepared[float32]
	diag       []float64
	n, d, k    int
	shift      float64
	pc         *precond
	alpha      linalg.Matrix[float64]
	alpha32    linalg.Matrix[float32]
	block      []float32 // m×n kernel values, reused
	z          []float32 // the batch's inputs
	f32        linalg.Matrix[float32]
	f, g       linalg.Matrix[float64]
	kbs        linalg.Matrix[float64] // K'(X_B, X_S)
	h, t, corr linalg.Matrix[float64]
}

// into writes K(z, X) (z.Rows×n, float32) into dst through the prepared
// kernel; same is as ntk.Prepared.Into's.
func (e *epro) into(ctx context.Context, z linalg.Matrix[float32], same []int, dst linalg.Matrix[float32]) error {
	return e.prep.Into(ctx, z, same, ntk.Options{}, dst)
}

// gather copies the rows idx of x into buf (len(idx)×d).
func gather(x linalg.Matrix[float32], idx []int, buf []float32) linalg.Matrix[float32] {
	z := linalg.Matrix[float32]{Rows: len(idx), Cols: x.Cols, Stride: x.Cols, Data: buf[:len(idx)*x.Cols]}
	for i, r := range idx {
		copy(z.Row(i), x.Row(r))
	}
	return z
}

// outputs sets f = K(z, X)·α (+ c·α at same) for the block kb (rows×n
// float32) by float32 GEMMs over column chunks of chunkCols summed in
// float64, in a fixed order.
func (e *epro) outputs(kb linalg.Matrix[float32], same []int, f linalg.Matrix[float64]) error {
	rows := kb.Rows
	for i := range rows {
		clear(f.Row(i))
	}
	part := e.f32.Slice(0, rows, 0, e.k)
	for j0 := 0; j0 < e.n; j0 += chunkCols {
		j1 := min(j0+chunkCols, e.n)
		if err := linalg.Gemm(linalg.NoTrans, linalg.NoTrans, 1, kb.Slice(0, rows, j0, j1), e.alpha32.Slice(j0, j1, 0, e.k), 0, part); err != nil {
			return err
		}
		for i := range rows {
			fr := f.Row(i)
			for c, v := range part.Row(i) {
				fr[c] += float64(v)
			}
		}
	}
	if e.shift != 0 && same != nil {
		for i, j := range same {
			linalg.Axpy(e.shift, e.alpha.Row(j), f.Row(i))
		}
	}
	return nil
}

// permutation returns the batch order of epoch (1-based): a Fisher–Yates
// shuffle on SplitMix64 seeded by the seed and the epoch.
func permutation(n int, seed uint64, epoch int) []int {
	g := rng.SplitMix64(seed ^ (uint64(epoch) * 0x9e3779b97f4a7c15))
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := int(rng.Below(&g, uint64(i+1)))
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// run is the epochs loop.
func (e *epro) run(ctx context.Context, cfg Config, plan Plan, fp [32]byte) (*Model, error) {
	n, k, m := e.n, e.k, plan.Batch
	e.alpha = linalg.New[float64](n, k)
	e.alpha32 = linalg.New[float32](n, k)
	m0 := &Model{Spec: e.spec, X: e.x, Shift: e.shift, Plan: plan}
	var best linalg.Matrix[float64]
	bestEpoch, bestScore := 0, math.Inf(1)
	start := 1
	if st := cfg.Resume; st != nil {
		copy(e.alpha.Data, st.Alpha.Data)
		for i, v := range e.alpha.Data {
			e.alpha32.Data[i] = float32(v)
		}
		m0.History = slices.Clone(st.History)
		start = st.Epoch + 1
		if st.BestEpoch > 0 {
			best = st.Best.Clone()
			bestEpoch, bestScore = st.BestEpoch, st.BestScore
		}
	}
	e.block = make([]float32, m*n)
	e.z = make([]float32, m*e.d)
	e.f32 = linalg.New[float32](m, k)
	e.f = linalg.New[float64](m, k)
	e.g = linalg.New[float64](m, k)
	pc := e.pc
	if pc.q > 0 {
		e.kbs = linalg.New[float64](m, pc.s)
		e.h = linalg.New[float64](pc.s, k)
		e.t = linalg.New[float64](pc.q, k)
		e.corr = linalg.New[float64](pc.s, k)
	}
	batches := (n + m - 1) / m
	began := time.Now()
	var runEpochs int
	for epoch := start; epoch <= cfg.Epochs; epoch++ {
		t0 := time.Now()
		perm := permutation(n, cfg.Seed, epoch)
		var sq float64
		for b := range batches {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			idx := perm[b*m : min(b*m+m, n)]
			r, err := e.step(ctx, idx, plan)
			if err != nil {
				return nil, err
			}
			sq += r
			if math.IsNaN(sq) || math.IsInf(sq, 0) {
				return nil, fmt.Errorf("eigenpro: the iteration diverged in epoch %d (step %.3g; try a smaller StepScale or Batch)", epoch, plan.Step)
			}
			if cfg.Progress != nil && b+1 < batches {
				done := float64(epoch-start) + float64(b+1)/float64(batches)
				el := time.Since(began)
				cfg.Progress(Progress{Epoch: epoch, Epochs: cfg.Epochs, Batch: b + 1, Batches: batches,
					Loss: sq / float64(min((b+1)*m, n)*k), Elapsed: el, ETA: eta(el, done, float64(cfg.Epochs-start+1))})
			}
		}
		st := EpochStats{Epoch: epoch, Loss: sq / float64(n*k), HoldoutLoss: math.NaN(), HoldoutAccuracy: math.NaN()}
		if h := cfg.Holdout; h != nil {
			loss, acc, err := e.evaluate(ctx, h)
			if err != nil {
				return nil, err
			}
			st.HoldoutLoss, st.HoldoutAccuracy = loss, acc
			score := loss
			if h.Metric == Accuracy {
				score = -acc
			}
			if score < bestScore || best.Data == nil {
				bestScore, bestEpoch = score, epoch
				if best.Data == nil {
					best = linalg.New[float64](n, k)
				}
				copy(best.Data, e.alpha.Data)
			}
		}
		st.Seconds = time.Since(t0).Seconds()
		m0.History = append(m0.History, st)
		runEpochs++
		if cfg.Progress != nil {
			el := time.Since(began)
			cfg.Progress(Progress{Epoch: epoch, Epochs: cfg.Epochs, Batch: batches, Batches: batches, Loss: st.Loss,
				Elapsed: el, ETA: eta(el, float64(runEpochs), float64(cfg.Epochs-start+1)), EpochDone: true, Stats: st})
		}
		if cfg.Checkpoint != nil {
			s := &State{Epoch: epoch, N: n, Outputs: k, Fingerprint: fp, Plan: plan, Alpha: e.alpha.Clone(), History: slices.Clone(m0.History)}
			if bestEpoch > 0 {
				s.Best, s.BestEpoch, s.BestScore = best.Clone(), bestEpoch, bestScore
			}
			if err := cfg.Checkpoint(s); err != nil {
				return nil, err
			}
		}
	}
	m0.Alpha, m0.Epoch = e.alpha, cfg.Epochs
	if cfg.Holdout != nil && bestEpoch > 0 {
		m0.Alpha, m0.Epoch = best, bestEpoch
	}
	e.block = nil
	return m0, nil
}

func eta(elapsed time.Duration, done, total float64) time.Duration {
	if done <= 0 {
		return 0
	}
	return time.Duration(float64(elapsed) * (total - done) / done)
}

// step applies (4) to the batch idx and returns the sum of its squared
// residuals before the step.
func (e *epro) step(ctx context.Context, idx []int, plan Plan) (float64, error) {
	m, n, k := len(idx), e.n, e.k
	kb := linalg.Matrix[float32]{Rows: m, Cols: n, Stride: n, Data: e.block[:m*n]}
	if err := e.into(ctx, gather(e.x, idx, e.z), idx, kb); err != nil {
		return 0, err
	}
	f := e.f.Slice(0, m, 0, k)
	if err := e.outputs(kb, idx, f); err != nil {
		return 0, err
	}
	g := e.g.Slice(0, m, 0, k)
	scale := plan.Step / float64(m)
	if m != plan.Batch {
		scale = plan.StepScale / (plan.Beta + float64(m-1)*plan.Tau)
	}
	var sq float64
	for i, j := range idx {
		fr, yr, gr := f.Row(i), e.y.Row(j), g.Row(i)
		for c := range k {
			r := fr[c] - yr[c]
			sq += r * r
			gr[c] = scale * r
		}
	}
	pc := e.pc
	if pc.q > 0 {
		// corr = E·D·Eᵀ·K'(X_S, X_B)·g.
		kbs := e.kbs.Slice(0, m, 0, pc.s)
		for i, j := range idx {
			row, src := kbs.Row(i), kb.Row(i)
			for t, p := range pc.sub {
				row[t] = float64(src[p])
			}
			if t := pc.pos[j]; t >= 0 {
				row[t] += e.shift
			}
		}
		if err := linalg.Gemm(linalg.Trans, linalg.NoTrans, 1, kbs, g, 0, e.h); err != nil {
			return 0, err
		}
		if err := linalg.Gemm(linalg.NoTrans, linalg.NoTrans, 1, pc.e, e.h, 0, e.t); err != nil {
			return 0, err
		}
		for j := range pc.q {
			tr := e.t.Row(j)
			for c := range tr {
				tr[c] *= pc.dscale[j]
			}
		}
		if err := linalg.Gemm(linalg.Trans, linalg.NoTrans, 1, pc.e, e.t, 0, e.corr); err != nil {
			return 0, err
		}
		for t, p := range pc.sub {
			ar, cr := e.alpha.Row(p), e.corr.Row(t)
			for c := range k {
				ar[c] += cr[c]
			}
		}
		for _, p := range pc.sub {
			e.sync(p)
		}
	}
	for i, j := range idx {
		ar, gr := e.alpha.Row(j), g.Row(i)
		for c := range k {
			ar[c] -= gr[c]
		}
		e.sync(j)
	}
	return sq, nil
}

// sync rounds row j of α into its float32 copy.
func (e *epro) sync(j int) {
	a, a32 := e.alpha.Row(j), e.alpha32.Row(j)
	for c, v := range a {
		a32[c] = float32(v)
	}
}

// evaluate returns the holdout's mean squared error and accuracy under the
// current coefficients, using the batch buffer for its kernel rows.
func (e *epro) evaluate(ctx context.Context, h *Holdout) (loss, acc float64, err error) {
	m := e.f.Rows
	var sq float64
	var right int
	for i0 := 0; i0 < h.X.Rows; i0 += m {
		i1 := min(i0+m, h.X.Rows)
		kb := linalg.Matrix[float32]{Rows: i1 - i0, Cols: e.n, Stride: e.n, Data: e.block[:(i1-i0)*e.n]}
		if err := e.into(ctx, h.X.Slice(i0, i1, 0, e.d), nil, kb); err != nil {
			return 0, 0, err
		}
		f := e.f.Slice(0, i1-i0, 0, e.k)
		if err := e.outputs(kb, nil, f); err != nil {
			return 0, 0, err
		}
		for i := range i1 - i0 {
			yr := h.Y.Row(i0 + i)
			for c, v := range f.Row(i) {
				sq += (v - yr[c]) * (v - yr[c])
			}
			if Argmax(f.Row(i)) == Argmax(yr) {
				right++
			}
		}
	}
	return sq / float64(h.X.Rows*e.k), float64(right) / float64(h.X.Rows), nil
}

// Argmax returns the index of the largest element of v (the first of
// ties), the class of a multi-class prediction; −1 for an empty v.
func Argmax(v []float64) int {
	best := -1
	for i, x := range v {
		if best < 0 || x > v[best] {
			best = i
		}
	}
	return best
}

// Predict returns f(z) = K(z, X)·α (rows of z × k), computing blockRows
// points at a time (0: the fit's batch). Errors: z's features, NaN or ±Inf
// in z, and ctx's error.
func (md *Model) Predict(ctx context.Context, z linalg.Matrix[float32], blockRows int) (linalg.Matrix[float64], error) {
	if z.Cols != md.X.Cols {
		return linalg.Matrix[float64]{}, inputErr("inputs have %d features; the model's %d", z.Cols, md.X.Cols)
	}
	if err := finite32("input", z); err != nil {
		return linalg.Matrix[float64]{}, err
	}
	if md.Alpha.Rows != md.X.Rows {
		return linalg.Matrix[float64]{}, inputErr("%d coefficients for %d training points", md.Alpha.Rows, md.X.Rows)
	}
	prep, err := ntk.Prepare(md.X, md.Spec)
	if err != nil {
		return linalg.Matrix[float64]{}, err
	}
	n, k := md.X.Rows, md.Alpha.Cols
	if blockRows <= 0 {
		blockRows = max(md.Plan.Batch, 256)
	}
	blockRows = max(1, min(blockRows, z.Rows))
	e := &epro{x: md.X, spec: md.Spec, prep: prep, n: n, d: md.X.Cols, k: k, alpha: md.Alpha}
	e.alpha32 = linalg.New[float32](n, k)
	for i, v := range md.Alpha.Data[:n*k] {
		e.alpha32.Data[i] = float32(v)
	}
	e.f32 = linalg.New[float32](blockRows, k)
	block := make([]float32, blockRows*n)
	out := linalg.New[float64](z.Rows, k)
	for i0 := 0; i0 < z.Rows; i0 += blockRows {
		i1 := min(i0+blockRows, z.Rows)
		kb := linalg.Matrix[float32]{Rows: i1 - i0, Cols: n, Stride: n, Data: block[:(i1-i0)*n]}
		if err := e.into(ctx, z.Slice(i0, i1, 0, z.Cols), nil, kb); err != nil {
			return linalg.Matrix[float64]{}, err
		}
		if err := e.outputs(kb, nil, out.Slice(i0, i1, 0, k)); err != nil {
			return linalg.Matrix[float64]{}, err
		}
	}
	return out, nil
}

func finite32(what string, x linalg.Matrix[float32]) error {
	for i := range x.Rows {
		for j, v := range x.Row(i) {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return inputErr("%s (%d, %d) is %v", what, i, j, v)
			}
		}
	}
	return nil
}

func finite64(what string, x linalg.Matrix[float64]) error {
	for i := range x.Rows {
		for j, v := range x.Row(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return inputErr("%s (%d, %d) is %v", what, i, j, v)
			}
		}
	}
	return nil
}

// OneHot returns the n×classes targets of labels in 0…classes−1: 1 at the
// label, 0 elsewhere. An error names a label out of range or a class
// without any point.
func OneHot(labels []int, classes int) (linalg.Matrix[float64], error) {
	if len(labels) == 0 || classes < 2 {
		return linalg.Matrix[float64]{}, inputErr("%d labels of %d classes", len(labels), classes)
	}
	count := make([]int, classes)
	y := linalg.New[float64](len(labels), classes)
	for i, l := range labels {
		if l < 0 || l >= classes {
			return linalg.Matrix[float64]{}, inputErr("label %d of point %d is not a class 0…%d", l, i, classes-1)
		}
		count[l]++
		y.Set(i, l, 1)
	}
	for c, v := range count {
		if v == 0 {
			return linalg.Matrix[float64]{}, inputErr("class %d has no training point", c)
		}
	}
	return y, nil
}
