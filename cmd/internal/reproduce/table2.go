package reproduce

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/ntksvm/ntksvm/ibp"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/mnist"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
)

// The recipe of the authors' train_sgd.py with svm_sgd.yaml (the run
// directory ..._100_1_0.001_64_6 names it): batch 64, η = 1, λ = 0.001, mean
// hinge, f₀ subtracted from the network, seed 6; the SVM's α decays only on
// its batch (lazy decay), the network's penalty is λ/2‖W_last/√m‖².
const (
	t2Batch     = 64
	t2LR        = 1.0
	t2Lambda    = 0.001
	t2Seed      = 6
	t2SVMEpochs = 300
	t2NNEpochs  = 100
	t2Pick      = 100 // the "100 test" column
	t2PickSeed  = 0
)

// t2NN are the network rows of Table 2: width, δ on the 100 points and on
// the full test set (correctly classified points only).
var t2NN = []struct {
	width       int
	pick, full  string
	quickEpochs int
	paperOnly   bool
}{
	{1000, "7.4485e-3", "7.2708e-3", 25, false},
	{10000, "2.9861e-3", "2.9367e-3", 0, true},
	{100000, "0.99098e-3", "0.97410e-3", 0, true},
}

// table2Entry is the entry of the paper's Table 2.
var table2Entry = &Entry{
	Name:  "table2",
	Title: "Table 2: certified ℓ∞ radii of networks and of their SVM",
	Paper: "Two-layer ReLU networks (widths 10³ to 10⁶) and the NTK SVM trained with the same SGD recipe on MNIST 0/1, all at 99.95 % test accuracy; " +
		"mean IBP radius on correctly classified test points 7.2708e-3 (10³), 2.9367e-3 (10⁴), 0.97410e-3 (10⁵) shrinking like 1/√m, " +
		"while the SVM's certificate gives 7.9733e-3 (full test) and 8.0541e-3 (100 test points).",
	MNIST:    true,
	Run:      runTable2,
	Estimate: estimateTable2,
}

// t2Points returns the 100 test points of the "100 test" column: drawn with
// mnist.Subset (seed 0), since torch's DataLoader draw cannot be repeated.
func t2Points(n int) []int { return mnist.Subset(n, t2Pick, t2PickSeed) }

func runTable2(ctx context.Context, env *Env) (*Result, error) {
	train, test, err := env.MNIST()
	if err != nil {
		return nil, err
	}
	res := &Result{}
	if err := table2SVM(ctx, env, train, test, res); err != nil {
		return nil, err
	}
	env.Forget("gram") // table2 runs after table3, the Gram's other user
	var full []float64
	for _, w := range t2NN {
		if w.paperOnly && env.Scale != Paper {
			res.Reductions = append(res.Reductions, fmt.Sprintf("no width-%d network (--paper trains it for 100 epochs)", w.width))
			continue
		}
		d, err := table2NN(ctx, env, train, test, w.width, w.quickEpochs, w.pick, w.full, res)
		if err != nil {
			return nil, err
		}
		full = append(full, d)
	}
	if len(full) >= 2 {
		res.Rows = append(res.Rows, Row{Quantity: "NN δ(10³)/δ(10⁴), full test", Paper: "2.476", Ours: full[0] / full[1],
			Tol: Band(2, math.Round(12*math.Sqrt(10))/10), Reason: "IBP radii shrink like 1/√m (ratio → √10 ≈ 3.16 at large width)"})
	}
	res.Notes = append(res.Notes,
		"The \"100 test\" points are 100 test indices drawn by mnist.Subset with seed 0 (the authors' draw came from torch's DataLoader and cannot be repeated); misclassified ones are skipped, as in robust_svm.py. "+
			"Network and SVM see the same minibatch order (BatchStream seed 6), which the authors' code did not guarantee.",
		"Network certificates use IBP with f₀ at the clean point subtracted (ibp.py, as the paper's numbers); that is not sound, since f₀ varies over the ball — the sound difference-network radii are given beside.")
	return res, nil
}

// table2SVM trains the SVM with the recipe under the NTK and certifies it.
func table2SVM(ctx context.Context, env *Env, train, test *mnist.Task[float64], res *Result) error {
	k, err := trainGram(ctx, env)
	if err != nil {
		return err
	}
	t0 := time.Now()
	steps := t2SVMEpochs * ((train.X.Rows + t2Batch - 1) / t2Batch)
	tr, err := svm.Train(ctx, svm.NewDense(k), train.Y, svm.Config{Loss: svm.Hinge, Lambda: t2Lambda, Objective: svm.Mean, LR: t2LR,
		Batch: t2Batch, Decay: svm.Lazy, Steps: steps, Seed: t2Seed})
	if err != nil {
		return err
	}
	full, err := certifyKernel(ctx, env, train, test, tr.Machine.Alpha, nil, true)
	if err != nil {
		return err
	}
	pick, err := certifyKernel(ctx, env, train, test, tr.Machine.Alpha, t2Points(test.X.Rows), true)
	if err != nil {
		return err
	}
	env.logf("  SVM: %d steps, %d/%d correct, mean δ %.5g full, %.5g on 100 (%s)", steps, full.correct, test.X.Rows, full.sum.Mean, pick.sum.Mean,
		time.Since(t0).Round(100*time.Millisecond))
	seedReason := "our minibatch order (seed 6 of BatchStream) is not torch's, and the paper averages 5 runs"
	res.Rows = append(res.Rows,
		Row{Quantity: "SVM: correct of 2115", Paper: "2114", Ours: float64(full.correct), Tol: Exact(), Reason: seedReason},
		Row{Quantity: "SVM: mean δ, full test (correct points)", Paper: "7.9733e-3", Ours: full.sum.Mean, Tol: Rel(0.02), Reason: seedReason},
		Row{Quantity: "SVM: std δ, full test", Paper: "2.1396e-3", Ours: full.sum.Std, Tol: Rel(0.05), Reason: seedReason},
		Row{Quantity: "SVM: mean δ, 100 test points", Paper: "8.0541e-3", Ours: pick.sum.Mean, Tol: Rel(0.08),
			Reason: "other 100 points (torch's draw cannot be repeated): the mean of 100 radii of std 2.6e-3 moves by about ±3 %"})
	return nil
}

// nnReduction states the reduction of a network row at env's scale.
func nnReduction(env *Env, width, quickEpochs int) string {
	if env.Scale == Paper {
		return ""
	}
	return fmt.Sprintf("width %d trained %d of %d epochs", width, quickEpochs, t2NNEpochs)
}

// trainNN trains a network of the given width with the recipe for epochs
// epochs and returns it with its initialisation.
func trainNN(ctx context.Context, train, test *mnist.Task[float64], width, epochs int) (net, net0 *ntk.Network[float64], err error) {
	if net, err = ntk.NewNetwork[float64](train.X.Cols, width, 1, 1, 0, t2Seed); err != nil {
		return nil, nil, err
	}
	if net0, err = ntk.NewNetwork[float64](train.X.Cols, width, 1, 1, 0, t2Seed); err != nil {
		return nil, nil, err
	}
	st, err := svm.NewNetworkStepper(net, train.X, train.Y, linalg.Matrix[float64]{},
		svm.NetworkConfig{Loss: svm.Hinge, Lambda: t2Lambda, Objective: svm.Mean, Reg: svm.RegPaper, Batch: t2Batch})
	if err != nil {
		return nil, nil, err
	}
	stream, err := svm.NewBatchStream(train.X.Rows, t2Batch, t2Seed)
	if err != nil {
		return nil, nil, err
	}
	d := &svm.Driver{Steppers: []svm.Stepper{st}, Stream: stream, Epochs: epochs, LR: t2LR}
	if _, err := d.Run(ctx); err != nil {
		return nil, nil, err
	}
	return st.Network(), net0, nil
}

// certifyNN certifies net − net0 by IBP on the correctly classified points
// of idx (nil: all test points).
func certifyNN(ctx context.Context, env *Env, net, net0 *ntk.Network[float64], test *mnist.Task[float64], idx []int, f0 ibp.F0Mode) (correct int, s ibp.Summary, err error) {
	c, err := ibp.NewNetwork(net, net0, test.X, ibp.NetworkOptions{F0: f0})
	if err != nil {
		return 0, s, err
	}
	if idx == nil {
		idx = make([]int, c.Len())
		for i := range idx {
			idx[i] = i
		}
	}
	var pts []int
	for _, i := range idx {
		if c.Output(i)*test.Y[i] > 0 {
			pts = append(pts, i)
		}
	}
	for i := 0; i < c.Len(); i++ {
		if c.Output(i)*test.Y[i] > 0 {
			correct++
		}
	}
	rs, err := ibp.CertifyAll(ctx, c, pts, ibp.Linf, ibp.NetworkSearch(), env.Threads, nil)
	if err != nil {
		return 0, s, err
	}
	return correct, ibp.Summarize(rs), nil
}

// table2NN trains and certifies the network of one width and returns its
// full-test mean radius (f₀ subtracted at the clean point).
func table2NN(ctx context.Context, env *Env, train, test *mnist.Task[float64], width, quickEpochs int, pick, full string, res *Result) (float64, error) {
	epochs := t2NNEpochs
	if env.Scale != Paper {
		epochs = quickEpochs
	}
	t0 := time.Now()
	net, net0, err := trainNN(ctx, train, test, width, epochs)
	if err != nil {
		return 0, err
	}
	correct, sf, err := certifyNN(ctx, env, net, net0, test, nil, ibp.F0Clean)
	if err != nil {
		return 0, err
	}
	_, sp, err := certifyNN(ctx, env, net, net0, test, t2Points(test.X.Rows), ibp.F0Clean)
	if err != nil {
		return 0, err
	}
	_, ss, err := certifyNN(ctx, env, net, net0, test, nil, ibp.F0Sound)
	if err != nil {
		return 0, err
	}
	env.logf("  NN width %d, %d epochs: %d correct, mean δ %.5g full, %.5g on 100, sound %.5g (%s)", width, epochs, correct, sf.Mean, sp.Mean, ss.Mean,
		time.Since(t0).Round(100*time.Millisecond))
	red := nnReduction(env, width, quickEpochs)
	reason := "5 runs of unknown seeds averaged in the paper; our initialisation and batch order are not torch's"
	if red != "" {
		reason = "trained for fewer epochs than the paper's 100; " + reason
	}
	res.Rows = append(res.Rows,
		Row{Quantity: fmt.Sprintf("NN width %d: correct of 2115", width), Paper: "2114", Ours: float64(correct), Tol: Exact(), Reduction: red, Reason: reason},
		Row{Quantity: fmt.Sprintf("NN width %d: mean δ, full test", width), Paper: full, Ours: sf.Mean, Tol: Rel(0.15), Reduction: red, Reason: reason},
		Row{Quantity: fmt.Sprintf("NN width %d: mean δ, 100 test points", width), Paper: pick, Ours: sp.Mean, Tol: Rel(0.2), Reduction: red,
			Reason: "other 100 points than torch's draw; " + reason})
	res.Notes = append(res.Notes, fmt.Sprintf("Width %d: the sound certificate (IBP of f_T − f₀ through the difference network) gives a mean full-test radius of %.4g against %.4g with f₀ fixed at the clean point.",
		width, ss.Mean, sf.Mean))
	return sf.Mean, nil
}

// estimateTable2 times the Gram of 2,000 points, 20 SVM steps and 5 network
// steps of each width, and scales them to the paper's run.
func estimateTable2(ctx context.Context, env *Env) (time.Duration, error) {
	train, _, err := env.MNIST()
	if err != nil {
		return 0, err
	}
	n := train.X.Rows
	const m = 2000
	t0 := time.Now()
	k := linalg.New[float64](m, m)
	if err := ntk.GramInto(ctx, train.X.Slice(0, m, 0, train.X.Cols), paperKernel, ntk.Options{}, k, linalg.Matrix[float64]{}); err != nil {
		return 0, err
	}
	est := float64(time.Since(t0)) * float64(n) * float64(n) / (m * m)
	t0 = time.Now()
	if _, err := svm.Train(ctx, svm.NewDense(k), train.Y[:m], svm.Config{Loss: svm.Hinge, Lambda: t2Lambda, Objective: svm.Mean, LR: t2LR,
		Batch: t2Batch, Decay: svm.Lazy, Steps: 200, Seed: t2Seed}); err != nil {
		return 0, err
	}
	stepsPerEpoch := float64((n + t2Batch - 1) / t2Batch)
	est += float64(time.Since(t0)) / 200 * float64(n) / m * stepsPerEpoch * t2SVMEpochs
	for _, w := range t2NN {
		net, err := ntk.NewNetwork[float64](train.X.Cols, w.width, 1, 1, 0, t2Seed)
		if err != nil {
			return 0, err
		}
		st, err := svm.NewNetworkStepper(net, train.X.Slice(0, t2Batch*5, 0, train.X.Cols), train.Y[:t2Batch*5], linalg.Matrix[float64]{},
			svm.NetworkConfig{Loss: svm.Hinge, Lambda: t2Lambda, Objective: svm.Mean, Reg: svm.RegPaper, Batch: t2Batch})
		if err != nil {
			return 0, err
		}
		t0 = time.Now()
		for s := 0; s < 5; s++ {
			b := make([]int, t2Batch)
			for i := range b {
				b[i] = s*t2Batch + i
			}
			if err := st.Step(b, t2LR); err != nil {
				return 0, err
			}
		}
		est += float64(time.Since(t0)) / 5 * stepsPerEpoch * t2NNEpochs
	}
	return time.Duration(est), nil
}
