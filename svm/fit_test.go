package svm

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

func TestParseMachineSolver(t *testing.T) {
	for i, name := range []string{"svm", "svm2", "svr", "krr", "logistic"} {
		m, err := ParseMachine(name)
		if err != nil || m != Machine(i) || m.String() != name {
			t.Errorf("ParseMachine(%q) = %v, %v", name, m, err)
		}
	}
	if _, err := ParseMachine("svm3"); err == nil {
		t.Error("svm3 parsed")
	}
	want := map[Machine]string{MachineSVM: "hinge", MachineSVM2: "squared-hinge", MachineSVR: "eps-insensitive",
		MachineKRR: "squared", MachineLogistic: "logistic"}
	for m, l := range want {
		if got := m.Loss(0.1).Name(); got != l {
			t.Errorf("%v.Loss = %s, want %s", m, got, l)
		}
	}
	for _, s := range []string{"exact", "subgradient"} {
		if v, err := ParseSolver(s); err != nil || v.String() != s {
			t.Errorf("ParseSolver(%q) = %v, %v", s, v, err)
		}
	}
	if _, err := ParseSolver("newton"); err == nil {
		t.Error("newton parsed")
	}
}

// TestFitConfigValidate is the table of which machine/solver pairs and
// option combinations are valid.
func TestFitConfigValidate(t *testing.T) {
	sg := func(m Machine) FitConfig {
		return FitConfig{Machine: m, Solver: SolverSubgradient, Lambda: 0.001, LR: 1, Epochs: 1}
	}
	ex := func(m Machine) FitConfig { return FitConfig{Machine: m, Solver: SolverExact, Lambda: 0.1} }
	mod := func(c FitConfig, f func(*FitConfig)) FitConfig { f(&c); return c }
	for _, tc := range []struct {
		name  string
		cfg   FitConfig
		field string // "" valid
	}{
		{"exact svm", ex(MachineSVM), ""},
		{"exact svm2", ex(MachineSVM2), ""},
		{"exact svr", mod(ex(MachineSVR), func(c *FitConfig) { c.Epsilon = 0.1 }), ""},
		{"exact krr", ex(MachineKRR), ""},
		{"exact krr λ=0", mod(ex(MachineKRR), func(c *FitConfig) { c.Lambda = 0 }), ""},
		{"exact logistic", ex(MachineLogistic), "Solver"},
		{"exact svm λ=0", mod(ex(MachineSVM), func(c *FitConfig) { c.Lambda = 0 }), "Lambda"},
		{"exact krr bias", mod(ex(MachineKRR), func(c *FitConfig) { c.Bias = true }), "Bias"},
		{"exact svm bias", mod(ex(MachineSVM), func(c *FitConfig) { c.Bias = true }), ""},
		{"exact with epochs", mod(ex(MachineSVM), func(c *FitConfig) { c.Epochs = 3 }), "Solver"},
		{"exact with log", mod(ex(MachineSVM), func(c *FitConfig) { c.LogCount = 10 }), "Solver"},
		{"exact gap<0", mod(ex(MachineSVM), func(c *FitConfig) { c.Gap = -1 }), "Gap"},
		{"λ<0", mod(ex(MachineKRR), func(c *FitConfig) { c.Lambda = -1 }), "Lambda"},
		{"λ=Inf", mod(ex(MachineKRR), func(c *FitConfig) { c.Lambda = math.Inf(1) }), "Lambda"},
		{"svr ε<0", mod(ex(MachineSVR), func(c *FitConfig) { c.Epsilon = -1 }), "Epsilon"},
		{"bad objective", mod(ex(MachineKRR), func(c *FitConfig) { c.Objective = 7 }), "Objective"},
		{"subgradient logistic", sg(MachineLogistic), ""},
		{"subgradient svm", sg(MachineSVM), ""},
		{"subgradient bias", mod(sg(MachineSVM), func(c *FitConfig) { c.Bias = true }), "Bias"},
		{"subgradient gap", mod(sg(MachineSVM), func(c *FitConfig) { c.Gap = 1e-3 }), "Gap"},
		{"epochs -1", mod(sg(MachineSVM), func(c *FitConfig) { c.Epochs = -1 }), "Epochs"},
		{"epochs 0 steps 0", mod(sg(MachineSVM), func(c *FitConfig) { c.Epochs = 0 }), "Epochs"},
		{"epochs 0 steps 5", mod(sg(MachineSVM), func(c *FitConfig) { c.Epochs, c.Steps = 0, 5 }), ""},
		{"steps -1", mod(sg(MachineSVM), func(c *FitConfig) { c.Steps = -1 }), "Steps"},
		{"batch -1", mod(sg(MachineSVM), func(c *FitConfig) { c.Batch = -1 }), "Batch"},
		{"lr 0", mod(sg(MachineSVM), func(c *FitConfig) { c.LR = 0 }), "LR"},
		{"pegasos λ=0", mod(sg(MachineSVM), func(c *FitConfig) { c.Pegasos, c.Lambda = true, 0 }), "Pegasos"},
		{"pegasos", mod(sg(MachineSVM), func(c *FitConfig) { c.Pegasos, c.LR = true, 0 }), ""},
		{"log-count -1", mod(sg(MachineSVM), func(c *FitConfig) { c.LogCount = -1 }), "LogCount"},
	} {
		err := tc.cfg.Validate()
		var fe *FieldError
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field):
			t.Errorf("%s: got %v, want an error on %s", tc.name, err, tc.field)
		}
	}
}

func TestStepsAndLambdaUnits(t *testing.T) {
	for _, tc := range []struct{ epochs, n, batch, want int }{
		{1, 100, 0, 1}, {300, 100, 0, 300}, {1, 100, 100, 1}, {1, 100, 200, 1},
		{1, 100, 64, 2}, {300, 12665, 64, 300 * 198}, {2, 10, 3, 8},
	} {
		if got := StepsFromEpochs(tc.epochs, tc.n, tc.batch); got != tc.want {
			t.Errorf("StepsFromEpochs(%d, %d, %d) = %d, want %d", tc.epochs, tc.n, tc.batch, got, tc.want)
		}
	}
	c := FitConfig{Steps: 7, Epochs: 100, Batch: 2}
	if c.TotalSteps(10) != 7 {
		t.Error("Steps does not override Epochs")
	}
	for _, tc := range []struct {
		lambda       float64
		obj          Objective
		n            int
		sum, c, krrC float64
	}{
		{0.064, ObjectiveSum, 12665, 0.064, 15.625, 0.032},
		{0.001, ObjectiveMean, 1000, 1, 1, 0.5},
		{0, ObjectiveSum, 10, 0, math.Inf(1), 0},
	} {
		s := SumLambda(tc.lambda, tc.obj, tc.n)
		if s != tc.sum || 1/s != tc.c || KRRShift(tc.lambda, tc.obj, tc.n) != tc.krrC {
			t.Errorf("λ=%v %v n=%d: sum λ %v (C %v), KRR shift %v; want %v, %v, %v", tc.lambda, tc.obj, tc.n,
				s, 1/s, KRRShift(tc.lambda, tc.obj, tc.n), tc.sum, tc.c, tc.krrC)
		}
	}
}

// TestFitMatchesSolvers: Fit gives what the solver it dispatches to gives,
// with λ converted for the mean objective.
func TestFitMatchesSolvers(t *testing.T) {
	n := 30
	x := linalg.New[float64](n, n)
	y := make([]float64, n)
	for i := range n {
		y[i] = float64(1 - 2*(i%2))
	}
	for i := range n {
		for j := range n {
			d := float64(i - j)
			x.Set(i, j, math.Exp(-d*d/20)+0.1*y[i]*y[j])
		}
	}
	k := NewDense(x)
	ctx := context.Background()
	r, err := Fit(ctx, k, y, FitConfig{Machine: MachineSVM, Solver: SolverExact, Objective: ObjectiveMean, Lambda: 0.01}, FitHooks{})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := SolveDual(ctx, k, y, DualConfig{Loss: Hinge, Lambda: 0.01 * float64(n)})
	if r.Info.C != 1/(0.01*float64(n)) || r.Machine.Alpha[3] != d.Machine.Alpha[3] {
		t.Errorf("mean svm: C %v, α₃ %v vs %v", r.Info.C, r.Machine.Alpha[3], d.Machine.Alpha[3])
	}
	r, err = Fit(ctx, k, y, FitConfig{Machine: MachineKRR, Solver: SolverExact, Lambda: 0.2}, FitHooks{})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := KRR(ctx, k, y, 0.1)
	if r.Info.RidgeShift != 0.1 || r.Machine.Alpha[5] != m.Alpha[5] {
		t.Errorf("krr: shift %v", r.Info.RidgeShift)
	}
	// ConsumeGram: the same α from the in-place factorisation, outputs
	// y − cα within rounding of Kα, and the Gram overwritten.
	kc := linalg.New[float64](n, n)
	copy(kc.Data, x.Data)
	rc, err := Fit(ctx, NewDense(kc), y, FitConfig{Machine: MachineKRR, Solver: SolverExact, Lambda: 0.2}, FitHooks{ConsumeGram: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if rc.Machine.Alpha[i] != r.Machine.Alpha[i] || math.Abs(rc.Outputs[i]-r.Outputs[i]) > 1e-12*(1+math.Abs(r.Outputs[i])) {
			t.Fatalf("consumed Gram, point %d: α %v vs %v, output %v vs %v", i, rc.Machine.Alpha[i], r.Machine.Alpha[i], rc.Outputs[i], r.Outputs[i])
		}
	}
	if slices.Equal(kc.Data, x.Data) {
		t.Error("ConsumeGram left the Gram as it was: the copy was made after all")
	}
	r, err = Fit(ctx, k, y, FitConfig{Machine: MachineSVM, Solver: SolverSubgradient, Lambda: 0.01, LR: 0.1, Epochs: 3, Batch: 7, Seed: 2}, FitHooks{})
	if err != nil || r.Info.Steps != 15 || r.Train == nil {
		t.Fatalf("subgradient: %v %+v", err, r)
	}
	// Labels are checked for the machine; an evaluation set too.
	bad := append([]float64(nil), y...)
	bad[4] = 3
	if _, err := Fit(ctx, k, bad, FitConfig{Machine: MachineSVM, Solver: SolverExact, Lambda: 1}, FitHooks{}); err == nil {
		t.Error("label 3 accepted")
	}
	if err := CheckLabels(MachineSVM, bad); err == nil || !strings.Contains(err.Error(), "label 4 is 3; the hinge loss needs labels −1 or +1") {
		t.Errorf("CheckLabels: %v", err)
	}
	if err := CheckLabels(MachineKRR, bad); err != nil {
		t.Errorf("krr label 3: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Fit(cctx, k, y, FitConfig{Machine: MachineKRR, Solver: SolverExact, Lambda: 0.2}, FitHooks{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled KRR: %v", err)
	}
}

func TestCheckGram(t *testing.T) {
	mk := func(d ...float64) KernelMatrix {
		x := linalg.New[float64](len(d), len(d))
		for i, v := range d {
			x.Set(i, i, v)
		}
		return NewDense(x)
	}
	for _, tc := range []struct {
		diag       []float64
		warn, fail bool
	}{
		{[]float64{1, 2}, false, false},
		{[]float64{0, 2}, false, false},
		{[]float64{1, math.Inf(1)}, false, true},
		{[]float64{math.NaN(), 1}, false, true},
		{[]float64{0, 0}, false, true},
		{[]float64{1e-200, 0}, true, false},
	} {
		w, err := CheckGram(mk(tc.diag...))
		if (w != "") != tc.warn || (err != nil) != tc.fail {
			t.Errorf("diag %v: warning %q, error %v", tc.diag, w, err)
		}
	}
	y := []float64{1, -1}
	if _, err := Fit(context.Background(), mk(0, 0), y, FitConfig{Machine: MachineKRR, Lambda: 1}, FitHooks{}); err == nil || !strings.Contains(err.Error(), "underflows") {
		t.Errorf("zero Gram: %v", err)
	}
	r, err := Fit(context.Background(), mk(1e-200, 1e-200), y, FitConfig{Machine: MachineKRR, Lambda: 1}, FitHooks{})
	if err != nil || len(r.Warnings) != 1 {
		t.Errorf("tiny Gram: %v %v", r, err)
	}
}
