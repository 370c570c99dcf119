package checkpoint_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ntksvm/ntksvm/internal/checkpoint"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/train"
)

// TestDriverFile runs a train.Driver with a file checkpoint, cancels it and
// resumes it from the file.
func TestDriverFile(t *testing.T) {
	xs := []float64{-2, -1.5, -1, -0.2, 0.3, 1, 1.5, 2}
	y := []float64{-1, -1, -1, 1, -1, 1, 1, 1}
	k := linalg.New[float64](len(xs), len(xs))
	for i := range xs {
		for j := range xs {
			k.Set(i, j, 1+xs[i]*xs[j])
		}
	}
	newDriver := func() (*train.Driver, *svm.KernelStepper) {
		s, err := svm.NewKernelStepper(svm.NewDense(k), y, svm.KernelStepperConfig{Loss: svm.Hinge, Lambda: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		stream, _ := train.NewBatchStream(len(y), 3, 1)
		return &train.Driver{Steppers: []train.Stepper{s}, Stream: stream, Steps: 40, LR: 0.05}, s
	}
	whole, ref := newDriver()
	if _, err := whole.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "run.ckpt")
	first, _ := newDriver()
	sink := checkpoint.File(path)
	ctx, cancel := context.WithCancel(context.Background())
	first.CheckpointEvery = 5
	first.LogAt = []int{17}
	first.Recorder = train.RecorderFunc(func(r *train.Record) error {
		switch r.Event {
		case train.Evaluated:
			cancel()
		case train.CheckpointDue, train.Interrupted:
			return sink(r.Step, r.Save)
		}
		return nil
	})
	if _, err := first.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("first run: %v", err)
	}
	second, s := newDriver()
	if err := checkpoint.Load(path, second.LoadState); err != nil {
		t.Fatal(err)
	}
	if st := second.Stats(); st.Steps != 17 {
		t.Fatalf("resumed at step %d, want 17", st.Steps)
	}
	if _, err := second.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Machine().Alpha, ref.Machine().Alpha) {
		t.Error("resumed α differs from the uninterrupted run")
	}
}
