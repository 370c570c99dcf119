// Package train is the training loop that every trainer of ntksvm runs
// in: the kernel machines' subgradient trainer (svm.KernelStepper), the
// network trainer (network.Stepper), and the extraction of Theorem 4.1
// watching a network (extract.Extractor.Watch).
//
// A Stepper owns one model (a kernel machine's α, a network's weights):
// it steps on the batches it is handed, evaluates itself and saves or
// restores its state. A Driver owns what trainers share: one BatchStream
// (or the full batch), the step size (constant, or Pegasos' 1/(λt)), the
// time t = Σ η, the log-spaced evaluations (LogSteps; an evaluation at a
// step comes before its update, so step 1 is the initial state), early
// stopping, cancellation and checkpoints. Several steppers on one Driver
// see the same batches in the same order, which is how a network and its
// kernel machine are trained side by side. Observers see the state after
// every update, with the batch of the next one. The Driver measures the
// time of every stepper's steps and evaluations and of every observer
// (RunStats), runs to a given step (RunTo) and reports through one
// Recorder: the evaluations, the progress after every update, the
// periodic checkpoints and the interruption (Event). A checkpoint
// (Driver.SaveState) holds the driver's position, the stream's state and
// every stepper's state, and a run resumed from it (Driver.LoadState) is
// bit-identical to an uninterrupted one.
//
// Where things go: a new trainer is a type implementing Stepper (and
// ObjectiveStepper if its objective is cheaper than an evaluation) in the
// package of its model, as svm.KernelStepper and network.Stepper are; a
// new way of watching a run (a certificate along training, a recorder of
// weights) is an Observer or a Recorder. This package knows no model, no
// kernel and no matrix; the dependency test (internal/deps) keeps it so.
package train
