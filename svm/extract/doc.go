// Package extract turns a network's training run into a kernel machine
// and bounds how well that machine generalises.
//
// Extractor observes a network's training (any loss, full batch or
// minibatch, float32 or float64) and accumulates the kernel of Theorem 4.1
// of Chen et al. (NeurIPS 2021),
// K_T(x, xᵢ) = e^{−λT}∫₀ᵀ s·|l'ᵢ(t)|·Θ̂(w_t; x, xᵢ)·e^{λt} dt, with the
// weights aᵢ = −sign(l'ᵢ(0)) and offset b, so that the network equals
// K_T a + b; it reports the difference and every point where the
// theorem's sign assumption breaks. Extractor.Watch makes it a
// train.Observer of a network.Stepper on a train.Driver, and ConfigFor
// gives the extraction that matches each of the stepper's regularisation
// modes exactly (the decay rate and target of its penalty).
// GeneralizationBound turns that machine into the bound of Appendix B
// (Lemmas B.1 and B.2), with a ramp loss, a union bound over a grid of
// RKHS norms, and the choices of the authors' script generalization.py for
// comparison.
//
// A new quantity computed along a network's training (another kernel,
// another bound) goes here, as an Observer of the Driver; certificates of
// a finished machine go to ibp.
package extract
