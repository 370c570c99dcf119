package main

import (
	"fmt"

	"github.com/ntksvm/ntksvm/cmd/internal/output"
	"github.com/ntksvm/ntksvm/svm"
)

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
