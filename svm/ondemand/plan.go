package ondemand

import (
	"fmt"

	"github.com/ntksvm/ntksvm/internal/membudget"
	"github.com/ntksvm/ntksvm/linalg"
)

// Plan is the choice, for a memory budget, between a dense training Gram
// and an on-demand one with its cache.
type Plan struct {
	// Dense says the whole n×n Gram of the storage type fits, with the
	// solver's own memory beside it.
	Dense bool
	// Config is the on-demand Gram's (when not Dense): the cache gets
	// what the budget leaves after the solver and a block of rows.
	Config Config
	// Need is the memory the plan uses, at most the budget.
	Need int64
}

// SolverBytes is the memory of svm.SolveDual besides its kernel, for n
// points: about 14 float64 and 2 int vectors of n (2n variables for
// SVR).
func SolverBytes(n int) int64 { return int64(n) * 8 * 32 }

// Choose returns the Plan for n training points whose Gram is stored as
// T, within budget bytes of which fixed are already taken (the inputs X
// and anything else the caller holds). The dense Gram is chosen when it
// fits, else an on-demand Gram whose cache is the rest of the budget, up
// to all n rows. The error (a *membudget.NeedError) says what the
// smallest on-demand plan needs, when even that does not fit: two cached
// rows, one block of DefaultBlockRows rows and the solver.
func Choose[T linalg.Float](n int, budget, fixed int64) (Plan, error) {
	if n < 1 {
		return Plan{}, fmt.Errorf("ondemand: %d points", n)
	}
	rb := RowBytes[T](n)
	solver := SolverBytes(n)
	if dense := rb*int64(n) + solver + fixed; dense <= budget {
		return Plan{Dense: true, Need: dense}, nil
	}
	blk := min(DefaultBlockRows, n)
	base := fixed + solver + int64(blk)*rb + int64(n)*12
	room := budget - base
	if room < 2*rb {
		return Plan{}, &membudget.NeedError{
			What:   fmt.Sprintf("the SMO on an on-demand Gram of %d points (two cached rows, a block of %d rows)", n, blk),
			Need:   base + 2*rb,
			Budget: budget,
		}
	}
	cacheRows := min(room/(rb+12), int64(n))
	cfg := Config{CacheBytes: cacheRows * rb, BlockRows: blk}
	return Plan{Config: cfg, Need: base + cacheRows*(rb+12)}, nil
}
