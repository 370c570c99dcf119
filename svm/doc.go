// Package svm holds the paper's family of l2-regularised kernel machines
// (Table 1 of Chen et al., NeurIPS 2021): the losses with their
// (sub)derivatives, the kernel machine g(x) = Σᵢ αᵢ K(x, xᵢ) (+ b) on a
// KernelMatrix, its exact solvers (kernel ridge regression by Cholesky;
// the soft-margin, 2-norm and ε-insensitive SVM duals by SMO), its
// subgradient trainer of Appendix A.1 (eq. 16 and its minibatch form, for
// every loss: KernelStepper, TrainSubgradient), Fit, which picks the
// solver of a machine, the LIBSVM and precomputed-kernel text formats, and
// a checksummed model format.
//
// # Objectives
//
// Two forms are named explicitly everywhere (paper eqs. 7 and 11):
//
//	sum:  L(β) = λ/2‖β‖² + Σᵢ l(g(xᵢ), yᵢ)
//	mean: L(β) = λ/2‖β‖² + (1/n) Σᵢ l(g(xᵢ), yᵢ)
//
// with g(x) = ⟨β, Φ(x)⟩ = Σᵢ αᵢ K(x, xᵢ). The mean objective with λ equals
// the sum objective with nλ, up to the factor 1/n on the whole objective.
//
// The soft-margin SVM with the sum objective is the classic
// ½‖β‖² + C Σ hinge with C = 1/λ (the objective is divided by λ). Its dual
// variables aᵢ ∈ [0, C] map to the kernel expansion as αᵢ = yᵢ·aᵢ.
//
// # Where things go
//
// The packages below svm split the work by job:
//
//   - svm/train is the training loop (Stepper, Driver, BatchStream,
//     checkpoints, Recorder); KernelStepper is one of its Steppers and
//     TrainSubgradient runs it on a Driver.
//   - svm/network trains a finite NTK-parameterised network as a Stepper,
//     on the same batches as a kernel machine.
//   - svm/extract turns a network's training run into the kernel machine
//     of Theorem 4.1 and bounds its generalisation (Appendix B).
//   - svm/dataset reads labelled data sets, svm/classify fits multi-class
//     machines on them, svm/ondemand computes Gram rows on demand and
//     svm/falkon solves KRR on more points than a Gram holds.
//
// A new kernel machine or solver goes here; a new trainer of another model
// implements train.Stepper in a package of its own; a new certificate goes
// to ibp, which takes matrices, not these types.
//
// The package reads and writes through io.Reader and io.Writer; opening,
// naming and atomically replacing files is the caller's job.
package svm
