package network

import (
	"fmt"
	"github.com/ntksvm/ntksvm/svm"
	"math"
)

// ParseConfig returns the Config named by the spellings a
// command line or a JSON configuration uses: the loss (ParseLoss, with ε for
// the eps-insensitive loss), the penalty (ParseRegularization) and the
// objective (ParseObjective), with λ. Batch, KeepF0 and MemCap are left
// zero for the caller. The error names the field at fault.
func ParseConfig(loss string, epsilon float64, reg, objective string, lambda float64) (Config, error) {
	var c Config
	var err error
	if c.Loss, err = svm.ParseLoss(loss); err != nil {
		return c, fmt.Errorf("loss: %w", err)
	}
	if !(epsilon >= 0) || math.IsInf(epsilon, 0) {
		return c, fmt.Errorf("epsilon = %v; want a finite ε ≥ 0", epsilon)
	}
	c.Loss.Epsilon = epsilon
	if c.Reg, err = ParseRegularization(reg); err != nil {
		return c, fmt.Errorf("reg: %w", err)
	}
	if c.Objective, err = svm.ParseObjective(objective); err != nil {
		return c, fmt.Errorf("objective: %w", err)
	}
	if !(lambda >= 0) || math.IsInf(lambda, 0) {
		return c, fmt.Errorf("lambda = %v; want a finite λ ≥ 0", lambda)
	}
	c.Lambda = lambda
	return c, nil
}
