// Package network trains a finite NTK-parameterised ReLU network
// (ntk.Network) by (sub)gradient descent as a train.Stepper, so that a
// train.Driver can run it beside the kernel machines of package svm on the
// same batches: the network of the paper's Figure 1 and its kernel machine
// trained side by side, with the same loss (svm.Loss), objective (sum or
// mean) and λ. Regularization names the penalty and so the function-space
// decay the outputs feel; extract.ConfigFor gives the extraction that
// matches each. A Stepper saves and restores its whole state, weights,
// initial weights and f₀ included, for bit-identical resumption.
//
// A new network trainer (another architecture, another optimiser) goes
// into this package as another train.Stepper.
package network
