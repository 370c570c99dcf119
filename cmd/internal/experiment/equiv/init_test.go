package equiv

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/ntk"
)

// TestInitWeights: runs started from given weights (Config.Init, a .npz
// file in PyTorch's layout) give, bit for bit, the curves of the runs that
// draw the same weights from the seed, for every step size and both
// kernel machines; weights of another shape, several widths or seeds, and
// a missing file are configuration errors naming the problem.
func TestInitWeights(t *testing.T) {
	c := small()
	c.Kernel = KernelBoth
	c.LRs = []float64{0.5, 0.25}
	data := synthetic(20, 10, 6)
	ref := t.TempDir()
	if _, err := Run(context.Background(), c, data, Options{Out: ref}); err != nil {
		t.Fatal(err)
	}
	net, err := ntk.NewNetwork[float32](6, c.Widths[0], c.Depth, 1, 0, c.Seed)
	if err != nil {
		t.Fatal(err)
	}
	w := filepath.Join(t.TempDir(), "W.npz")
	if err := net.Save(w); err != nil {
		t.Fatal(err)
	}
	given := c
	given.Init = w
	// Full batches: the seed orders nothing, so the curves can only match
	// if the weights come from the file.
	given.Seed = c.Seed + 100
	dir := t.TempDir()
	if _, err := Run(context.Background(), given, data, Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	if got, want := readAll(t, dir, CurvesFile), readAll(t, ref, CurvesFile); !bytes.Equal(got, want) {
		t.Errorf("curves from --init differ from the curves of the same weights drawn from the seed")
	}
	if back, err := ReadConfig(dir); err != nil || back.Init != w {
		t.Errorf("config.json: init %q, %v", back.Init, err)
	}
	other, err := ntk.NewNetwork[float32](6, c.Widths[0], c.Depth, 1, 0, c.Seed+1)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Save(w); err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	if _, err := Run(context.Background(), given, data, Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(readAll(t, dir, CurvesFile), readAll(t, ref, CurvesFile)) {
		t.Errorf("other initial weights gave the same curves")
	}

	for _, tc := range []struct {
		name string
		edit func(c *Config)
		d    int
		want string
	}{
		{"other width", func(c *Config) { c.Widths = []int{32} }, 6, "width 64"},
		{"other depth", func(c *Config) { c.Depth = 2 }, 6, "depth 1"},
		{"other inputs", func(c *Config) {}, 5, "on 6 inputs"},
		{"two widths", func(c *Config) { c.Widths = []int{64, 128} }, 6, "one width"},
		{"two seeds", func(c *Config) { c.Seeds = 2 }, 6, "seeds"},
		{"no file", func(c *Config) { c.Init = filepath.Join(t.TempDir(), "none.npz") }, 6, "init"},
	} {
		bad := given
		tc.edit(&bad)
		_, err := Run(context.Background(), bad, synthetic(20, 10, tc.d), Options{Out: t.TempDir()})
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want ErrConfig naming %q", tc.name, err, tc.want)
		}
	}
}
