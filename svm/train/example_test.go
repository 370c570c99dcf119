package train_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/train"
)

// ExampleBatchStream shows the minibatch order a kernel machine and a
// network share: the same n, batch size and seed give the same batches.
func ExampleBatchStream() {
	s, err := train.NewBatchStream(10, 4, 6)
	if err != nil {
		panic(err)
	}
	fmt.Println("steps per epoch:", s.StepsPerEpoch())
	for range 4 {
		b, epoch := s.Next()
		fmt.Println(epoch, b)
	}
	// Output:
	// steps per epoch: 3
	// 0 [4 3 2 0]
	// 0 [5 6 1 9]
	// 0 [8 7]
	// 1 [7 2 3 0]
}

// ExampleDriver trains two soft-margin SVMs with different λ side by side:
// one Driver hands both the same minibatches of one BatchStream and
// evaluates both before the update of each logged step.
func ExampleDriver() {
	xs := []float64{-2, -1.5, -1, 1, 1.5, 2}
	y := []float64{-1, -1, -1, 1, 1, 1}
	k := linalg.New[float64](6, 6)
	for i := range xs {
		for j := range xs {
			k.Set(i, j, xs[i]*xs[j])
		}
	}
	gram := svm.NewDense(k)
	var steppers []train.Stepper
	for _, lambda := range []float64{0.01, 1} {
		s, err := svm.NewKernelStepper(gram, y, svm.KernelStepperConfig{Loss: svm.Hinge, Lambda: lambda, Objective: svm.ObjectiveMean})
		if err != nil {
			panic(err)
		}
		steppers = append(steppers, s)
	}
	stream, err := train.NewBatchStream(len(y), 2, 1)
	if err != nil {
		panic(err)
	}
	d := &train.Driver{Steppers: steppers, Stream: stream, Epochs: 10, LR: 0.2,
		Recorder: train.RecorderFunc(func(r *train.Record) error {
			if r.Event == train.Evaluated {
				fmt.Printf("step %2d t=%3.1f epoch %d: objective λ=0.01 %.3f, λ=1 %.3f\n",
					r.Step, r.T, r.Epoch, r.Evals[0].Objective, r.Evals[1].Objective)
			}
			return nil
		})}
	d.LogAt = train.LogSteps(d.TotalSteps(), 5) // 10 epochs of 3 steps
	stats, err := d.Run(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Println("steps:", stats.Steps)
	for i, s := range steppers {
		fmt.Printf("machine %d: g = %.2f\n", i, s.(*svm.KernelStepper).Outputs())
	}
	// Output:
	// step  1 t=0.2 epoch 0: objective λ=0.01 1.000, λ=1 1.000
	// step  2 t=0.4 epoch 0: objective λ=0.01 0.476, λ=1 0.536
	// step  5 t=1.0 epoch 1: objective λ=0.01 0.005, λ=1 0.462
	// step 13 t=2.6 epoch 4: objective λ=0.01 0.006, λ=1 0.467
	// step 30 t=6.0 epoch 9: objective λ=0.01 0.006, λ=1 0.486
	// steps: 30
	// machine 0: g = [-2.16 -1.62 -1.08 1.08 1.62 2.16]
	// machine 1: g = [-1.97 -1.48 -0.99 0.99 1.48 1.97]
}

// ExampleDriver_resume stops a run by cancelling its context, on which the
// Recorder writes a checkpoint, and continues it on a new driver from that checkpoint: the
// result is bit-identical to an uninterrupted run.
func ExampleDriver_resume() {
	xs := []float64{-2, -1.5, -1, 1, 1.5, 2}
	y := []float64{-1, -1, -1, 1, 1, 1}
	k := linalg.New[float64](6, 6)
	for i := range xs {
		for j := range xs {
			k.Set(i, j, xs[i]*xs[j])
		}
	}
	newDriver := func() (*train.Driver, *svm.KernelStepper) {
		s, err := svm.NewKernelStepper(svm.NewDense(k), y, svm.KernelStepperConfig{Loss: svm.Hinge, Lambda: 0.1, Decay: svm.DecayExact})
		if err != nil {
			panic(err)
		}
		stream, err := train.NewBatchStream(len(y), 4, 7)
		if err != nil {
			panic(err)
		}
		return &train.Driver{Steppers: []train.Stepper{s}, Stream: stream, Steps: 50, LR: 0.01}, s
	}

	whole, ref := newDriver()
	if _, err := whole.Run(context.Background()); err != nil {
		panic(err)
	}

	// Cancel after step 20; the checkpoint would usually go to a file
	// (written atomically), here to memory.
	ctx, cancel := context.WithCancel(context.Background())
	first, _ := newDriver()
	var checkpoint bytes.Buffer
	first.Recorder = train.RecorderFunc(func(r *train.Record) error {
		switch r.Event {
		case train.Stepped:
			if r.Step == 20 {
				cancel()
			}
		case train.Interrupted:
			checkpoint.Reset()
			return r.Save(&checkpoint)
		}
		return nil
	})
	stats, err := first.Run(ctx)
	fmt.Println("first run:", stats.Steps, "steps;", err)

	second, s := newDriver()
	if err := second.LoadState(&checkpoint); err != nil {
		panic(err)
	}
	stats, err = second.Run(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Println("second run: to step", stats.Steps)
	fmt.Println("same α as the uninterrupted run:", slices.Equal(s.Machine().Alpha, ref.Machine().Alpha))
	// Output:
	// first run: 20 steps; svm: training stopped before step 21: context canceled
	// second run: to step 50
	// same α as the uninterrupted run: true
}
