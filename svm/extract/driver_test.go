package extract

import (
	"bytes"
	"context"
	"errors"
	"math"
	"testing"

	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/network"
	"github.com/ntksvm/ntksvm/svm/train"
)

// sideBySide is a network, the kernel machine on its empirical NTK at
// initialisation and an Extractor watching the network, on one Driver.
type sideBySide struct {
	d   *train.Driver
	net *network.Stepper[float64]
	km  *svm.KernelStepper
	ex  *Extractor[float64]
	log [][]float64 // per evaluation: step, t, epoch, then each stepper's objective and outputs
}

// newSideBySide builds the three on fresh state; streamSeed seeds the
// minibatch order (a resumed driver's stream comes from the checkpoint).
func newSideBySide(t *testing.T, streamSeed uint64) *sideBySide {
	t.Helper()
	x, y, xt := extractData(5, 12, 4, 3)
	const width = 64
	nn, err := ntk.NewNetwork[float64](x.Cols, width, 1, 1, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	cfg := network.Config{Loss: svm.Logistic, Objective: svm.ObjectiveMean, Lambda: 0.1, Reg: network.RegPaper, Batch: 4}
	ns, err := network.NewStepper(nn, x, y, xt, cfg)
	if err != nil {
		t.Fatal(err)
	}
	k, err := nn.EmpiricalNTK(x, x)
	if err != nil {
		t.Fatal(err)
	}
	kt, err := nn.EmpiricalNTK(xt, x)
	if err != nil {
		t.Fatal(err)
	}
	yt := make([]float64, xt.Rows) // the evaluation set's targets only enter the log's losses
	for i := range yt {
		yt[i] = float64(1 - 2*(i%2))
	}
	km, err := svm.NewKernelStepper(svm.NewDense(k), y, svm.KernelStepperConfig{Loss: cfg.Loss, Lambda: cfg.Lambda / width,
		Objective: cfg.Objective, Decay: svm.DecayExact, Test: &svm.EvalSet{K: svm.NewDense(kt), Y: yt}})
	if err != nil {
		t.Fatal(err)
	}
	ec, err := ConfigFor(cfg, width)
	if err != nil {
		t.Fatal(err)
	}
	ec.Rule = Left
	ex, err := NewExtractor(x, y, xt, ec)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := train.NewBatchStream(x.Rows, cfg.Batch, streamSeed)
	if err != nil {
		t.Fatal(err)
	}
	r := &sideBySide{net: ns, km: km, ex: ex}
	r.d = &train.Driver{Steppers: []train.Stepper{ns, km}, Observers: []train.Observer{ex.Watch(ns)}, Stream: stream,
		Steps: 30, LR: 0.05, LogAt: train.LogSteps(30, 8)}
	return r
}

// recorder logs the evaluations and calls more on every record.
func (r *sideBySide) recorder(more func(*train.Record) error) train.Recorder {
	return train.RecorderFunc(func(rec *train.Record) error {
		if rec.Event == train.Evaluated {
			row := []float64{float64(rec.Step), rec.T, float64(rec.Epoch)}
			for _, ev := range rec.Evals {
				row = append(append(append(row, ev.Objective), ev.Train...), ev.Test...)
			}
			r.log = append(r.log, row)
		}
		if more != nil {
			return more(rec)
		}
		return nil
	})
}

// state returns everything the run computed, flattened: the log, the
// network's weights, the machine's α and outputs, and the extraction's
// kernel, weights, offset and report.
func (r *sideBySide) state(t *testing.T) []float64 {
	t.Helper()
	var v []float64
	for _, row := range r.log {
		v = append(v, row...)
	}
	net := r.net.Network()
	for l := range net.W {
		v = append(v, net.W[l].Data...)
	}
	m := r.km.Machine()
	v = append(append(v, m.Alpha...), r.km.Outputs()...)
	k, kt := r.ex.Kernel()
	v = append(append(append(v, k.Data...), kt.Data...), r.ex.Weights()...)
	b, bt := r.ex.Offset()
	v = append(append(v, b...), bt...)
	rep, err := r.ex.Report()
	if err != nil {
		t.Fatal(err)
	}
	v = append(v, float64(rep.Step), rep.T, rep.TrainMaxAbs, rep.TestMaxAbs, float64(len(rep.SignBreaks)))
	return append(append(v, rep.TrainKM...), rep.TestKM...)
}

// sameBits reports the first index where a and b differ bitwise, or −1.
func sameBits(a, b []float64) int {
	for i := range min(len(a), len(b)) {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// TestDriverSideBySideResume trains a network, the kernel machine on its
// initial NTK and the extraction of Theorem 4.1 on one Driver with
// minibatches, and checks three ways of running it against one
// uninterrupted run, bitwise: paused with RunTo and interrupted by
// cancellation, then continued on the same driver (everything, the
// extraction included); and resumed on new steppers from the checkpoint
// written at the interruption (the network and the machine: an Extractor
// has no saved state, so a resumed run's extraction starts at the resumed
// step).
func TestDriverSideBySideResume(t *testing.T) {
	ctx := context.Background()
	ref := newSideBySide(t, 9)
	ref.d.Recorder = ref.recorder(nil)
	st, err := ref.d.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Steps != 30 || len(st.StepTime) != 2 || len(st.EvalTime) != 2 || len(st.ObserveTime) != 1 ||
		st.StepTime[0] <= 0 || st.StepTime[1] <= 0 || st.EvalTime[0] <= 0 || st.ObserveTime[0] <= 0 {
		t.Fatalf("stats %+v: want 30 steps and the time of every stepper and observer", st)
	}
	want := ref.state(t)

	// Paused at step 7, interrupted after step 13, continued.
	const cancelAfter = 13
	run := newSideBySide(t, 9)
	cctx, cancel := context.WithCancel(ctx)
	var saved []byte
	run.d.Recorder = run.recorder(func(r *train.Record) error {
		switch r.Event {
		case train.Stepped:
			if r.Step == cancelAfter {
				cancel()
			}
		case train.Interrupted:
			var b bytes.Buffer
			if err := r.Save(&b); err != nil {
				return err
			}
			saved = b.Bytes()
		}
		return nil
	})
	if st, err := run.d.RunTo(cctx, 7); err != nil || st.Steps != 7 {
		t.Fatalf("RunTo(7): %d steps, %v", st.Steps, err)
	}
	if st, err := run.d.Run(cctx); !errors.Is(err, context.Canceled) || st.Steps != cancelAfter || saved == nil {
		t.Fatalf("interrupted run: %d steps, err %v, checkpoint %d bytes; want %d steps and context.Canceled", st.Steps, err, len(saved), cancelAfter)
	}
	if st, err := run.d.Run(ctx); err != nil || st.Steps != 30 {
		t.Fatalf("continued run: %d steps, %v", st.Steps, err)
	}
	if i := sameBits(run.state(t), want); i >= 0 {
		t.Errorf("paused, interrupted and continued: the results differ from the uninterrupted run at value %d", i)
	}

	// Resumed from the checkpoint on new steppers and a stream of another
	// seed (its state comes from the checkpoint).
	res := newSideBySide(t, 99)
	res.d.Observers = nil
	res.d.Recorder = res.recorder(nil)
	if err := res.d.LoadState(bytes.NewReader(saved)); err != nil {
		t.Fatal(err)
	}
	if st, err := res.d.Run(ctx); err != nil || st.Steps != 30 {
		t.Fatalf("resumed run: %d steps, %v", st.Steps, err)
	}
	firstLogged := 0
	for firstLogged < len(ref.log) && ref.log[firstLogged][0] <= cancelAfter {
		firstLogged++
	}
	for i, row := range res.log {
		if j := sameBits(row, ref.log[firstLogged+i]); j >= 0 {
			t.Fatalf("resumed run: evaluation at step %g differs at column %d", row[0], j)
		}
	}
	net, refNet := res.net.Network(), ref.net.Network()
	for l := range net.W {
		if i := sameBits(net.W[l].Data, refNet.W[l].Data); i >= 0 {
			t.Errorf("resumed run: layer %d weight %d differs", l, i)
		}
	}
	if sameBits(res.km.Machine().Alpha, ref.km.Machine().Alpha) >= 0 || sameBits(res.km.Outputs(), ref.km.Outputs()) >= 0 {
		t.Error("resumed run: the kernel machine's α or outputs differ")
	}
}
