package experiment

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

var errBad = errors.New("toy: bad configuration")

// toy is an experiment configuration for the tests.
type toy struct {
	Width int    `json:"width"`
	Seed  uint64 `json:"seed"`
}

func (c *toy) Validate() error {
	if c.Width < 1 {
		return Errorf(errBad, "width %d; want ≥ 1", c.Width)
	}
	return nil
}

// TestStart: memory beyond what is available and a missing output
// directory are configuration errors wrapping the experiment's sentinel
// and naming the problem; otherwise the directory is created and the
// writers and clock get their defaults.
func TestStart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	for _, tc := range []struct {
		name string
		opt  Options
		need int64
		want string
	}{
		{"memory", Options{Out: dir, MemAvailable: 1 << 30}, 3 << 30, "needs about 3.00 GiB (parts); 1.00 GiB are available: reduce the width"},
		{"no output", Options{}, 0, "no output directory"},
	} {
		err := Start(&tc.opt, errBad, tc.need, "parts", "the width")
		if !errors.Is(err, errBad) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("refused runs created %s: %v", dir, err)
	}
	opt := Options{Out: dir, MemAvailable: 1 << 30}
	if err := Start(&opt, errBad, 1<<20, "parts", "the width"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Errorf("output directory: %v", err)
	}
	if opt.Log != io.Discard || opt.Progress != io.Discard || opt.Now == nil {
		t.Errorf("defaults not filled: %+v", opt)
	}
}

// TestUse: the first points of each split, and a header that states them;
// more points than the data has is a configuration error.
func TestUse(t *testing.T) {
	x, _ := linalg.FromSlice(3, 2, []float64{1, 2, 3, 4, 5, 6})
	xt, _ := linalg.FromSlice(2, 2, []float64{7, 8, 9, 10})
	data := &Data{Name: "toy", X: x, Y: []float64{1, -1, 1}, XTest: xt, YTest: []float64{-1, 1}}
	u, err := Use(data, 2, 0, errBad)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHeader(u)
	if h.Data != "toy" || h.NTrain != 2 || h.NTest != 2 || h.D != 2 || h.Threads < 1 || len(u.Y) != 2 {
		t.Errorf("header %+v", h)
	}
	for _, n := range [][2]int{{4, 0}, {0, 3}, {-1, 0}} {
		if _, err := Use(data, n[0], n[1], errBad); !errors.Is(err, errBad) {
			t.Errorf("n-train %d, n-test %d: %v", n[0], n[1], err)
		}
	}
	if _, err := Use(nil, 0, 0, errBad); !errors.Is(err, errBad) {
		t.Errorf("no data: %v", err)
	}
}

// TestConfigFile: a configuration written is read back equal and is the
// same configuration, another one or an invalid file is not; a missing
// file is an error naming the directory.
func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	c := toy{Width: 64, Seed: 1<<63 + 1} // beyond float64's integers
	if SameConfig(dir, c) {
		t.Error("no config.json: same config")
	}
	var back toy
	if err := ReadConfig(dir, "toy", &back); err == nil || !strings.Contains(err.Error(), "cannot resume from "+dir) {
		t.Errorf("missing file: %v", err)
	}
	if err := WriteConfig(dir, c); err != nil {
		t.Fatal(err)
	}
	if err := ReadConfig(dir, "toy", &back); err != nil || back != c {
		t.Errorf("read back %+v, %v", back, err)
	}
	if !SameConfig(dir, c) || SameConfig(dir, toy{Width: 64, Seed: 1 << 63}) || SameConfig(dir, toy{Width: 32, Seed: c.Seed}) {
		t.Error("SameConfig does not tell the configurations apart")
	}
	if !EqualConfigs(c, c) || EqualConfigs(c, toy{Width: 65, Seed: c.Seed}) {
		t.Error("EqualConfigs")
	}
	b, _ := json.Marshal(toy{Width: 0})
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ReadConfig(dir, "toy", &back); !errors.Is(err, errBad) {
		t.Errorf("invalid config: %v", err)
	}
	if SameConfig(dir, toy{Width: 0}) {
		t.Error("an invalid config.json is the same config")
	}
}
