package svm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// regressionModel returns a regressor's model (version 4's fields).
func regressionModel() *Model {
	m := testModel()
	m.Machine, m.Loss, m.Epsilon = "svr", "eps-insensitive", 0.1
	m.Task, m.Target = TaskRegression, &Target{Mean: 152, Scale: 79}
	return m
}

// TestModelTask: a regressor's task and target survive a write and a
// read; inconsistent ones are refused by the writer, and a file of an
// older version that has them by the reader.
func TestModelTask(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteModel(&buf, regressionModel()); err != nil {
		t.Fatal(err)
	}
	raw := bytes.Clone(buf.Bytes())
	got, err := ReadModel(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.Task != TaskRegression || got.Target == nil || *got.Target != (Target{Mean: 152, Scale: 79}) {
		t.Errorf("read task %q, target %+v", got.Task, got.Target)
	}
	for _, v := range []uint32{1, 2, 3} {
		old := bytes.Clone(raw)
		binary.LittleEndian.PutUint32(old[8:], v) // outside the checksummed payload
		if _, err := ReadModel(bytes.NewReader(old)); !errors.Is(err, ErrModel) {
			t.Errorf("version %d with a task: error %v, want ErrModel", v, err)
		}
	}
	for name, mod := range map[string]func(m *Model){
		"unknown task":    func(m *Model) { m.Task = "ranking" },
		"no target":       func(m *Model) { m.Target = nil },
		"target, no task": func(m *Model) { m.Task = "" },
		"zero scale":      func(m *Model) { m.Target.Scale = 0 },
		"NaN mean":        func(m *Model) { m.Target.Mean = math.NaN() },
		"with classes":    func(m *Model) { m.Classes = []string{"a", "b"} },
		"not embedded":    func(m *Model) { m.Train.Embedded, m.X = false, linalg.Matrix[float64]{} },
	} {
		m := regressionModel()
		mod(m)
		if err := WriteModel(io.Discard, m); !errors.Is(err, ErrModel) {
			t.Errorf("%s: error %v, want ErrModel", name, err)
		}
	}
}
