// Package ntk computes the neural tangent kernel (NTK) Θ and the NNGP
// kernel Σ of fully connected ReLU networks, both at infinite width (exact,
// by the arc-cosine recursion) and for a finite network (the empirical
// tangent kernel Θ̂(w; x, x')), together with that finite network itself.
//
// # Conventions
//
// The network is the NTK-parameterised ReLU MLP of the paper and of
// neural-tangents v0.3.6 (stax.Dense and stax.Relu, the library the
// authors' train_sgd.py computes its kernel with): L hidden layers of width m,
//
//	z¹ = σ_w·W¹x/√d + σ_b·b¹,  z^{h+1} = σ_w·W^{h+1}·relu(z^h)/√m + σ_b·b^{h+1},  f = z^{L+1},
//
// all weights N(0, 1), no bias by default (σ_b = 0). Its infinite-width
// kernels follow the arc-cosine recursion of neural-tangents v0.3.6
// (stax.py) with the input kernel x·x'/d:
// Σ¹ = σ_w²·x·x'/d + σ_b², Θ¹ = Σ¹, and for h = 1…L
//
//	K^h = √(Σ^h_xx Σ^h_x'x')·(sin θ + (π − θ) cos θ)/(2π),  K̇^h = (π − θ)/(2π),
//	Σ^{h+1} = σ_w²·K^h + σ_b²,  Θ^{h+1} = Σ^{h+1} + σ_w²·Θ^h·K̇^h,
//
// θ being the angle whose cosine is the correlation Σ^h_xx'/√(Σ^h_xx Σ^h_x'x'),
// clamped to [−1, 1] (and taken as ±1 within 8 ulp of ±1, the size of its
// own rounding, so that duplicate and opposite inputs get exact values; the
// diagonal of a Gram matrix is computed by the exact diagonal recursion).
// NNGP = Σ^{L+1}, NTK = Θ^{L+1}. For L = 1, σ_w = 1,
// σ_b = 0 this is the paper's eq. (63): Θ = ‖x‖‖x'‖·h(u)/(2πd) with
// h(u) = 2u(π − arccos u) + √(1 − u²). On the diagonal (σ_b = 0, σ_w = 1)
// Θ(x, x) = (L+1)·‖x‖²/(d·2^L) and Σ(x, x) = ‖x‖²/(d·2^L).
//
// Fixed layers: when the first F weight layers (and biases) are fixed at
// their initial values and only the last L+1−F are trained (Arora et al.,
// ICLR 2020, "Harnessing the power of infinitely wide deep nets on
// small-data tasks"), the kernel keeps only the terms of the trained layers:
// Θ_F^{F+1} = Σ^{F+1}, then Θ_F^{h+1} = Σ^{h+1} + σ_w²·Θ_F^h·K̇^h for h = F+1…L,
// and the kernel is Θ_F^{L+1} = Σ_{h=F+1…L+1} Σ^h·Π_{h'=h…L} σ_w²K̇^{h'}.
// F = 0 is the NTK and F = L the NNGP (Spec.Fixed).
//
// Zero-norm inputs: every term of the recursion that involves x carries a
// factor ‖x‖, so as ‖x‖ → 0 the kernels tend to their σ_b-only values. The
// package uses exactly that limit: when Σ^h(x, x) is 0 (or its square root
// below 1e-150) the correlation is taken as 0 and K^h = 0, so a zero input
// gives finite values (all 0 when σ_b = 0), never NaN.
//
// # Finite networks
//
// Network is that MLP at finite width, with weights from the portable
// seeded generator Normal (same weights on every platform), a batched
// forward pass and the gradients of Σ c_i f(x_i) with respect to every
// parameter, the empirical NTK Θ̂ by the per-layer identity (GEMMs, no
// per-sample gradients), and weights saved and loaded as .npz or a folder
// of .npy files in PyTorch's out×in orientation (see Save).
//
// # Speed
//
// Gram matrices start with X·Xᵀ on linalg's packed GEMM (the lower
// triangle only), then apply all L layers of the recursion to one row of
// pairs at a time while it is in cache, with the fused SIMD kernel
// asm.ArcCosLayer64, over GOMAXPROCS workers; each pair is computed once and
// the upper triangle mirrored. float32 matrices get a float32 Gram product
// (as JAX does) and a float64 recursion, rounded once at the end; pairs
// that are nearly parallel then carry the float32 product's error in their
// angle (about 1e-4 relative), as in any float32 implementation. Blocks
// computes a kernel larger than memory in blocks of rows under a memory
// cap, for a caller to write or consume one block at a time.
package ntk
