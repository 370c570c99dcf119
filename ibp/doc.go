// Package ibp computes robustness certificates (paper §4.2, §5 Tables 2 and
// 3, App. H): for a model and a point x, the largest radius δ such that the
// sign of the model's output provably does not change on the ball
// {x' : ‖x' − x‖ ≤ δ} (ℓ∞, the paper's threat model, or ℓ2).
//
// # One shape
//
// A Certifier takes a ball (one of its points as centre, a norm, a radius)
// and returns an interval [lo, hi] that contains the model's output on the
// whole ball. Search is the one radius search that every certifier uses,
// the binary search of the authors' robust_svm.py: start at Init (0.05 for
// kernel machines, 0.01 for networks), bracket [0, 0.3]; at each step,
// with s the worst-case signed output (lo if the clean output is positive,
// −hi if negative), record δ as certified when s ≥ 0 and stop if also
// s < 1e-3 (a tolerance on the margin, not on δ); move the bracket and try
// the midpoint; at most 1000 steps. The result is the largest certified δ,
// or 0 when none is. CertifyAll runs it over many points in parallel.
//
// In the paper's kernel case the margin s(δ) decreases with δ (a larger
// ball only widens every interval), so most steps are decided by margins
// already known: s(δ') < 0 at some δ' ≤ δ, or s(δ') ≥ 1e-3 at some δ' ≥ δ,
// or both ends of the stopping window around δ (with a slack for rounding
// far above its size). Search then evaluates a bound only for the steps
// these do not decide, first at a radius that linear interpolation of the
// known margins predicts will decide this and later steps. The steps, and
// so the radius and Result.Iters, are those of the authors' search; a
// radius recorded without its own bound lies inside a larger certified
// ball. Result.Bounds counts the bounds evaluated: 5 to 6 per point on MNIST
// where the authors' search takes 9 (λ = 1000) to 21 (λ = 0) steps.
//
// There are two certifiers: Kernel for kernel machines g(x) = Σ α_i Θ(x,
// x_i) + b with the infinite-width NTK Θ of any depth (paper Theorem 4.2),
// and Network for finite NTK-parameterised networks by interval bound
// propagation (IBP, App. H.2). Min combines certifiers of several outputs
// at the same points into the certifier of their minimum: a multi-class
// prediction holds on a ball when every margin f_c − f_j (itself a kernel
// machine, with weights α_c − α_j) stays positive there.
//
// With SearchOptions.Grow the bracket's upper end doubles while the margin
// there is still above the tolerance, for inputs in units (a user's
// features) where [0, 0.3] means nothing.
//
// # Kernel machines: the input relaxation (App. H.1)
//
// For an ℓ∞ ball of radius δ in d dimensions, Δ = x' − x has ‖Δ‖₂ ≤ ε = √d·δ
// (ε = r for an ℓ2 ball). Then ‖x'‖ ∈ [max(‖x‖ − ε, 0), ‖x‖ + ε] (triangle
// inequality) and x'·x_i ∈ x·x_i ± ε‖x_i‖ (Cauchy–Schwarz), each bounded
// independently. This is exactly the paper's relaxation, and the default.
// With KernelOptions.Tight, for ℓ∞ the exact range of ‖x'‖ over the box
// (coordinate-wise |x_j| ± δ, floored at 0) and Hölder's |Δ·x_i| ≤ δ‖x_i‖₁
// are intersected with it. With KernelOptions.Clip the ball is intersected
// with the pixel box [0, 1]^d: x' then lies in the box [a, c] with
// a = max(x − w, 0), c = min(x + w, 1) (w = δ, or r, since every coordinate
// of an ℓ2 ball moves by at most r), so ‖Δ‖₂ ≤ ‖e‖ with
// e_j = max(x_j − a_j, c_j − x_j) and ‖a‖ ≤ ‖x'‖ ≤ ‖c‖ (a ≥ 0); both only
// shrink the intervals above, and no step needs more than "x' is in the set".
//
// # Kernel machines: an input map
//
// A machine that standardises its inputs, x ↦ u = (x − μ)/s coordinate by
// coordinate, and may then scale u to the norm √d, is certified in the
// units of x (KernelOptions.Input, Preprocess). With w = 1/s, an ℓ∞ ball
// of radius δ moves u by ‖Δu‖₂ ≤ δ‖w‖₂ (coordinate j by δw_j: the exact
// norm range and Hölder's |Δu·x_i| ≤ δ‖w∘x_i‖₁ with Tight), an ℓ2 ball of
// radius r by ‖Δu‖₂ ≤ r·max_j w_j (and |Δu·x_i| ≤ r‖w∘x_i‖₂ with Tight);
// Clip carries the box through the same map. The scaling to the sphere of
// radius √d sends the ball ‖u' − u‖ ≤ ε into the directions within the
// angle θ, sin θ = ε/‖u‖, of u: x' lies on the sphere within the chord
// √d·2 sin(θ/2) of x, or anywhere on it (or at 0) once ε ≥ ‖u‖. The
// layers below then see the usual ℓ2 radius and norm interval.
//
// # Kernel machines: interval propagation through the NTK recursion
//
// The NTK of L hidden ReLU layers (neural-tangents conventions, as package
// ntk) is, for a pair (x', x_i), Σ¹ = σ_w²·x'·x_i/d + σ_b², Θ¹ = Σ¹, and for
// h = 1…L, with n_a = √Σ^h(x', x'), n_b = √Σ^h(x_i, x_i) and the correlation
// ρ = Σ^h(x', x_i)/(n_a n_b) = cos θ:
//
//	K^h = n_a n_b·J1(ρ)/(2π),  J1(ρ) = √(1 − ρ²) + (π − arccos ρ)·ρ,
//	K̇^h = (π − arccos ρ)/(2π),
//	Σ^{h+1} = σ_w²·K^h + σ_b²,  Θ^{h+1} = Σ^{h+1} + σ_w²·Θ^h·K̇^h,
//
// and Σ^{h+1}(x', x') = σ_w²·Σ^h(x', x')/2 + σ_b². Writing R^h = Θ^h − Σ^h
// (R¹ = 0) and using Σ^h(x', x_i) = n_a n_b ρ,
//
//	Θ^{h+1} = σ_w²·n_a n_b·h(ρ)/(2π) + σ_b² + σ_w²·R^h·K̇^h,  h(ρ) = J1(ρ) + ρ(π − arccos ρ),
//
// which at L = 1, σ_w = 1, σ_b = 0 is the paper's eq. 63–64. Each layer
// maps intervals to intervals, soundly:
//
//   - n_a: the diagonal map s ↦ σ_w²s/2 + σ_b² is increasing, so the
//     interval of Σ^h(x', x') maps end to end; n_b is exact (x_i is fixed).
//   - ρ: for fixed n_a > 0 the ratio s/(n_a n_b) increases with s, and for
//     fixed s it is largest in n_a at n_a's lower end when s ≥ 0 and at its
//     upper end when s < 0 (the paper's rule for u^L, u^U); the result is
//     clipped to [−1, 1], where the true ρ lies. A zero n_b (or 0/0) gives
//     ρ = 0, package ntk's convention, where every term carrying n_b is 0.
//   - J1 and π − arccos are increasing in ρ (their derivatives are
//     π − arccos ρ ≥ 0 and 1/√(1 − ρ²) > 0), so K̇ ∈ [K̇(ρ^L), K̇(ρ^U)] ⊂
//     [0, 1/2] and, J1 ≥ 0 and n_a ≥ 0, K ∈ [n_a^L n_b J1(ρ^L), n_a^U n_b
//     J1(ρ^U)]/(2π).
//   - h is bow-shaped (decreasing on [−1, u*], increasing on [u*, 1],
//     u* ≈ −0.79410, h(u*) ≈ −0.429738): its range over [ρ^L, ρ^U] is
//     [min(h(ρ^L), h(ρ^U)), max(...)], with h(u*) as the minimum when
//     u* is inside; multiplied by n_a ∈ [n_a^L, n_a^U] ≥ 0 by choosing the
//     end by the sign of h (paper's Θ^L, Θ^U).
//   - products with K̇ ≥ 0 of intervals that may be negative (Θ^h, R^h:
//     Σ¹ < 0 when x'·x_i < 0) take the lower end times K̇^U when it is
//     negative, times K̇^L otherwise, and mirrored for the upper end.
//   - Θ^{h+1} is bounded both as above and as Σ^{h+1} + σ_w²·Θ^h·K̇^h; both
//     contain it, so their intersection does. (At L = 1 the second form is
//     used only with Tight, so that the default is the paper's bound.)
//
// Correlations between the quantities are ignored, so the bounds are
// looser than the exact range but never wrong. At L = 1 with the default
// relaxation every operation is the paper's (Theorem 4.2, eq. 63–66), up
// to rounding; Tight and Clip only shrink the inputs, and the second Θ form
// only shrinks the output, so they are never looser. The bound of g is eq.
// 65–66: Σ_{α_i>0} α_i Θ^L_i + Σ_{α_i<0} α_i Θ^U_i + b and its mirror.
//
// The bounds are computed in float64 without directed rounding; they are
// sound up to rounding errors of order 1e-13 relative, far below any
// certified margin the search accepts except a margin of exactly 0.
// Verify checks certificates by sampling points of the ball (corners and
// random directions) and evaluating the exact kernel.
//
// # Networks: interval bound propagation (App. H.2, ibp.py)
//
// Network bounds an NTK-parameterised ReLU network (ntk.Network): with the
// box's centre μ and radius r, a linear layer gives μ' = σ_w·Wμ/√fan_in
// + σ_b·b and r' = σ_w·|W|r/√fan_in (eq. 67), and a ReLU is applied to both
// ends. The first layer uses, for each unit, the exact range of w·x' over the
// ball: w·x ± δ‖w‖₁ (ℓ∞) or ± r‖w‖₂ (ℓ2). The authors' networks output
// f_T − f₀ with f₀ the network at initialisation. F0Clean subtracts f₀ at
// the clean point, as ibp.py does; it is not sound, since f₀ varies over
// the ball. F0Sound (default) bounds f_T(x') − f₀(x') by IBP through the
// difference network, hidden units [W_T; W_0] (block-diagonal in deeper
// layers) and output weights [a_T; −a_0]. IBP radii grow like √m with the
// width m (eq. 69–71), so certified radii shrink like 1/√m.
//
// # Speed
//
// The products x·x_i for all points are one GEMM (linalg.Gemm), the norms
// are precomputed, the training points are ordered by the sign of α_i, and a
// bound walks them in chunks of 256 through all layers with the arc-cosines
// computed by SIMD kernels (linalg.Acos; in the paper's case L = 1, σ_b = 0,
// h itself by linalg.ArcCosFirst at one correlation per pair). The search
// asks only for the end of the interval its margin needs (Kernel.BoundEnd),
// half the work in the paper's case, and skips the steps that known margins
// decide (above). A bound allocates nothing, and CertifyAll runs points in
// parallel.
package ibp
