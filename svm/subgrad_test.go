package svm

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ntksvm/ntksvm/svm/train"
)

// TestFullBatchFunctionSpace checks that the α dynamics reproduce the
// function-space update g ← (1 − ηλ)g − η·s·K·l'(g) (paper eq. 12 for any
// loss) step for step, for every loss and both objectives.
func TestFullBatchFunctionSpace(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, y := blobs(rng, 30, 1)
	k := rbfGram(x, x, 0.5)
	for _, loss := range []Loss{Hinge, SquaredHinge, Squared, EpsInsensitiveLoss(0.2), Logistic} {
		for _, obj := range []Objective{ObjectiveSum, ObjectiveMean} {
			const eta, lambda, steps = 0.05, 0.1, 25
			s := 1.0
			if obj == ObjectiveMean {
				s = 1 / float64(len(y))
			}
			want := make([]float64, len(y)) // g in function space
			var logged []float64
			cfg := SubgradientConfig{Loss: loss, Lambda: lambda, Objective: obj, LR: eta, Steps: steps, LogAt: []int{steps}}
			res, err := trainLogged(context.Background(), NewDense(k), y, cfg, FitHooks{Log: func(p *Progress) error {
				logged = slices.Clone(p.Alpha)
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			var atLog []float64
			for step := 1; step <= steps; step++ {
				if step == steps {
					atLog = slices.Clone(want)
				}
				d := make([]float64, len(y))
				for i := range d {
					d[i] = loss.Deriv(want[i], y[i])
				}
				next := make([]float64, len(y))
				for i := range next {
					var kd float64
					for j := range d {
						kd += k.At(i, j) * d[j]
					}
					next[i] = (1-eta*lambda)*want[i] - eta*s*kd
				}
				want = next
			}
			got := make([]float64, len(y))
			NewDense(k).MulVec(got, res.Machine.Alpha)
			for i := range want {
				if math.Abs(got[i]-want[i]) > 1e-10 || math.Abs(res.Outputs[i]-want[i]) > 1e-10 {
					t.Fatalf("%v %v: g[%d] = %g (kept %g), function space %g", loss, obj, i, got[i], res.Outputs[i], want[i])
				}
			}
			// The log at the last step sees the state before its update.
			gl := make([]float64, len(y))
			NewDense(k).MulVec(gl, logged)
			for i := range gl {
				if math.Abs(gl[i]-atLog[i]) > 1e-10 {
					t.Fatalf("%v %v: logged g[%d] = %g, want the state before step %d: %g", loss, obj, i, gl[i], steps, atLog[i])
				}
			}
		}
	}
}

// TestDecaySemantics checks one minibatch step by hand: lazy decay leaves
// entries outside the batch alone, exact decay scales them by 1 − ηλ.
func TestDecaySemantics(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x, y := blobs(rng, 12, 1)
	k := rbfGram(x, x, 0.5)
	init := make([]float64, len(y))
	for i := range init {
		init[i] = rng.NormFloat64()
	}
	g := make([]float64, len(y))
	NewDense(k).MulVec(g, init)
	const eta, lambda, B = 0.3, 0.5, 5
	for _, decay := range []Decay{DecayLazy, DecayExact} {
		for _, obj := range []Objective{ObjectiveSum, ObjectiveMean} {
			stream, _ := train.NewBatchStream(len(y), B, 9)
			batch, _ := stream.Next()
			inBatch := map[int]bool{}
			for _, i := range batch {
				inBatch[i] = true
			}
			res, err := TrainSubgradient(context.Background(), NewDense(k), y, SubgradientConfig{Loss: Hinge, Lambda: lambda,
				Objective: obj, LR: eta, Batch: B, Decay: decay, Steps: 1, Seed: 9, Init: init})
			if err != nil {
				t.Fatal(err)
			}
			sB := 1.0 / B
			if obj == ObjectiveSum {
				sB = float64(len(y)) / B
			}
			for i, a := range res.Machine.Alpha {
				want := init[i]
				if inBatch[i] || decay == DecayExact {
					want *= 1 - eta*lambda
				}
				if inBatch[i] {
					want -= eta * sB * Hinge.Deriv(g[i], y[i])
				}
				if math.Abs(a-want) > 1e-12 {
					t.Errorf("%v %v: α[%d] = %g, want %g (in batch: %v)", decay, obj, i, a, want, inBatch[i])
				}
			}
			gk := make([]float64, len(y))
			NewDense(k).MulVec(gk, res.Machine.Alpha)
			for i := range gk {
				if math.Abs(gk[i]-res.Outputs[i]) > 1e-12 {
					t.Errorf("%v: incremental g[%d] = %g, Kα = %g", decay, i, res.Outputs[i], gk[i])
				}
			}
		}
	}
}

// TestSubgradientReachesOptimum runs Pegasos-step subgradient descent and
// full-batch constant-step descent on the soft-margin SVM without bias and
// checks that the sum objective gets within 1% of the exact dual solver's
// optimum, for float64 and float32 Grams.
func TestSubgradientReachesOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, y := blobs(rng, 40, 0.7)
	k := rbfGram(x, x, 0.5)
	const lambda = 0.5
	exact, err := SolveDual(context.Background(), NewDense(k), y, DualConfig{Loss: Hinge, Lambda: lambda, Tol: 1e-9})
	if err != nil || !exact.Converged {
		t.Fatalf("exact solve: %v, %v", exact, err)
	}
	steps := 20000
	if testing.Short() {
		steps = 5000
	}
	for _, tc := range []struct {
		name string
		km   KernelMatrix
		cfg  SubgradientConfig
	}{
		{"pegasos-minibatch", NewDense(k), SubgradientConfig{Pegasos: true, Batch: 8, Decay: DecayExact}},
		{"pegasos-full", NewDense(k), SubgradientConfig{Pegasos: true}},
		{"pegasos-float32", NewDense(to32(k)), SubgradientConfig{Pegasos: true}},
	} {
		cfg := tc.cfg
		cfg.Loss, cfg.Lambda, cfg.Objective, cfg.Steps, cfg.Seed = Hinge, lambda, ObjectiveSum, steps, 1
		res, err := TrainSubgradient(context.Background(), tc.km, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if r := (res.Objective - exact.Objective) / exact.Objective; r > 0.01 || r < -1e-6 {
			t.Errorf("%s: objective %g, exact optimum %g (relative excess %.3g)", tc.name, res.Objective, exact.Objective, r)
		}
	}
}

func TestTrainEarlyStopAndCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x, y := blobs(rng, 20, 1)
	k := NewDense(rbfGram(x, x, 0.5))
	res, err := TrainSubgradient(context.Background(), k, y, SubgradientConfig{Loss: Squared, Lambda: 1, LR: 0.05, Steps: 100000, Tol: 1e-12})
	if err != nil || !res.Converged || res.Steps >= 100000 {
		t.Errorf("early stop: converged %v after %d steps, err %v", res.Converged, res.Steps, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	res, err = TrainSubgradient(ctx, k, y, SubgradientConfig{Loss: Hinge, Lambda: 1, LR: 0.05, Steps: 1000, LogAt: []int{1, 5, 10},
		Recorder: train.RecorderFunc(func(r *train.Record) error {
			if r.Event != train.Evaluated {
				return nil
			}
			calls++
			if r.Step == 5 {
				cancel()
			}
			return nil
		})})
	if !errors.Is(err, context.Canceled) || res == nil || res.Steps != 5 || calls != 2 {
		t.Errorf("cancel at step 5: err %v, steps %d, log calls %d", err, res.Steps, calls)
	}
}

func TestTrainLogContents(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	x, y := blobs(rng, 24, 2)
	xt, yt := blobs(rng, 10, 2)
	k := NewDense(rbfGram(x, x, 0.5))
	kt := NewDense(rbfGram(xt, x, 0.5))
	var steps []int
	var first, last Progress
	res, err := trainLogged(context.Background(), k, y, SubgradientConfig{Loss: Hinge, Lambda: 0.01, Objective: ObjectiveMean, LR: 1,
		Batch: 4, Steps: 60, Seed: 1, LogAt: train.LogSteps(60, 10), Test: &EvalSet{K: kt, Y: yt}}, FitHooks{
		TrackTrain: []int{0, 3}, TrackTest: []int{2},
		Log: func(p *Progress) error {
			if len(steps) == 0 {
				first = *p
				first.TrainOut = slices.Clone(p.TrainOut)
			}
			steps = append(steps, p.Step)
			last = *p
			last.TrainOut, last.TestOut = slices.Clone(p.TrainOut), slices.Clone(p.TestOut)
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(steps, train.LogSteps(60, 10)) {
		t.Errorf("logged at %v, want %v", steps, train.LogSteps(60, 10))
	}
	if first.TrainAcc != 0 || first.TrainLoss != 1 || first.TrainOut[0] != 0 || first.T != 1 {
		t.Errorf("initial state: acc %g loss %g out %v t %g; want 0, 1, 0, 1", first.TrainAcc, first.TrainLoss, first.TrainOut, first.T)
	}
	if last.TrainAcc < 0.9 || last.TestAcc < 0.9 || last.Epoch != 59/6 {
		t.Errorf("last log: train acc %g, test acc %g, epoch %d", last.TrainAcc, last.TestAcc, last.Epoch)
	}
	if res.Steps != 60 {
		t.Errorf("%d steps, want 60", res.Steps)
	}
}

func TestTrainRejectsBadInput(t *testing.T) {
	k := NewDense(rbfGram(blobsX(4), blobsX(4), 1))
	y := []float64{1, -1, 1, -1}
	good := SubgradientConfig{Loss: Hinge, Lambda: 1, LR: 0.1, Steps: 1}
	for name, mod := range map[string]func(*SubgradientConfig){
		"loss":     func(c *SubgradientConfig) { c.Loss = Loss{} },
		"lambda":   func(c *SubgradientConfig) { c.Lambda = -1 },
		"lr":       func(c *SubgradientConfig) { c.LR = 0 },
		"steps":    func(c *SubgradientConfig) { c.Steps = 0 },
		"pegasos":  func(c *SubgradientConfig) { c.Pegasos, c.Lambda = true, 0 },
		"init":     func(c *SubgradientConfig) { c.Init = []float64{1} },
		"unsorted": func(c *SubgradientConfig) { c.LogAt = []int{3, 1} },
	} {
		cfg := good
		mod(&cfg)
		if _, err := TrainSubgradient(context.Background(), k, y, cfg); !errors.Is(err, ErrInput) {
			t.Errorf("%s: err %v, want ErrInput", name, err)
		}
	}
	if _, err := trainLogged(context.Background(), k, y, good, FitHooks{TrackTrain: []int{4}}); !errors.Is(err, ErrInput) {
		t.Errorf("tracked index out of range: err %v", err)
	}
	if _, err := TrainSubgradient(context.Background(), k, []float64{1, 0, 1, -1}, good); !errors.Is(err, ErrInput) {
		t.Errorf("label 0 with hinge: err %v", err)
	}
	if _, err := TrainSubgradient(context.Background(), k, y, good); err != nil {
		t.Errorf("good config: %v", err)
	}
}

func blobsX(n int) linalgMatrix {
	x, _ := blobs(rand.New(rand.NewPCG(1, 1)), n, 1)
	return x
}

func TestParseObjectiveDecay(t *testing.T) {
	for _, tc := range []struct {
		in   string
		obj  Objective
		fail bool
	}{{"sum", ObjectiveSum, false}, {"mean", ObjectiveMean, false}, {"Sum", 0, true}, {"", 0, true}} {
		o, err := ParseObjective(tc.in)
		if (err != nil) != tc.fail || !tc.fail && (o != tc.obj || o.String() != tc.in) {
			t.Errorf("ParseObjective(%q) = %v, %v", tc.in, o, err)
		}
	}
	for _, tc := range []struct {
		in   string
		d    Decay
		fail bool
	}{{"lazy", DecayLazy, false}, {"exact", DecayExact, false}, {"eager", 0, true}} {
		d, err := ParseDecay(tc.in)
		if (err != nil) != tc.fail || !tc.fail && (d != tc.d || d.String() != tc.in) {
			t.Errorf("ParseDecay(%q) = %v, %v", tc.in, d, err)
		}
	}
}

func TestSolveDualRejectsBadInput(t *testing.T) {
	k := NewDense(rbfGram(blobsX(4), blobsX(4), 1))
	y := []float64{1, -1, 1, -1}
	for name, tc := range map[string]struct {
		k   KernelMatrix
		y   []float64
		cfg DualConfig
	}{
		"lambda0":  {k, y, DualConfig{Loss: Hinge}},
		"logistic": {k, y, DualConfig{Loss: Logistic, Lambda: 1}},
		"squared":  {k, y, DualConfig{Loss: Squared, Lambda: 1}},
		"labels":   {k, []float64{1, 2, 1, -1}, DualConfig{Loss: Hinge, Lambda: 1}},
		"length":   {k, y[:3], DualConfig{Loss: Hinge, Lambda: 1}},
		"nonsq":    {NewDense(rbfGram(blobsX(3), blobsX(4), 1)), y[:3], DualConfig{Loss: Hinge, Lambda: 1}},
		"tol":      {k, y, DualConfig{Loss: Hinge, Lambda: 1, Tol: -1}},
	} {
		if _, err := SolveDual(context.Background(), tc.k, tc.y, tc.cfg); !errors.Is(err, ErrInput) {
			t.Errorf("%s: err %v, want ErrInput", name, err)
		}
	}
}
