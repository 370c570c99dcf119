package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
	"github.com/ntksvm/ntksvm/cmd/internal/present/progress"
	"github.com/ntksvm/ntksvm/internal/testhold"
	"github.com/ntksvm/ntksvm/svm"
)

// The flags that apply to one solver only; giving one with the other
// solver is an error.
var (
	subgradientOnly = []string{"batch", "lr", "steps", "epochs", "decay", "seed", "pegasos", "tol",
		"log-count", "log", "track-train", "track-test"}
	exactOnly = []string{"bias", "gap"}
)

// check validates every flag, output path and combination before any
// data is read, and fills f.cfg and f.kernel.
func (f *trainFlags) check() error {
	if f.out == "" {
		return usageError("--out is required")
	}
	if err := f.data.check("--data", f.data.data); err != nil {
		return err
	}
	if f.data.test != "" {
		if err := f.data.check("--test", f.data.test); err != nil {
			return err
		}
	}
	var err error
	if f.kernel, err = f.kern.spec(); err != nil {
		return err
	}
	if err := f.buildConfig(); err != nil {
		return err
	}
	if f.trackTrainIdx, err = parseIndices("--track-train", f.track); err != nil {
		return err
	}
	if f.trackTestIdx, err = parseIndices("--track-test", f.trackTest); err != nil {
		return err
	}
	if len(f.trackTestIdx) > 0 && f.data.test == "" {
		return usageError("--track-test needs --test")
	}
	return checkOutputs(append(append(outPath("--out", f.out), outPath("--log", f.logFile)...), outPath("--export-libsvm", f.export)...),
		f.data.inputs()...)
}

// buildConfig turns the machine and solver flags into f.cfg, refusing
// flags that do not apply to the chosen machine or solver.
func (f *trainFlags) buildConfig() error {
	m, err := svm.ParseMachine(f.machine)
	if err != nil {
		return usageError("--machine %q: want svm, svm2, svr, krr or logistic", f.machine)
	}
	s, err := svm.ParseSolver(f.solver)
	if err != nil {
		return usageError("--solver %q: want exact or subgradient", f.solver)
	}
	obj, err := svm.ParseObjective(f.objective)
	if err != nil {
		return usageError("--objective %q: want sum or mean", f.objective)
	}
	if f.set["epsilon"] && m != svm.MachineSVR {
		return usageError("--epsilon applies to --machine svr only")
	}
	wrong, other := exactOnly, "exact"
	if s == svm.SolverExact {
		wrong, other = subgradientOnly, "subgradient"
	}
	for _, name := range wrong {
		if f.set[name] {
			return usageError("--%s applies to --solver %s only (this run uses --solver %s)", name, other, s)
		}
	}
	f.cfg = svm.FitConfig{Machine: m, Solver: s, Objective: obj, Lambda: f.lambda, Epsilon: f.epsilon}
	if s == svm.SolverExact {
		f.cfg.Bias, f.cfg.Gap = f.bias, f.gap
	} else {
		d, err := svm.ParseDecay(f.decay)
		if err != nil {
			return usageError("--decay %q: want lazy or exact", f.decay)
		}
		f.cfg.Batch, f.cfg.LR, f.cfg.Pegasos, f.cfg.Steps, f.cfg.Epochs = f.batch, f.lr, f.pegasos, f.steps, f.epochs
		f.cfg.Decay, f.cfg.Seed, f.cfg.Tol, f.cfg.LogCount = d, f.seed, f.tol, f.logCount
	}
	if f.cfg.Solver == svm.SolverExact && f.cfg.Gap == 0 {
		return usageError("--gap 0: want > 0")
	}
	return fitError(f.cfg.Validate())
}

// fit runs svm.Fit with the subgradient log wired to a status line and the
// --log CSV, and prints the solver's report.
func (f *trainFlags) fit(ctx context.Context, e *env, k, testK svm.KernelMatrix) (*svm.FitResult, error) {
	hooks := svm.FitHooks{TrackTrain: f.trackTrainIdx, TrackTest: f.trackTestIdx, ConsumeGram: true}
	if testK != nil {
		hooks.Test = &svm.EvalSet{K: testK, Y: f.testSet.Y}
	}
	var table *output.Table
	status := progress.NewStatus(e.stderr, e.isTerminal)
	if f.cfg.Solver == svm.SolverSubgradient {
		table = newTrainingLog(f.trackTrainIdx, f.trackTestIdx)
		steps := f.cfg.TotalSteps(f.trainSet.X.Rows)
		hooks.Log = func(p *svm.Progress) error {
			addProgress(table, p)
			line := fmt.Sprintf("step %d/%d t=%g objective %.6g train loss %.5g acc %.4f", p.Step, steps, p.T, p.Objective, p.TrainLoss, p.TrainAcc)
			if testK != nil {
				line += fmt.Sprintf(" test loss %.5g acc %.4f", p.TestLoss, p.TestAcc)
			}
			status.Update(line)
			return nil
		}
	}
	res, err := svm.Fit(testhold.Context(ctx, "fit"), k, f.trainSet.Y, f.cfg, hooks)
	status.End()
	if errors.Is(err, svm.ErrDiverged) {
		return nil, fmt.Errorf("%w; lower --lr", err)
	}
	if err != nil {
		return nil, fitError(err)
	}
	f.printFit(e, res)
	if table != nil && f.logFile != "" {
		if err := output.WriteFileContext(ctx, f.logFile, false, func(w io.Writer) error { _, err := table.WriteTo(w); return err }); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// printFit prints the solver's report and warnings on stderr.
func (f *trainFlags) printFit(e *env, res *svm.FitResult) {
	in := res.Info
	switch {
	case res.Dual != nil:
		fmt.Fprintf(e.stderr, "exact %s (C = %g): %v, %.2fs\n", f.cfg.Machine, in.C, res.Dual, in.Seconds)
		if !res.Dual.Converged {
			fmt.Fprintf(e.stderr, "warning: relative duality gap %.3g above --gap %g\n", in.RelGap, f.cfg.Gap)
		}
	case res.Train != nil:
		fmt.Fprintf(e.stderr, "subgradient: %d steps in %.2fs, objective %.8g (converged early: %v)\n", in.Steps, in.Seconds, in.Objective, in.Converged)
	default:
		fmt.Fprintf(e.stderr, "KRR: α = (K + %gI)⁻¹y in %.2fs\n", in.RidgeShift, in.Seconds)
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(e.stderr, "warning:", w)
	}
}

// parseIndices parses a comma-separated list of indices ("" is none).
func parseIndices(flagName, s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || i < 0 {
			return nil, usageError("%s: %q is not an index ≥ 0", flagName, f)
		}
		out = append(out, i)
	}
	return out, nil
}

// newTrainingLog starts the CSV table of a subgradient run's evaluations
// (svm.Progress): step, t = Σ η, epoch, objective, training and test loss
// and accuracy (NaN where not defined), then the outputs at the tracked
// training and test indices, one column each (train_out_I, test_out_I).
func newTrainingLog(trackTrain, trackTest []int) *output.Table {
	cols := []string{"step", "t", "epoch", "objective", "train_loss", "train_acc", "test_loss", "test_acc"}
	for _, i := range trackTrain {
		cols = append(cols, fmt.Sprintf("train_out_%d", i))
	}
	for _, i := range trackTest {
		cols = append(cols, fmt.Sprintf("test_out_%d", i))
	}
	return output.NewTable(cols...)
}

// addProgress appends one evaluation to a table from newTrainingLog.
func addProgress(t *output.Table, p *svm.Progress) {
	row := []any{p.Step, p.T, p.Epoch, p.Objective, p.TrainLoss, p.TrainAcc, p.TestLoss, p.TestAcc}
	for _, v := range p.TrainOut {
		row = append(row, v)
	}
	for _, v := range p.TestOut {
		row = append(row, v)
	}
	t.Row(row...)
}
