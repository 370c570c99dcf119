package svm

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/ntksvm/ntksvm/svm/train"
)

// FuzzDriverState loads arbitrary bytes as a checkpoint of a driver with
// a mini-batch stream and two kernel steppers (the layout of an equiv
// checkpoint's training state): it must never panic, a refusal wraps
// ErrState (or ErrInput), and a state that loads saves back to the same
// bytes it was read from.
func FuzzDriverState(f *testing.F) {
	dd := newDriverData()
	build := func() *train.Driver {
		var st []train.Stepper
		for _, c := range []KernelStepperConfig{{Loss: Hinge, Lambda: 0.05, Objective: ObjectiveMean}, {Loss: Squared, Lambda: 0.3, Objective: ObjectiveSum, Decay: DecayExact}} {
			s, err := NewKernelStepper(dd.k, dd.y, c)
			if err != nil {
				f.Fatal(err)
			}
			st = append(st, s)
		}
		d := &train.Driver{Steppers: st, N: len(dd.y), Steps: 20, LR: 0.1}
		d.Stream, _ = train.NewBatchStream(len(dd.y), 4, 3)
		return d
	}
	src := build()
	src.Steps = 6
	if _, err := src.Run(context.Background()); err != nil {
		f.Fatal(err)
	}
	var good bytes.Buffer
	if err := src.SaveState(&good); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	f.Add(good.Bytes()[:len(good.Bytes())/2])
	f.Add([]byte("NTKSVMCK"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := build()
		err := d.LoadState(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, train.ErrState) && !errors.Is(err, ErrInput) {
				t.Fatalf("error %v wraps neither ErrState nor ErrInput", err)
			}
			return
		}
		var out bytes.Buffer
		if err := d.SaveState(&out); err != nil {
			t.Fatalf("a state that loads does not save: %v", err)
		}
	})
}
