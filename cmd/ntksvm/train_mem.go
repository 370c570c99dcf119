package main

import (
	"fmt"

	"github.com/ntksvm/ntksvm/internal/membudget"
	"github.com/ntksvm/ntksvm/svm"
)

// checkMemory refuses, before the Gram is allocated, a training run whose
// kernel matrices and solver workspace do not fit in the memory available
// (the smallest of the free memory, a cgroup limit, RLIMIT_AS and
// GOMEMLIMIT), naming what each part needs.
func (f *trainFlags) checkMemory() error {
	n := f.trainSet.X.Rows
	elem := 8
	if f.kernel.Float32 {
		elem = 4
	}
	var needs []membudget.Need
	if f.widenGram() {
		needs = append(needs, membudget.Need{What: fmt.Sprintf("the Gram %d×%d (float32, widened to float64 in place)", n, n), Bytes: membudget.Matrix(n, n, 8)})
	} else {
		needs = append(needs, membudget.Need{What: fmt.Sprintf("the Gram %d×%d %s", n, n, f.kernel.Type()), Bytes: membudget.Matrix(n, n, elem)})
	}
	if f.cfg.Solver == svm.SolverExact && f.cfg.Machine == svm.MachineKRR && elem == 4 && !f.widenGram() {
		needs = append(needs, membudget.Need{What: "the float64 copy KRR factorises", Bytes: membudget.Matrix(n, n, 8)})
	}
	if f.testSet != nil && f.cfg.Solver == svm.SolverSubgradient {
		nt := f.testSet.X.Rows
		needs = append(needs, membudget.Need{What: fmt.Sprintf("the test kernel %d×%d", nt, n), Bytes: membudget.Matrix(nt, n, elem)})
	}
	// The solvers' vectors (α, g, the SMO's caches and two kernel rows).
	needs = append(needs, membudget.Need{What: "the solver's workspace", Bytes: membudget.Matrix(n, 16, 8)})
	avail, ok := availableMemory()
	if err := membudget.CheckNeeds(avail, ok, needs...); err != nil {
		return fmt.Errorf("train: %w; train on fewer points (--first) or with --precision float32", err)
	}
	return nil
}

// checkKernelMemory refuses, before it is allocated, a kernel of
// rows×cols elements of elem bytes that does not fit in the memory
// available: the whole kernel when capBytes ≤ 0 (no cap) or it fits under
// the cap, else the block of rows the cap allows.
func checkKernelMemory(rows, cols, elem int, capBytes int64) error {
	need := membudget.Matrix(rows, cols, elem)
	what := fmt.Sprintf("the kernel %d×%d", rows, cols)
	if capBytes > 0 && need > uint64(capBytes) {
		need, what = uint64(capBytes), "a block of kernel rows under --mem-cap"
	}
	avail, ok := availableMemory()
	if err := membudget.CheckNeeds(avail, ok, membudget.Need{What: what, Bytes: need}); err != nil {
		return fmt.Errorf("%w; lower --mem-cap (0 means no cap)", err)
	}
	return nil
}
