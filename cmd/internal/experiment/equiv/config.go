package equiv

import (
	"errors"
	"math"
	"slices"

	expt "github.com/ntksvm/ntksvm/cmd/internal/experiment" // the shared skeleton (this package has its own experiment type)
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/network"
)

// ErrConfig marks a configuration that cannot run (a bad flag value, a
// preset that does not exist, tracked points out of range).
var ErrConfig = errors.New("equiv: bad configuration")

func configErr(format string, args ...any) error {
	return expt.Errorf(ErrConfig, format, args...)
}

// Kernel machines beside the network (Config.Kernel).
const (
	// KernelAnalytic is the infinite-width NTK of the architecture (the
	// neural-tangents kernel the authors' SVM used).
	KernelAnalytic = "analytic"
	// KernelEmpirical is the network's own tangent kernel Θ̂(W_0) at
	// initialisation: the kernel machine the finite network follows while
	// its kernel stays constant, which separates finite-width kernel error
	// from drift during training.
	KernelEmpirical = "empirical"
	// KernelBoth runs both machines beside the network.
	KernelBoth = "both"
)

// Config is one equivalence experiment: one network per run (a width and a
// step size) trained beside its kernel machine(s) on the same batches. Its
// JSON form is what summary.json and config.json hold, and what a resumed
// run reads back.
type Config struct {
	// Preset is the preset the values came from ("" for none).
	Preset string `json:"preset"`
	// Quick reports whether the preset's reduced setting was chosen;
	// Reductions says what it changed.
	Quick      bool     `json:"quick"`
	Reductions []string `json:"quick_reductions,omitempty"`
	// Overrides names the settings changed from the preset's (command-line
	// flags), which take precedence over Reductions.
	Overrides []string `json:"overrides,omitempty"`

	Loss      string  `json:"loss"`    // svm.ParseLoss name
	Epsilon   float64 `json:"epsilon"` // of the eps-insensitive loss
	Reg       string  `json:"reg"`     // paper, theory, last-layer or none
	Objective string  `json:"objective"`
	// Decay is the kernel machine's minibatch decay (lazy or exact); ""
	// takes the mode's default (see DefaultDecay).
	Decay  string  `json:"decay"`
	Lambda float64 `json:"lambda"`

	Widths []int     `json:"widths"` // network widths m
	Depth  int       `json:"depth"`  // hidden layers L
	LRs    []float64 `json:"lrs"`    // step sizes η̂
	Batch  int       `json:"batch"`  // 0: full batch

	// Exactly one of Steps, Epochs and TMax sets the length of a run:
	// Steps updates, Epochs passes over the data, or the steps that reach
	// time t = step·η ≥ TMax.
	Steps  int     `json:"steps,omitempty"`
	Epochs int     `json:"epochs,omitempty"`
	TMax   float64 `json:"t_max,omitempty"`
	// MaxSteps > 0 caps every run's steps (the quick fig1 setting).
	MaxSteps int `json:"max_steps,omitempty"`

	Float64 bool   `json:"float64"` // the network in float64 (else float32)
	NTrain  int    `json:"n_train"` // first N training points; 0: all
	NTest   int    `json:"n_test"`  // first N test points; 0: all
	Kernel  string `json:"kernel"`  // analytic, empirical or both
	Seed    uint64 `json:"seed"`    // network initialisation and batch order
	// Init is the path of given initial weights (a .npz archive or a
	// directory of .npy files in PyTorch's out×in layout, as
	// ntk.LoadNetwork reads them) that every run starts from instead of
	// the weights drawn from Seed, which then orders the batches only. The
	// weights must be a network of the one width and the depth of the
	// configuration on the data's inputs, without biases (σ_w = 1, σ_b = 0).
	Init string `json:"init,omitempty"`
	// Seeds > 1 repeats every width at the first step size with the seeds
	// Seed, Seed+1, …: the width sweep then fits every (width, gap) pair
	// and averages the gaps per width (0 means 1).
	Seeds int `json:"seeds,omitempty"`
	// Evals is the count of logspace(0, log10(steps), Evals) whose unique
	// rounded values are the evaluation steps (train_sgd.py's step_test).
	Evals int `json:"evals"`
	// TrackTrain and TrackTest are the points whose outputs are recorded
	// (indices into the training and test sets as used); nil picks five
	// spread evenly.
	TrackTrain []int `json:"track_train"`
	TrackTest  []int `json:"track_test"`
}

// Presets lists the preset names Preset accepts.
var Presets = []string{"fig1", "figA1", "custom"}

// Tracked points of the authors' train_sgd.py: np.random.seed(6), then five
// train and five test indices drawn with replacement from the 0/1 sets.
var (
	figA1TrackTrain = []int{2761, 8419, 10196, 4714, 8527}
	figA1TrackTest  = []int{848, 1305, 1721, 26, 1953}
)

// Preset returns the configuration of a named preset:
//
//   - "fig1", paper Fig. 1 (§5 (I), App. A.2): the first 128 training points
//     of MNIST 0/1 (and the first 128 test points), a 3-layer network
//     (L = 2 hidden layers), widths 10,000 and 900, η̂ ∈ {0.1, 0.01}, λ =
//     0.001, mean hinge loss, full-batch subgradient descent up to t = η̂·step
//     = 10³, the authors' regularisation, 100 log-spaced evaluations.
//     Quick: widths 900 and 2000, at most 1,000 steps per run (t ≤ 100 at
//     η̂ = 0.1, t ≤ 10 at η̂ = 0.01).
//   - "figA1", paper Fig. A.1 (train_sgd.py): all 12,665 training and 2,115
//     test points of MNIST 0/1, a 2-layer network (L = 1), width 10,000,
//     η̂ = 1, batch 64, λ = 0.001, mean hinge, the authors' penalty and lazy
//     kernel-machine decay, 300 epochs (59,400 steps) with 300 log-spaced
//     evaluation counts (236 unique steps), the authors' tracked points.
//     Quick: width 2,000 and 10 epochs (1,980 steps).
//   - "custom": a small default to edit with flags: 128 points, L = 1,
//     width 1,024, η̂ = 0.1, λ = 0.001, mean hinge, theory regularisation,
//     full batch, 1,000 steps.
//
// Every preset uses the analytic NTK, float32 networks and seed 6 (the
// authors' model seed; our generator is not torch's, so only the
// distribution of the weights matches theirs).
func Preset(name string, quick bool) (Config, error) {
	c := Config{Preset: name, Loss: "hinge", Objective: "mean", Lambda: 0.001, Kernel: KernelAnalytic, Seed: 6}
	switch name {
	case "fig1":
		c.Reg = "paper"
		c.NTrain, c.NTest = 128, 128
		c.Depth = 2
		c.Widths = []int{10000, 900}
		c.LRs = []float64{0.1, 0.01}
		c.TMax = 1000
		c.Evals = 100
		if quick {
			c.Widths = []int{2000, 900}
			c.MaxSteps = 1000
			c.Reductions = []string{"widths 2000 and 900 (paper: 10000 and 900)",
				"at most 1000 steps per run: t ≤ 100 at η = 0.1 and t ≤ 10 at η = 0.01 (paper: t ≤ 1000)"}
		}
	case "figA1":
		c.Reg = "paper"
		c.Decay = "lazy"
		c.Depth = 1
		c.Widths = []int{10000}
		c.LRs = []float64{1}
		c.Batch = 64
		c.Epochs = 300
		c.Evals = 300
		c.TrackTrain = slices.Clone(figA1TrackTrain)
		c.TrackTest = slices.Clone(figA1TrackTest)
		if quick {
			c.Widths = []int{2000}
			c.Epochs = 10
			c.Reductions = []string{"width 2000 (paper: 10000)", "10 epochs = 1980 steps (paper: 300 epochs = 59400 steps)"}
		}
	case "custom", "":
		c.Preset = "custom"
		c.Reg = "theory"
		c.NTrain, c.NTest = 128, 128
		c.Depth = 1
		c.Widths = []int{1024}
		c.LRs = []float64{0.1}
		c.Steps = 1000
		c.Evals = 100
		if quick {
			c.Steps = 200
			c.Reductions = []string{"200 steps (custom: 1000)"}
		}
	default:
		return Config{}, configErr("unknown preset %q (want fig1, figA1 or custom)", name)
	}
	c.Quick = quick
	return c, nil
}

// DefaultDecay returns the kernel machine's minibatch decay that goes with
// a regularisation mode: lazy for the authors' mode (train_sgd.py decays
// only the batch's α), exact otherwise (true stochastic subgradient descent
// on the same objective as the network's).
func DefaultDecay(reg string) string {
	if reg == "paper" {
		return "lazy"
	}
	return "exact"
}

// parsed holds the typed values of a validated Config.
type parsed struct {
	net   network.Config // loss, penalty, objective and λ
	decay svm.Decay
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
	decay := c.Decay
	if decay == "" {
		decay = DefaultDecay(c.Reg)
	}
	if p.decay, err = svm.ParseDecay(decay); err != nil {
		return p, configErr("decay: %v", err)
	}
	switch {
	case len(c.Widths) == 0:
		return p, configErr("no width")
	case len(c.LRs) == 0:
		return p, configErr("no learning rate")
	case c.Depth < 1 || c.Depth > 64:
		return p, configErr("depth = %d; want 1 ≤ L ≤ 64", c.Depth)
	case c.Batch < 0:
		return p, configErr("batch = %d; want ≥ 0 (0: full batch)", c.Batch)
	case c.NTrain < 0 || c.NTest < 0:
		return p, configErr("n-train = %d, n-test = %d; want ≥ 0 (0: all)", c.NTrain, c.NTest)
	case c.Evals < 1:
		return p, configErr("evals = %d; want ≥ 1", c.Evals)
	case c.Seeds < 0 || c.Seeds > 1000:
		return p, configErr("seeds = %d; want 1 ≤ seeds ≤ 1000 (0: 1)", c.Seeds)
	case c.MaxSteps < 0:
		return p, configErr("max steps = %d; want ≥ 0", c.MaxSteps)
	case c.Kernel != KernelAnalytic && c.Kernel != KernelEmpirical && c.Kernel != KernelBoth:
		return p, configErr("kernel %q; want analytic, empirical or both", c.Kernel)
	case c.Init != "" && len(c.Widths) != 1:
		return p, configErr("init %s is one network: want one width, not %d", c.Init, len(c.Widths))
	case c.Init != "" && c.Seeds > 1:
		return p, configErr("init %s with %d seeds: the seeds would draw the same weights; give one seed (it orders the batches)", c.Init, c.Seeds)
	}
	n := 0
	if c.Steps != 0 {
		n++
	}
	if c.Epochs != 0 {
		n++
	}
	if c.TMax != 0 {
		n++
	}
	switch {
	case n != 1:
		return p, configErr("set exactly one of steps (%d), epochs (%d) and t-max (%v)", c.Steps, c.Epochs, c.TMax)
	case c.Steps < 0 || c.Epochs < 0:
		return p, configErr("steps = %d, epochs = %d; want ≥ 1", c.Steps, c.Epochs)
	case c.TMax < 0 || math.IsNaN(c.TMax) || math.IsInf(c.TMax, 0):
		return p, configErr("t-max = %v; want a finite t > 0", c.TMax)
	}
	seen := map[int]bool{}
	for _, m := range c.Widths {
		if m < 1 {
			return p, configErr("width %d; want ≥ 1", m)
		}
		if seen[m] {
			return p, configErr("width %d given twice", m)
		}
		seen[m] = true
	}
	for _, lr := range c.LRs {
		if !(lr > 0) || math.IsInf(lr, 0) {
			return p, configErr("learning rate %v; want a finite η > 0", lr)
		}
	}
	for _, i := range append(slices.Clone(c.TrackTrain), c.TrackTest...) {
		if i < 0 {
			return p, configErr("tracked index %d; want ≥ 0", i)
		}
	}
	return p, nil
}

// RunSpec is one network of an experiment: its width, its step size and
// its number of steps.
type RunSpec struct {
	Width int     `json:"width"`
	LR    float64 `json:"lr"`
	Steps int     `json:"steps"`
	Seed  uint64  `json:"seed"` // of the network's weights and the batch order
}

// Runs returns the runs of c on n training points, as the paper's Fig. 1
// draws them: every width at the first step size, then the widest width at
// each other step size (a single width gives one run per step size); with
// Seeds > 1 the widths at the first step size are repeated with each
// further seed.
func (c *Config) Runs(n int) []RunSpec {
	perEpoch := 1
	if c.Batch > 0 && c.Batch < n {
		perEpoch = (n + c.Batch - 1) / c.Batch
	}
	steps := func(lr float64) int {
		var s int
		switch {
		case c.Steps > 0:
			s = c.Steps
		case c.Epochs > 0:
			s = c.Epochs * perEpoch
		default:
			s = int(math.Ceil(c.TMax/lr - 1e-9))
		}
		if c.MaxSteps > 0 {
			s = min(s, c.MaxSteps)
		}
		return max(s, 1)
	}
	var runs []RunSpec
	for _, m := range c.Widths {
		runs = append(runs, RunSpec{Width: m, LR: c.LRs[0], Steps: steps(c.LRs[0]), Seed: c.Seed})
	}
	widest := slices.Max(c.Widths)
	for _, lr := range c.LRs[1:] {
		runs = append(runs, RunSpec{Width: widest, LR: lr, Steps: steps(lr), Seed: c.Seed})
	}
	for k := 1; k < c.Seeds; k++ {
		for _, m := range c.Widths {
			runs = append(runs, RunSpec{Width: m, LR: c.LRs[0], Steps: steps(c.LRs[0]), Seed: c.Seed + uint64(k)})
		}
	}
	return runs
}

// defaultTrack returns five indices spread evenly over n points (fewer if
// n < 5): ⌊(2k+1)·n/10⌋.
func defaultTrack(n int) []int {
	k := min(5, n)
	idx := make([]int, k)
	for j := range idx {
		idx[j] = (2*j + 1) * n / (2 * k)
	}
	return idx
}
