package equiv

import "fmt"

// Mapping states how λ enters the two sides of one run, and the decay rate
// each side's regulariser puts on its outputs, per unit of time t = Σ η̂
// (see the package documentation for the table).
type Mapping struct {
	// NetworkPenalty is the network's penalty R(W) in words.
	NetworkPenalty string `json:"network_penalty"`
	// NetworkDecay is the rate at which R pulls the network's outputs
	// f − f₀ toward 0 per unit t (paper eq. 9's λ): λ for theory, λ/m for
	// paper (which pulls f itself, f₀ included), 0 for none; NaN for
	// last-layer, which decays only the last layer's share.
	NetworkDecay Num `json:"network_decay_rate"`
	// KernelLambda is the λ handed to the kernel machine, KernelDecay its
	// minibatch decay (a full batch decays every α).
	KernelLambda float64 `json:"kernel_lambda"`
	KernelDecay  string  `json:"kernel_decay"`
	// KernelRate is the kernel machine's decay rate of g per unit t: λ, or
	// λ·B/n in expectation for the lazy decay of minibatches of B.
	KernelRate float64 `json:"kernel_decay_rate"`
	// KernelEq7 is KernelRate in the units of the sum objective, paper
	// eq. 7 (n·rate for the mean objective): the lazy decay's λ' = B·λ.
	KernelEq7 float64 `json:"kernel_lambda_eq7"`
	// Matched reports whether the two rates are equal (the theory
	// settings); the authors' settings differ by design.
	Matched bool `json:"matched"`
}

// mapping returns the Mapping of a run of width m on n training points.
func (c *Config) mapping(p parsed, m, n int) Mapping {
	lam := c.Lambda
	var mp Mapping
	switch c.Reg {
	case "theory":
		mp.NetworkPenalty = "λ/2·Σ_l ‖W_l − W_l,0‖² (every layer)"
		mp.NetworkDecay = Num(lam)
	case "paper":
		mp.NetworkPenalty = "λ/2·‖W_last/√m‖² (train_sgd.py)"
		mp.NetworkDecay = Num(lam / float64(m))
	case "last-layer":
		mp.NetworkPenalty = "λ/2·‖W_last − W_last,0‖²"
		mp.NetworkDecay = Num(nan())
	default:
		mp.NetworkPenalty = "none"
		lam = 0
	}
	mp.KernelLambda = lam
	mp.KernelDecay = p.decay.String()
	full := c.Batch == 0 || c.Batch >= n
	if full {
		mp.KernelDecay = "full batch"
	}
	mp.KernelRate = lam
	if !full && p.decay.String() == "lazy" {
		mp.KernelRate = lam * float64(c.Batch) / float64(n)
	}
	mp.KernelEq7 = mp.KernelRate
	if c.Objective == "mean" {
		mp.KernelEq7 *= float64(n)
	}
	mp.Matched = float64(mp.NetworkDecay) == mp.KernelRate
	return mp
}

// String is the mapping in one line.
func (m Mapping) String() string {
	nd := "the last layer's share only"
	if !isNaN(float64(m.NetworkDecay)) {
		nd = fmt.Sprintf("%.4g per unit t", float64(m.NetworkDecay))
	}
	match := "differ (as in the authors' code)"
	if m.Matched {
		match = "match"
	}
	return fmt.Sprintf("network penalty %s, decay %s; kernel machine λ = %g, %s decay, %.4g per unit t (eq. 7 λ' = %.4g); rates %s",
		m.NetworkPenalty, nd, m.KernelLambda, m.KernelDecay, m.KernelRate, m.KernelEq7, match)
}
