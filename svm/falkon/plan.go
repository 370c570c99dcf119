package falkon

import (
	"fmt"

	"github.com/ntksvm/ntksvm/internal/membudget"
)

// MaxCentres returns the largest number of centres M ≤ n whose Fit, for n
// points and c outputs, fits budget bytes of which fixed are already
// taken (the inputs and the caller's own), by Bytes with the default
// block. The error (a *membudget.NeedError) says what a single centre
// needs when not even that fits.
func MaxCentres(n, c int, budget, fixed int64) (int, error) {
	if n < 1 || c < 1 {
		return 0, fmt.Errorf("falkon: %d points, %d outputs", n, c)
	}
	if need := Bytes(n, 1, c, 0) + fixed; need > budget {
		return 0, &membudget.NeedError{What: fmt.Sprintf("Falkon on %d points with %d outputs", n, c), Need: need, Budget: budget}
	}
	lo, hi := 1, n // Bytes grows with M: the largest M that fits
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if Bytes(n, mid, c, 0)+fixed <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo, nil
}

// CheckBudget returns a *membudget.NeedError naming what Fit with M
// centres needs if it does not fit budget bytes beside fixed ones.
func CheckBudget(n, m, c int, budget, fixed int64) error {
	return membudget.Check(fmt.Sprintf("Falkon with M = %d centres on %d points", m, n), Bytes(n, m, c, 0)+fixed, budget,
		"use fewer centres or a larger budget")
}
