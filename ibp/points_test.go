package ibp

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// outputs is a Certifier with fixed outputs and no bounds.
type outputs []float64

func (o outputs) Len() int                 { return len(o) }
func (o outputs) Output(i int) float64     { return o[i] }
func (o outputs) Bound(int, Ball) Interval { return Interval{Lo: math.NaN(), Hi: math.NaN()} }

func TestSelectPoints(t *testing.T) {
	out := outputs{1, -2, 0.5, 0, -1, 3}
	y := []float64{1, 1, 1, -1, -1, -1} // right: 0, 2, 4; 0 at point 3 counts as wrong
	tests := []struct {
		name    string
		y       []float64
		s       PointSelection
		want    []int
		acc     float64 // NaN: no labels
		wantErr string
	}{
		{name: "all", y: y, want: []int{0, 1, 2, 3, 4, 5}, acc: 0.5},
		{name: "no labels", want: []int{0, 1, 2, 3, 4, 5}, acc: math.NaN()},
		{name: "correct only", y: y, s: PointSelection{CorrectOnly: true}, want: []int{0, 2, 4}, acc: 0.5},
		{name: "subset as large as the set", y: y, s: PointSelection{N: 6, Seed: 1}, want: []int{0, 1, 2, 3, 4, 5}, acc: 0.5},
		{name: "correct only without labels", s: PointSelection{CorrectOnly: true}, wantErr: "needs labels"},
		{name: "labels of another set", y: y[:5], wantErr: "5 labels for 6 points"},
		{name: "negative subset", y: y, s: PointSelection{N: -1}, wantErr: "want ≥ 0"},
		{name: "none correct", y: []float64{-1, 1, -1, 1, 1, -1}, s: PointSelection{CorrectOnly: true}, wantErr: "no points"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx, acc, err := SelectPoints(out, tt.y, tt.s)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(idx, tt.want) || !(acc == tt.acc || math.IsNaN(acc) && math.IsNaN(tt.acc)) {
				t.Errorf("got %v, accuracy %v; want %v, %v", idx, acc, tt.want, tt.acc)
			}
		})
	}
}

// TestSelectPointsSubset: a subset is sorted, has the asked size, depends
// only on the seed, and the correct-only filter applies to it.
func TestSelectPointsSubset(t *testing.T) {
	out := make(outputs, 100)
	y := make([]float64, 100)
	for i := range out {
		out[i], y[i] = float64(i%3-1), 1 // outputs -1, 0, 1: a third correct
	}
	a, _, err := SelectPoints(out, y, PointSelection{N: 30, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := SelectPoints(out, y, PointSelection{N: 30, Seed: 7})
	c, _, _ := SelectPoints(out, y, PointSelection{N: 30, Seed: 8})
	if len(a) != 30 || !slices.IsSorted(a) || !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Errorf("seed 7: %v (again %v), seed 8: %v", a, b, c)
	}
	r, _, _ := SelectPoints(out, y, PointSelection{N: 30, Seed: 7, CorrectOnly: true})
	want := slices.DeleteFunc(slices.Clone(a), func(i int) bool { return out[i] <= 0 })
	if !slices.Equal(r, want) {
		t.Errorf("correct only: %v, want %v", r, want)
	}
}
