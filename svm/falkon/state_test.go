package falkon

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/ntk"
)

// TestResume stops Fit after k CG iterations (its context cancelled from
// Checkpoint), resumes it from the last state, on one or two threads, and
// checks that the result equals the uninterrupted fit's bit for bit: with
// uniform and leverage-score centres, and with blocks of K_nM stored in
// float32 (computed, on resume, by the first pass over them).
func TestResume(t *testing.T) {
	x, y := data(600, 10, 3, 11)
	k, err := NewNTK(x, ntk.DefaultSpec(2))
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, cfg := range []Config{
		{M: 80, Shift: 0.01, Seed: 2, MaxIter: 12, BlockRows: 100},
		{M: 80, Shift: 0.01, Seed: 2, MaxIter: 12, BlockRows: 100, Leverage: true, StoreBytes: 3 * 100 * 80 * 4},
	} {
		want, err := Fit(context.Background(), k, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if want.Iterations != cfg.MaxIter {
			t.Fatalf("%d iterations; the test wants the CG to run all %d", want.Iterations, cfg.MaxIter)
		}
		for _, stop := range []int{1, 5, 11, 12} {
			ctx, cancel := context.WithCancel(context.Background())
			var last *State
			c := cfg
			c.Checkpoint = func(st *State) error {
				last = st
				if st.Iteration == stop {
					cancel()
				}
				return nil
			}
			runtime.GOMAXPROCS(1)
			_, err := Fit(ctx, k, y, c)
			cancel()
			if stop < cfg.MaxIter && !errors.Is(err, context.Canceled) {
				t.Fatalf("stop at %d: %v, want context.Canceled", stop, err)
			}
			if last == nil || last.Iteration != stop {
				t.Fatalf("stop at %d: last state %+v", stop, last)
			}
			runtime.GOMAXPROCS(2)
			c = cfg
			c.Resume = last
			got, err := Fit(context.Background(), k, y, c)
			if err != nil {
				t.Fatal(err)
			}
			if got.Iterations != want.Iterations || !slices.Equal(got.Residuals, want.Residuals) || !bitsEqual(got.Alpha.Data, want.Alpha.Data) {
				t.Errorf("leverage %v, resumed after %d iterations: %d iterations, α differs from the uninterrupted fit's", cfg.Leverage, stop, got.Iterations)
			}
		}
	}
}

func bitsEqual(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// TestResumeRefused: a state of another fit is refused, naming what
// differs, before the preconditioner is computed; so is a malformed one.
func TestResumeRefused(t *testing.T) {
	ctx := context.Background()
	x, y := data(300, 6, 2, 12)
	k, err := NewNTK(x, ntk.DefaultSpec(1))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{M: 30, Shift: 0.1, Seed: 4, MaxIter: 3, BlockRows: 64}
	var st *State
	c := cfg
	c.Checkpoint = func(s *State) error { st = s; return nil }
	if _, err := Fit(ctx, k, y, c); err != nil || st == nil {
		t.Fatalf("%v, state %v", err, st)
	}
	for _, tc := range []struct {
		name string
		edit func(*Config, *State)
		want string
	}{
		{"seed", func(c *Config, _ *State) { c.Seed = 5 }, "the centres differ"},
		{"M", func(c *Config, _ *State) { c.M = 31 }, "centres: 30 in the state, 31 in this fit"},
		{"shift", func(c *Config, _ *State) { c.Shift = 0.2 }, "shift: 0.1 in the state, 0.2"},
		{"tol", func(c *Config, _ *State) { c.Tol = 1e-6 }, "tolerance"},
		{"blocks", func(c *Config, _ *State) { c.BlockRows = 32 }, "rows per block"},
		{"stored", func(c *Config, _ *State) { c.StoreBytes = 1 << 20 }, "StoreBytes"},
		{"outputs", func(_ *Config, s *State) { s.RR, s.Target = s.RR[:1], s.Target[:1] }, "CG vector of 30×2, want 30×1"},
		{"NaN", func(_ *Config, s *State) { s.P.Data[7] = math.NaN() }, "NaN"},
		{"shape", func(_ *Config, s *State) { s.Beta.Rows-- }, "CG vector of 29×2"},
		{"centres", func(_ *Config, s *State) { s.Centres[1] = s.Centres[0] }, "not distinct"},
	} {
		c := cfg
		s := *st
		s.Centres, s.P.Data = slices.Clone(st.Centres), slices.Clone(st.P.Data)
		tc.edit(&c, &s)
		c.Resume = &s
		if _, err := Fit(ctx, k, y, c); !errors.Is(err, ErrResume) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrResume naming %q", tc.name, err, tc.want)
		}
	}
}
