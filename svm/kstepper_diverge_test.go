package svm

import (
	"errors"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// TestStepDiverges: a step that makes α, g or the objective non-finite
// returns an error wrapping ErrDiverged; a normal step does not.
func TestStepDiverges(t *testing.T) {
	k := linalg.New[float64](2, 2)
	k.Set(0, 0, 1)
	k.Set(1, 1, 1)
	y := []float64{1, -1}
	for _, tc := range []struct {
		name string
		loss Loss
		eta  float64
		want string
	}{
		{"normal", Hinge, 0.1, ""},
		{"η = 1e308", Hinge, 1e308, "after a step of size η = 1e+308"},
		{"squared, objective overflows", Squared, 1e200, "is NaN after a step of size η = 1e+200"},
	} {
		s, err := NewKernelStepper(NewDense(k), y, KernelStepperConfig{Loss: tc.loss, Lambda: 0, Objective: ObjectiveSum})
		if err != nil {
			t.Fatal(err)
		}
		err = s.Step([]int{0, 1}, tc.eta)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
}
