package svm

import (
	"slices"
	"testing"
)

func TestBatchStream(t *testing.T) {
	for _, tc := range []struct{ n, b, steps, last int }{
		{12665, 64, 198, 57}, // the paper's SGD run: 197 full batches and one of 57
		{10, 3, 4, 1},
		{8, 4, 2, 4},
		{5, 9, 1, 5}, // batch ≥ n: the full permutation
		{1, 1, 1, 1},
	} {
		s, err := NewBatchStream(tc.n, tc.b, 42)
		if err != nil {
			t.Fatal(err)
		}
		if s.StepsPerEpoch() != tc.steps {
			t.Errorf("n=%d B=%d: %d steps per epoch, want %d", tc.n, tc.b, s.StepsPerEpoch(), tc.steps)
		}
		r, _ := NewBatchStream(tc.n, tc.b, 42)
		o, _ := NewBatchStream(tc.n, tc.b, 43)
		differs := false
		var prev []int
		for e := range 3 {
			seen := make([]int, tc.n)
			var epoch []int
			for k := range tc.steps {
				b, ep := s.Next()
				rb, _ := r.Next()
				ob, _ := o.Next()
				if ep != e {
					t.Fatalf("n=%d: step %d of epoch %d reports epoch %d", tc.n, k, e, ep)
				}
				if !slices.Equal(b, rb) {
					t.Fatalf("n=%d: same seed, different batches %v %v", tc.n, b, rb)
				}
				differs = differs || !slices.Equal(b, ob)
				if k == tc.steps-1 && len(b) != tc.last {
					t.Errorf("n=%d B=%d: last batch has %d, want %d", tc.n, tc.b, len(b), tc.last)
				}
				for _, i := range b {
					seen[i]++
				}
				epoch = append(epoch, b...)
			}
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("n=%d epoch %d: index %d seen %d times", tc.n, e, i, c)
				}
			}
			if tc.n > 4 && prev != nil && slices.Equal(prev, epoch) {
				t.Errorf("n=%d: epochs %d and %d have the same order", tc.n, e-1, e)
			}
			prev = epoch
		}
		if tc.n > 4 && !differs {
			t.Errorf("n=%d: seeds 42 and 43 give the same stream", tc.n)
		}
	}
	if _, err := NewBatchStream(0, 1, 0); err == nil {
		t.Error("n = 0 accepted")
	}
	if _, err := NewBatchStream(3, 0, 0); err == nil {
		t.Error("batch = 0 accepted")
	}
}

// TestBatchStreamGolden pins the PRNG so that a change of algorithm (which
// would silently change every recorded run) fails.
func TestBatchStreamGolden(t *testing.T) {
	s, _ := NewBatchStream(10, 4, 6)
	var got []int
	for range 3 {
		b, _ := s.Next()
		got = append(got, b...)
	}
	want := []int{4, 3, 2, 0, 5, 6, 1, 9, 8, 7}
	if !slices.Equal(got, want) {
		t.Errorf("first epoch for seed 6 = %v, want %v", got, want)
	}
}

func TestLogSteps(t *testing.T) {
	for _, tc := range []struct{ total, count, unique int }{
		{59400, 300, 236}, // PROTOCOL §2: 300 epochs of 198 steps
		{19800, 100, 86},  // 100 epochs
		{1, 5, 1},
		{10, 1, 1},
	} {
		s := LogSteps(tc.total, tc.count)
		if len(s) != tc.unique || s[0] != 1 || s[len(s)-1] != tc.total && tc.count > 1 {
			t.Errorf("LogSteps(%d, %d): %d steps from %d to %d, want %d from 1 to %d",
				tc.total, tc.count, len(s), s[0], s[len(s)-1], tc.unique, tc.total)
		}
		if !slices.IsSorted(s) {
			t.Errorf("LogSteps(%d, %d) not sorted", tc.total, tc.count)
		}
	}
	if LogSteps(0, 3) != nil {
		t.Error("LogSteps(0, 3) not nil")
	}
}
