// Package genbound is the experiment of the paper's §4.1 and Appendix B
// (Fig. B.2): a finite network trained by (sub)gradient descent is, by
// Theorem 4.1, a kernel machine K_T a + b whose kernel is accumulated along
// the run, and that machine's Rademacher complexity (Lemma B.1) gives a
// generalisation bound for the network (Lemma B.2). Run trains the network
// (network.Stepper), extracts the machine at every step (extract.Extractor
// watching it on a train.Driver), evaluates the bound and writes curves.csv,
// summary.json and genbound.svg into an output directory, atomically.
//
// Two settings of the bound are offered. The default is a valid one: the
// ramp loss min(1, l) (bounded by c = 1, 1-Lipschitz), δ = 0.01, the
// function-space decay rate of the network's own penalty, the weights
// |l'ⱼ| inside the kernel, and beside it the union-bound version over a
// geometric grid of RKHS norms (B is chosen after seeing the data). The
// AuthorsCode setting computes what the authors' generalization.py computed
// for their example figure: δ = 0.99, the unclipped hinge, the penalty's λ
// as the kernel's decay rate and its l' mask that never fires (every
// |l'ⱼ| = 1).
package genbound

import (
	"errors"
	"math"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment"
	"github.com/ntksvm/ntksvm/svm/extract"
	"github.com/ntksvm/ntksvm/svm/network"
)

// ErrConfig marks a configuration that cannot run (a bad flag value, a
// preset that does not exist, more points than the data has).
var ErrConfig = errors.New("genbound: bad configuration")

func configErr(format string, args ...any) error {
	return experiment.Errorf(ErrConfig, format, args...)
}

// Config is one run: the network, its training and the bound. Its JSON form
// is what summary.json holds.
type Config struct {
	Preset string `json:"preset"` // the preset the values came from

	Loss      string  `json:"loss"`      // svm.ParseLoss name
	Epsilon   float64 `json:"epsilon"`   // of the eps-insensitive loss
	Reg       string  `json:"reg"`       // paper, theory, last-layer or none (network.ParseRegularization)
	Objective string  `json:"objective"` // sum or mean
	Lambda    float64 `json:"lambda"`    // λ of the penalty
	// KeepF0 trains on f itself instead of f − f₀ (f₀ = f(·; W_0)).
	KeepF0 bool `json:"keep_f0"`

	Width int     `json:"width"` // m
	Depth int     `json:"depth"` // hidden layers L
	LR    float64 `json:"lr"`    // the constant step η; t = k·η
	Steps int     `json:"steps"` // full-batch updates

	NTrain  int    `json:"n_train"` // first N training points (required)
	NTest   int    `json:"n_test"`  // first N test points; 0: all
	Seed    uint64 `json:"seed"`    // the network's initialisation
	Float64 bool   `json:"float64"` // the network in float64 (else float32)

	// Delta is the bound's δ; 0 takes 0.01 (0.99 with AuthorsCode).
	Delta float64 `json:"delta"`
	// AuthorsCode reproduces generalization.py (see the package doc).
	AuthorsCode bool `json:"authors_code"`
}

// Presets lists the names Preset accepts.
var Presets = []string{"figB2"}

// Preset returns the configuration of a named preset:
//
//   - "figB2", paper Fig. B.2 (the authors' generalization.py with
//     config/svm_gene.yaml): the first 1000 training points of MNIST 0/1
//     and the whole test set, a 2-layer network (L = 1) of width 100,
//     full-batch subgradient descent with η = 0.1 for 100 steps (t = 10),
//     λ = 0.001, the mean hinge loss with f₀ subtracted, the authors'
//     penalty λ/2‖W_last/√m‖², float32, seed 0 (the authors' seed; our
//     generator is not torch's, so only the weights' distribution matches),
//     and the valid bound (δ = 0.01, ramp loss).
func Preset(name string) (Config, error) {
	switch name {
	case "figB2":
		return Config{Preset: name, Loss: "hinge", Reg: "paper", Objective: "mean", Lambda: 0.001,
			Width: 100, Depth: 1, LR: 0.1, Steps: 100, NTrain: 1000}, nil
	}
	return Config{}, configErr("unknown preset %q (want figB2)", name)
}

// parsed holds the typed values of a validated Config.
type parsed struct {
	net   network.Config // loss, penalty, objective and λ
	delta float64
}

// Validate checks every value of c that does not depend on the data.
func (c *Config) Validate() error {
	_, err := c.parse()
	return err
}

func (c *Config) parse() (parsed, error) {
	var p parsed
	var err error
	if p.net, err = network.ParseConfig(c.Loss, c.Epsilon, c.Reg, c.Objective, c.Lambda); err != nil {
		return p, configErr("%v", err)
	}
	p.net.KeepF0 = c.KeepF0
	p.delta = c.Delta
	if p.delta == 0 {
		p.delta = 0.01
		if c.AuthorsCode {
			p.delta = 0.99
		}
	}
	switch {
	case c.Width < 1:
		return p, configErr("width = %d; want ≥ 1", c.Width)
	case c.Depth < 1 || c.Depth > 64:
		return p, configErr("depth = %d; want 1 ≤ L ≤ 64", c.Depth)
	case !(c.LR > 0) || math.IsInf(c.LR, 0):
		return p, configErr("lr = %v; want a finite η > 0", c.LR)
	case c.Steps < 1:
		return p, configErr("steps = %d; want ≥ 1", c.Steps)
	case c.NTrain < 1:
		return p, configErr("n-train = %d; want ≥ 1 (the kernel is n×n)", c.NTrain)
	case c.NTest < 0:
		return p, configErr("n-test = %d; want ≥ 0 (0: all)", c.NTest)
	case !(p.delta > 0 && p.delta < 1):
		return p, configErr("delta = %v; want 0 < δ < 1", c.Delta)
	case c.AuthorsCode && !p.net.Loss.Classification():
		return p, configErr("--authors-code takes its weights aⱼ = yⱼ from ±1 labels: want a classification loss, not %s", c.Loss)
	}
	return p, nil
}

// extractConfig returns the Theorem 4.1 extraction that matches the
// network's training (extract.ConfigFor), or the authors' choices.
func (c *Config) extractConfig(p parsed) (extract.Config, error) {
	nc := p.net
	ec, err := extract.ConfigFor(nc, c.Width)
	if err != nil {
		return ec, configErr("%v", err)
	}
	if c.AuthorsCode {
		// generalization.py: every |l'| = 1, a = y, b = 0, and the
		// penalty's λ as the kernel's decay rate whatever the penalty.
		ec.AuthorsCode = true
		ec.Decay = c.Lambda
		if p.net.Reg == network.RegNone {
			ec.Decay = 0
		}
	}
	return ec, nil
}

// boundConfig returns the bound's constants: the training loss clipped to
// [0, c = 1] (the ramp loss for the hinge), its Lipschitz constant ρ in the
// output (1 for the hinge, logistic and ε-insensitive losses; 2 for the
// squared and squared-hinge losses, whose slope 2|1 − yz| is at most 2
// where the loss is below 1), the default grid of RKHS norms; or the
// authors' unclipped loss.
func (c *Config) boundConfig(p parsed) extract.BoundConfig {
	rho := 1.0
	if n := p.net.Loss.Name(); n == "squared" || n == "squared-hinge" {
		rho = 2
	}
	return extract.BoundConfig{Delta: p.delta, Loss: p.net.Loss, Rho: rho, AuthorsCode: c.AuthorsCode}
}
