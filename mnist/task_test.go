package mnist

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// testSet returns a split of n 2×2 images whose labels cycle 0, 1, 2 and
// whose pixels are 0, 1, 2, … (mod 256).
func testSet(n int) *Set {
	labels := make([]byte, n)
	for i := range labels {
		labels[i] = byte(i % 3)
	}
	return &Set{
		Split:  Train,
		Images: &Images{Count: n, Rows: 2, Cols: 2, Pixels: seq(4 * n)},
		Labels: &Labels{Values: labels},
	}
}

func TestBinary(t *testing.T) {
	s := testSet(30) // 10 each of 0, 1, 2
	tests := []struct {
		name  string
		a, b  int
		opt   Options
		index []int // nil: check only the length
		n     int
	}{
		{name: "0/1", a: 0, b: 1, index: []int{0, 1, 3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 18, 19, 21, 22, 24, 25, 27, 28}, n: 20},
		{name: "2/0", a: 2, b: 0, n: 20},
		{name: "first 5", a: 0, b: 1, opt: Options{First: 5}, index: []int{0, 1, 3, 4, 6}, n: 5},
		{name: "first all", a: 1, b: 2, opt: Options{First: 20}, n: 20},
		{name: "random 7", a: 0, b: 1, opt: Options{Random: 7, Seed: 42}, n: 7},
		{name: "standardised", a: 0, b: 1, opt: Options{Standardize: true}, n: 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			task, err := Binary[float64](s, tc.a, tc.b, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if task.X.Rows != tc.n || task.X.Cols != 4 || len(task.Y) != tc.n || len(task.Index) != tc.n {
				t.Fatalf("X %d×%d, %d labels, %d indices; want %d×4", task.X.Rows, task.X.Cols, len(task.Y), len(task.Index), tc.n)
			}
			if tc.index != nil && !slices.Equal(task.Index, tc.index) {
				t.Errorf("indices %v, want %v", task.Index, tc.index)
			}
			if !slices.IsSorted(task.Index) {
				t.Errorf("indices not in file order: %v", task.Index)
			}
			for i, k := range task.Index {
				wantY := 1.0
				switch int(s.Labels.Values[k]) {
				case tc.a:
					wantY = -1
				case tc.b:
				default:
					t.Fatalf("row %d is example %d with label %d", i, k, s.Labels.Values[k])
				}
				if task.Y[i] != wantY {
					t.Errorf("y[%d] = %v, want %v", i, task.Y[i], wantY)
				}
				for j, p := range s.Images.Image(k) {
					want := float64(p) / 255
					if tc.opt.Standardize {
						want = (want - 0.1307) / 0.3081
					}
					if got := task.X.At(i, j); math.Abs(got-want) > 1e-15 {
						t.Fatalf("X[%d][%d] = %v, want %v", i, j, got, want)
					}
				}
			}
		})
	}
}

func TestBinaryFloat32(t *testing.T) {
	task, err := Binary[float32](testSet(6), 1, 2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Examples 1, 2, 4, 5; example 2's pixels are 8…11.
	if !slices.Equal(task.Index, []int{1, 2, 4, 5}) || !slices.Equal(task.Y, []float32{-1, 1, -1, 1}) || task.X.At(1, 3) != float32(11.0/255) {
		t.Errorf("index %v y %v X[1][3] %v", task.Index, task.Y, task.X.At(1, 3))
	}
}

func TestBinaryErrors(t *testing.T) {
	s := testSet(9)
	for _, tc := range []struct {
		a, b int
		opt  Options
		want string
	}{
		{0, 0, Options{}, "two different digits"},
		{0, 10, Options{}, "two different digits"},
		{-1, 1, Options{}, "two different digits"},
		{0, 1, Options{First: -1}, "negative"},
		{0, 1, Options{First: 2, Random: 2}, "choose one"},
		{0, 1, Options{First: 7}, "first 7 examples asked, but train 0/1 has 6"},
		{0, 1, Options{Random: 7}, "7 random examples asked"},
	} {
		if _, err := Binary[float64](s, tc.a, tc.b, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Binary(%d, %d, %+v): error %v, want %q", tc.a, tc.b, tc.opt, err, tc.want)
		}
	}
}

// TestSubsetGolden pins Subset's choices (SplitMix64 and Lemire's draws of
// internal/rng, partial Fisher–Yates): a change would silently change the
// examples of every recorded run with a random subset.
func TestSubsetGolden(t *testing.T) {
	if got, want := Subset(100, 10, 7), []int{2, 20, 28, 37, 38, 46, 47, 49, 59, 90}; !slices.Equal(got, want) {
		t.Errorf("Subset(100, 10, 7) = %v, want %v", got, want)
	}
	if got, want := Subset(12665, 8, 42), []int{485, 2026, 2770, 3529, 4361, 9391, 10141, 10996}; !slices.Equal(got, want) {
		t.Errorf("Subset(12665, 8, 42) = %v, want %v", got, want)
	}
}

func TestSubset(t *testing.T) {
	a, b := Subset(100, 10, 7), Subset(100, 10, 7)
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different subsets: %v %v", a, b)
	}
	if c := Subset(100, 10, 8); slices.Equal(a, c) {
		t.Errorf("seeds 7 and 8 give the same subset %v", a)
	}
	if !slices.IsSorted(a) || len(slices.Compact(slices.Clone(a))) != 10 || a[0] < 0 || a[9] >= 100 {
		t.Errorf("not 10 distinct ascending values in [0, 100): %v", a)
	}
	if got := Subset(5, 5, 1); !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
		t.Errorf("Subset(5, 5) = %v", got)
	}
	if got := Subset(5, 0, 1); len(got) != 0 {
		t.Errorf("Subset(5, 0) = %v", got)
	}
	// Uniformity: over 20,000 seeds each of 5 elements is picked in 2 of 5
	// subsets (8,000 times); the standard deviation is about 69.
	var count [5]int
	for seed := range uint64(20000) {
		for _, v := range Subset(5, 2, seed) {
			count[v]++
		}
	}
	for v, c := range count {
		if c < 7600 || c > 8400 {
			t.Errorf("element %d picked %d times in 20000 draws of 2 of 5; want about 8000", v, c)
		}
	}
}
