package train

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/internal/frame"
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
		{59400, 300, 236}, // train_sgd.py's step_test: 300 epochs of 198 steps
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

// TestBatchStreamSaveRestore saves a stream before its first batch, mid-
// epoch, at an epoch's end and later, restores it into a zero stream and
// into one of another seed and size, and checks both continue identically.
func TestBatchStreamSaveRestore(t *testing.T) {
	for _, tc := range []struct{ n, b, at int }{
		{10, 4, 0}, {10, 4, 1}, {10, 4, 3}, {10, 4, 7}, {12665, 64, 250}, {5, 9, 2}, {1, 1, 3},
	} {
		s, _ := NewBatchStream(tc.n, tc.b, 42)
		for range tc.at {
			s.Next()
		}
		data, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var zero BatchStream
		other, _ := NewBatchStream(3, 1, 7)
		for _, r := range []*BatchStream{&zero, other} {
			if err := r.UnmarshalBinary(data); err != nil {
				t.Fatalf("n=%d B=%d at %d: %v", tc.n, tc.b, tc.at, err)
			}
		}
		if zero.StepsPerEpoch() != s.StepsPerEpoch() {
			t.Fatalf("restored stream has %d steps per epoch, want %d", zero.StepsPerEpoch(), s.StepsPerEpoch())
		}
		for k := range 3 * s.StepsPerEpoch() {
			if zero.nextEpoch() != s.nextEpoch() {
				t.Fatalf("n=%d at %d+%d: next epoch %d, want %d", tc.n, tc.at, k, zero.nextEpoch(), s.nextEpoch())
			}
			b, e := s.Next()
			want := slices.Clone(b)
			for _, r := range []*BatchStream{&zero, other} {
				got, ge := r.Next()
				if ge != e || !slices.Equal(got, want) {
					t.Fatalf("n=%d B=%d saved at %d, batch %d after: %v (epoch %d), want %v (epoch %d)",
						tc.n, tc.b, tc.at, k, got, ge, want, e)
				}
			}
		}
	}
}

func TestBatchStreamRejectsBadState(t *testing.T) {
	s, _ := NewBatchStream(6, 4, 1)
	s.Next()
	good, _ := s.MarshalBinary()
	reframe := func(edit func(p []byte)) []byte {
		p := slices.Clone(good[20 : len(good)-4])
		edit(p)
		var b bytes.Buffer
		frame.Write(&b, frame.StreamMagic, p)
		return b.Bytes()
	}
	put := func(p []byte, word int, v int64) { binary.LittleEndian.PutUint64(p[8*word:], uint64(v)) }
	// Payload words: n, B, epoch, pos, len(PCG), PCG (20 bytes), perm.
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", good[:len(good)-1], "truncated"},
		{"trailing", append(slices.Clone(good), 0), "trailing"},
		{"checksum", func() []byte { b := slices.Clone(good); b[25] ^= 0x80; return b }(), "checksum"},
		{"batch > n", reframe(func(p []byte) { put(p, 1, 7) }), "batch = 7"},
		{"position", reframe(func(p []byte) { put(p, 3, 9) }), "position 9 of 6"},
		{"not a permutation", reframe(func(p []byte) { copy(p[len(p)-8:], p[len(p)-16:len(p)-8]) }), "not a permutation"},
		{"generator", reframe(func(p []byte) { p[40] = 'x' }), "generator"},
		{"long n", reframe(func(p []byte) { put(p, 0, 1<<40) }), "ends early"},
	} {
		before := *s
		if err := s.UnmarshalBinary(tc.data); !errors.Is(err, ErrState) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want ErrState with %q", tc.name, err, tc.want)
		}
		if s.pos != before.pos || s.epoch != before.epoch || s.n != before.n {
			t.Errorf("%s: a rejected state changed the stream", tc.name)
		}
	}
}
