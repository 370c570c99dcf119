// Package svm holds the paper's family of l2-regularised kernel machines
// (Table 1 of Chen et al., NeurIPS 2021): the losses with their
// (sub)derivatives, the kernel machine g(x) = Σᵢ αᵢ K(x, xᵢ) (+ b), the
// subgradient trainers of Appendix A.1 (eq. 16 and its minibatch form, for
// every loss), the network trainer NetworkStepper that trains a finite
// NTK-parameterised network beside them on the same batches (the Stepper
// contract), exact reference solvers (kernel ridge regression by Cholesky;
// the soft-margin, 2-norm and ε-insensitive SVM duals by SMO), LIBSVM data
// and precomputed-kernel formats, and a checksummed model format.
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
// # Training loop
//
// Subgradient training is an open loop. A Stepper advances one model on
// the batches it is handed, evaluates it (the objective, the outputs on
// the training and held-out points) and saves or restores its state; the
// KernelStepper is the kernel machine of App. A.1 (eq. 16 and its
// minibatch form), and NetworkStepper is another. A
// Driver owns what the trainers share: one BatchStream (or the full
// batch), the step size (constant, or Pegasos' 1/(λt)), the time t = Σ η,
// the log-spaced evaluations (LogSteps; an evaluation at a step comes
// before its update, so step 1 is the initial state), early stopping,
// cancellation and checkpoints. Several steppers on one Driver see the same
// batches in the same order, which is how a network and its kernel machine
// are trained side by side. A checkpoint (Driver.SaveState) holds the
// driver's position, the stream's state and every stepper's state, and a
// run resumed from it (Driver.LoadState) is bit-identical to an
// uninterrupted one. Train is a KernelStepper under a Driver.
//
// # Networks as kernel machines
//
// Extractor observes a network's training run (any loss, full batch or
// minibatch, float32 or float64) and accumulates the kernel of Theorem 4.1,
// K_T(x, xᵢ) = e^{−λT}∫₀ᵀ s·|l'ᵢ(t)|·Θ̂(w_t; x, xᵢ)·e^{λt} dt, with the
// weights aᵢ = −sign(l'ᵢ(0)) and offset b, so that the network equals
// K_T a + b; it reports the difference and every point where the theorem's
// sign assumption breaks. RunObserved trains a NetworkStepper and shows every
// state to such observers, and ExtractConfigFor gives the extraction that
// matches each of the stepper's regularisation modes exactly (the decay
// rate and target of its penalty). GeneralizationBound turns that machine into the
// bound of Appendix B (Lemmas B.1 and B.2), with a ramp loss, a union bound
// over a grid of RKHS norms, and the choices of the authors' script
// generalization.py for comparison.
//
// The package reads and writes through io.Reader and io.Writer; opening,
// naming and atomically replacing files is the caller's job (the one
// exception, NetworkStepper.SaveWeights, hands a path to ntk's
// Network.Save).
package svm
