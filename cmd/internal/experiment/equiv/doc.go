// Package equiv is the equivalence experiment of "On the Equivalence between
// Neural Network and Support Vector Machine" (Chen et al., NeurIPS 2021,
// §5 (I), Fig. 1 and App. A, Fig. A.1): a finite NTK-parameterised ReLU
// network and the kernel machine with its NTK trained side by side, and
// the gap between them as the width grows. It is the pipeline behind
// "ntksvm equiv": configuration and presets, the runs, the curves, the
// output files, the width sweep and its slope fit.
//
// # One driver, the same start, the same batches
//
// Each run puts a network (network.Stepper) and one or two kernel
// machines (svm.KernelStepper) on one train.Driver: the same seeded batches
// (train.BatchStream, or the full batch), the same η̂ every step, evaluations
// at the same log-spaced steps (train.LogSteps, before the step's update, as
// the authors' train_sgd.py logs), checkpoints holding every stepper.
// Both sides start at 0: the network's outputs are f(x; W_t) − f(x; W_0)
// (f₀ subtraction) and the kernel machine starts at α = 0, so g₀ = 0 (App.
// A.2). The kernel machine's kernel is the analytic infinite-width NTK
// (neural-tangents conventions: σ_w = 1, no bias, input kernel x·x'/d,
// whose scale makes the same η̂ right for both sides), or the network's own
// tangent kernel Θ̂(W_0) at initialisation ("empirical"), or both.
//
// # λ on the two sides
//
// Time is t = Σ η̂ (step·η̂). With the mean objective (paper eq. 11) both
// sides minimise penalty + (1/n)·Σ loss, with the sum objective (eq. 7)
// penalty + Σ loss; the losses, their scaling per batch (1/|B| for mean,
// n/|B| for sum) and η̂ are the same on both sides. The penalty, and the
// rate at which it pulls the outputs toward 0 per unit t, is:
//
//	--reg       network penalty                 network decay of f − f₀   kernel machine   its decay per unit t
//	theory      λ/2·Σ_l ‖W_l − W_l,0‖²          λ (eq. 9)                 λ, exact decay   λ
//	paper       λ/2·‖W_last/√m‖² (train_sgd.py) λ/m, and on f₀ too        λ, lazy decay    λ·B/n (minibatch), λ (full batch)
//	last-layer  λ/2·‖W_last − W_last,0‖²        the last layer's share    λ, exact decay   λ
//	none        0                               0                         0                0
//
// theory is the setting of the theorems: the decay of the linearised
// network ⟨∇f(W_0), W − W_0⟩ under λ/2‖W − W_0‖² is exactly −λ(f − f₀), the
// kernel machine's −λg, so the two match for every batch size with the
// kernel machine's exact decay (every α decays every step). paper is the
// authors' code (train_sgd.py): the network's penalty on the NTK-scaled last
// layer decays f at rate λ/m only, while their SVM decays α_i by (1 − η̂λ)
// only when i is in the batch ("lazy"): per unit t that is λ·B/n in
// expectation, i.e. the sum objective (eq. 7) with λ' = B·λ (64 × 0.001 =
// 0.064, the SVM λ of the paper's Table 3). The two sides of the paper's
// figures therefore differ by design, and the gap grows late in training
// (the SVM's outputs bend back toward 0, the network's do not). --decay
// overrides the kernel machine's decay; Mapping (in summary.json per run)
// states the numbers.
//
// # Outputs
//
// Into the output directory, each file written atomically: summary.json
// (the Summary: configuration, data, per run and evaluation the step, t,
// training and test loss and accuracy of every model, the outputs at the
// tracked points, max and mean |f − g| over the training and test points,
// and the width sweep), curves.csv (the same evaluations, one row each;
// see WriteCurves), config.json (what --resume reads), the figures
// fig1.svg (full batch: the layout of paper Fig. 1) or figA1.svg (minibatch:
// the layout of Fig. A.1, the kernel machine as lines and the network as at
// most 20 markers), gap.svg, and with several widths sweep.csv and
// sweep.svg (max_t |f − g| against m, log–log, with the fitted slope and
// its standard error; the theory predicts −1/2). Each width's gap comes
// from one random network, so it scatters around the trend; --seeds K
// repeats every width with K seeds and the fit takes all K·widths points. Checkpoints runK.ckpt are
// written every N steps and on interrupt, and replaced by runK.done when
// run K ends. A signal abandons the step or evaluation under way; the
// interrupt's checkpoint is written only if it is done within
// InterruptSaveBudget of the signal (a wide network's weights, hundreds of
// MB, are not), else the resumed run continues from the last periodic one.
package equiv
