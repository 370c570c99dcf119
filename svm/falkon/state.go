package falkon

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/ntksvm/ntksvm/linalg"
)

// State is the conjugate gradient of a Fit after an iteration
// (Config.Checkpoint), from which a later Fit on the same kernel and
// targets with the same Config continues (Config.Resume) to the same
// Result, bit for bit: the centres, the preconditioner's factors and the
// stored blocks of K_nM are recomputed from the Config (the same seed
// draws the same centres, whose factors are then the same; a block is
// rounded to float32 on its first use, whichever pass that is), and the
// CG goes on from the vectors kept here. All is small: three M×c matrices
// and the centres.
//
// Fit checks that a state fits it (the number of points, the shift, the
// centres, the block layout and the tolerance) and refuses it otherwise;
// that the targets are the same is the caller's to check, as they enter
// the state only through R.
type State struct {
	Iteration int   // CG iterations done
	Centres   []int // the centres, ascending
	N         int   // training points
	Shift     float64
	Tol       float64
	// BlockRows and StoredBlocks are the layout of the passes over K_nM
	// (Result.BlockRows, Result.StoredBlocks): the stored blocks are
	// applied in float32, so the result depends on them.
	BlockRows, StoredBlocks int
	// Beta is the iterate, R its residual and P the search direction of
	// the CG on the preconditioned system (M×c each).
	Beta, R, P linalg.Matrix[float64]
	// RR holds the residuals' squared norms, Target the squared norms at
	// which each output stops (tol² times the first residual's).
	RR, Target []float64
}

// Check reports whether st is well formed: M ≥ 1 distinct ascending
// centres below N, c ≥ 1 outputs, matrices of M×c and vectors of c
// finite values, and a positive shift, tolerance and block size. It does
// not say whether st belongs to a given Fit (Fit checks that).
func (st *State) Check() error {
	m := len(st.Centres)
	if m < 1 || st.N < m {
		return fmt.Errorf("%w: %d centres of %d points", ErrResume, m, st.N)
	}
	for i, v := range st.Centres {
		if v < 0 || v >= st.N || i > 0 && st.Centres[i-1] >= v {
			return fmt.Errorf("%w: the centres are not distinct ascending points 0…%d", ErrResume, st.N-1)
		}
	}
	c := len(st.RR)
	if c < 1 || len(st.Target) != c {
		return fmt.Errorf("%w: %d residuals and %d targets", ErrResume, c, len(st.Target))
	}
	if st.Iteration < 0 || st.BlockRows < 1 || st.StoredBlocks < 0 || !(st.Shift > 0) || !(st.Tol > 0) ||
		math.IsInf(st.Shift, 0) || math.IsInf(st.Tol, 0) {
		return fmt.Errorf("%w: iteration %d, block of %d rows, %d stored blocks, shift %v, tolerance %v",
			ErrResume, st.Iteration, st.BlockRows, st.StoredBlocks, st.Shift, st.Tol)
	}
	for _, v := range []linalg.Matrix[float64]{st.Beta, st.R, st.P} {
		if v.Rows != m || v.Cols != c || v.Stride != c || len(v.Data) != m*c {
			return fmt.Errorf("%w: a CG vector of %d×%d, want %d×%d", ErrResume, v.Rows, v.Cols, m, c)
		}
		if !finite(v.Data) {
			return fmt.Errorf("%w: a CG vector holds NaN or ±Inf", ErrResume)
		}
	}
	if !finite(st.RR) || !finite(st.Target) {
		return fmt.Errorf("%w: a residual norm is NaN or ±Inf", ErrResume)
	}
	return nil
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// check reports whether st is a state of the fit s (stored blocks kept,
// tolerance tol).
func (st *State) check(s *solver, stored int, tol float64) error {
	if err := st.Check(); err != nil {
		return err
	}
	diff := func(what string, a, b any) error {
		return fmt.Errorf("%w: %s: %v in the state, %v in this fit", ErrResume, what, a, b)
	}
	switch {
	case st.N != s.n:
		return diff("training points", st.N, s.n)
	case len(st.Centres) != s.m:
		return diff("centres", len(st.Centres), s.m)
	case len(st.RR) != s.c:
		return diff("outputs", len(st.RR), s.c)
	case st.Shift != s.shift:
		return diff("shift", st.Shift, s.shift)
	case st.Tol != tol:
		return diff("tolerance", st.Tol, tol)
	case !slices.Equal(st.Centres, s.centres):
		return fmt.Errorf("%w: the centres differ (another seed, way of drawing them, or kernel)", ErrResume)
	case st.BlockRows != s.blockRows:
		return diff("rows per block of K_nM", st.BlockRows, s.blockRows)
	case st.StoredBlocks != stored:
		return diff("blocks of K_nM kept in float32 (StoreBytes)", st.StoredBlocks, stored)
	}
	return nil
}

// cgStart returns the CG's starting state: resume's vectors (copied), or
// the residual of β = 0, r = BᵀK_nMᵀY, from a pass over K_nM.
func (s *solver) cgStart(ctx context.Context, y linalg.Matrix[float64], tol float64, resume *State) (*State, error) {
	if resume != nil {
		return s.state(resume.Iteration, tol, resume.Beta, resume.R, resume.P, resume.RR, resume.Target), nil
	}
	r := linalg.New[float64](s.m, s.c)
	if err := s.pass(ctx, linalg.Matrix[float64]{}, y, r); err != nil {
		return nil, err
	}
	if err := s.applyBt(r); err != nil {
		return nil, err
	}
	rr := colDots(r, r)
	target := make([]float64, s.c)
	for j := range target {
		target[j] = tol * tol * rr[j]
	}
	return &State{Beta: linalg.New[float64](s.m, s.c), R: r, P: r.Clone(), RR: rr, Target: target}, nil
}

// state returns a State of s holding copies of the vectors.
func (s *solver) state(iter int, tol float64, beta, r, p linalg.Matrix[float64], rr, target []float64) *State {
	return &State{Iteration: iter, Centres: slices.Clone(s.centres), N: s.n, Shift: s.shift, Tol: tol,
		BlockRows: s.blockRows, StoredBlocks: len(s.stored),
		Beta: beta.Clone(), R: r.Clone(), P: p.Clone(), RR: slices.Clone(rr), Target: slices.Clone(target)}
}
