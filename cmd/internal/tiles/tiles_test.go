package tiles

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
)

// TestSplitTriangle: the bands cover the rows in order, start on multiples
// of Unit, hold at least one Unit each, and none holds more entries than
// an equal share plus one Unit-row strip of the longest rows.
func TestSplitTriangle(t *testing.T) {
	for _, tc := range []struct{ n, tiles int }{
		{1, 1}, {Unit, 1}, {4000, 1}, {4000, 4}, {4000, 8}, {4000, 16}, {4000, 32}, {12665, 16}, {12665, 99}, {1000000, 4096},
	} {
		bands, err := SplitTriangle(tc.n, tc.tiles)
		if err != nil {
			t.Fatalf("n=%d tiles=%d: %v", tc.n, tc.tiles, err)
		}
		if len(bands) != tc.tiles || bands[0][0] != 0 || bands[len(bands)-1][1] != tc.n {
			t.Fatalf("n=%d tiles=%d: %v", tc.n, tc.tiles, bands)
		}
		work := func(r [2]int) float64 {
			a, b := float64(r[0]), float64(r[1])
			return (b*(b+1) - a*(a+1)) / 2
		}
		share := work([2]int{0, tc.n}) / float64(tc.tiles)
		for k, b := range bands {
			if b[0]%Unit != 0 || b[1] <= b[0] || (k > 0 && b[0] != bands[k-1][1]) || (b[1]-b[0] < Unit && b[1] != tc.n) {
				t.Fatalf("n=%d tiles=%d: band %d is %v", tc.n, tc.tiles, k, b)
			}
			if w := work(b); w > share+float64(Unit*tc.n) {
				t.Errorf("n=%d tiles=%d: band %d %v holds %.0f entries, share %.0f", tc.n, tc.tiles, k, b, w, share)
			}
		}
	}
	for _, tc := range []struct{ n, tiles int }{{4000, 33}, {4000, 0}, {0, 1}, {100, 2}} {
		if _, err := SplitTriangle(tc.n, tc.tiles); err == nil {
			t.Errorf("n=%d tiles=%d: no error", tc.n, tc.tiles)
		}
	}
}

func TestSplitRows(t *testing.T) {
	bands, err := SplitRows(2115, 8)
	if err != nil {
		t.Fatal(err)
	}
	for k, b := range bands {
		if n := b[1] - b[0]; n < 2115/8-Unit || n > 2115/8+Unit || b[0]%Unit != 0 {
			t.Errorf("band %d: %v", k, b)
		}
	}
}

func TestParseTile(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		s, slurm, k8s string
		i, n          int
		bad           string // part of the error, "" if none
	}{
		{s: "3/8", i: 3, n: 8},
		{s: "0/1", i: 0, n: 1},
		{s: "auto/8", slurm: "5", i: 5, n: 8},
		{s: "auto/8", k8s: "7", i: 7, n: 8},
		{s: "auto/8", slurm: "2", k8s: "7", i: 2, n: 8},
		{s: "auto/8", bad: "SLURM_ARRAY_TASK_ID"},
		{s: "auto/8", slurm: "8", bad: "from $SLURM_ARRAY_TASK_ID"},
		{s: "8/8", bad: "0…7"},
		{s: "-1/8", bad: "0…7"},
		{s: "x/8", bad: "tile index"},
		{s: "3", bad: "want i/N"},
		{s: "3/0", bad: "positive"},
	} {
		env["SLURM_ARRAY_TASK_ID"], env["JOB_COMPLETION_INDEX"] = tc.slurm, tc.k8s
		i, n, err := ParseTile(tc.s, getenv)
		switch {
		case tc.bad == "" && (err != nil || i != tc.i || n != tc.n):
			t.Errorf("%q: %d/%d, %v; want %d/%d", tc.s, i, n, err, tc.i, tc.n)
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)):
			t.Errorf("%q: %v, want an error containing %q", tc.s, err, tc.bad)
		}
	}
}

func randInputs(seed uint64, n, d int) linalg.Matrix[float64] {
	rng := rand.New(rand.NewPCG(seed, seed))
	x := linalg.New[float64](n, d)
	for i := range x.Data {
		x.Data[i] = rng.NormFloat64()
	}
	return x
}

func dataOf(x linalg.Matrix[float64]) Data {
	return Data{N: x.Rows, D: x.Cols, SHA256: svm.InputsSHA256(x)}
}

// computeAll runs every tile of a new plan into a new directory.
func computeAll[T linalg.Float](t *testing.T, dir string, spec ntk.Spec, x linalg.Matrix[float64], z *linalg.Matrix[float64], tiles int) *Manifest {
	t.Helper()
	var zd *Data
	var zt *linalg.Matrix[T]
	if z != nil {
		d := dataOf(*z)
		zd = &d
		c := linalg.Convert[T](*z)
		zt = &c
	}
	m, err := NewManifest(spec, dataOf(x), zd, tiles)
	if err != nil {
		t.Fatal(err)
	}
	if err := Prepare(dir, m); err != nil {
		t.Fatal(err)
	}
	for i := range tiles {
		res, err := Compute(context.Background(), dir, m, i, linalg.Convert[T](x), zt, ntk.Options{Threads: 1 + i%2})
		if err != nil || res.Skipped {
			t.Fatalf("tile %d: %v (skipped %v)", i, err, res != nil && res.Skipped)
		}
	}
	return m
}

// TestRoundTrip: the tiles of a Gram and of a cross kernel, assembled in
// memory or collected to a file in one pass or in bands, are bit for bit
// the kernel of one process.
func TestRoundTrip(t *testing.T) {
	x, z := randInputs(1, 3*Unit+57, 20), randInputs(2, 2*Unit+9, 20)
	for _, tc := range []struct {
		spec  ntk.Spec
		cross bool
		tiles int
	}{
		{ntk.Spec{Kind: ntk.KindNTK, Depth: 2, WeightStd: 1.1, BiasStd: 0.2}, false, 3},
		{ntk.Spec{Kind: ntk.KindNNGP, Depth: 2, WeightStd: 1.1, BiasStd: 0.2}, false, 4},
		{ntk.Spec{Kind: ntk.KindNTK, Depth: 2, WeightStd: 1.1, BiasStd: 0.2, Float32: true}, false, 2},
		{ntk.Spec{Kind: ntk.KindNTK, Depth: 2, WeightStd: 1.1, BiasStd: 0.2}, true, 3},
	} {
		if tc.spec.Float32 {
			roundTrip[float32](t, tc.spec, x, z, tc.cross, tc.tiles)
		} else {
			roundTrip[float64](t, tc.spec, x, z, tc.cross, tc.tiles)
		}
	}
}

func roundTrip[T linalg.Float](t *testing.T, spec ntk.Spec, x, z linalg.Matrix[float64], cross bool, tiles int) {
	dir := t.TempDir()
	var want linalg.Matrix[T]
	var err error
	var zp *linalg.Matrix[float64]
	if cross {
		zp = &z
		want, err = ntk.Cross(context.Background(), spec, linalg.Convert[T](z), linalg.Convert[T](x), ntk.Options{})
	} else {
		want, err = ntk.Gram(context.Background(), spec, linalg.Convert[T](x), ntk.Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	m := computeAll[T](t, dir, spec, x, zp, tiles)
	got := linalg.New[T](want.Rows, want.Cols)
	if _, err := Assemble(dir, m, got); err != nil {
		t.Fatal(err)
	}
	sameBits(t, "assembled "+spec.String(), got, want)
	for _, cap := range []int64{0, int64(want.Cols) * 8 * 50} {
		out := filepath.Join(t.TempDir(), "k.npy")
		s, err := Collect[T](dir, m, out, cap)
		if err != nil {
			t.Fatal(err)
		}
		if s.Tiles != tiles || len(s.Kernels) != 1 {
			t.Errorf("summary %+v", s)
		}
		got, err := npy.Read[T](out)
		if err != nil {
			t.Fatal(err)
		}
		sameBits(t, "collected "+spec.String(), got, want)
	}
	// A second run of a task finds its block done.
	res, err := Compute(context.Background(), dir, m, tiles-1, linalg.Convert[T](x), nil, ntk.Options{})
	if err != nil || !res.Skipped {
		t.Errorf("retry: %v, skipped %v", err, res != nil && res.Skipped)
	}
}

func sameBits[T linalg.Float](t *testing.T, what string, got, want linalg.Matrix[T]) {
	t.Helper()
	if got.Rows != want.Rows || got.Cols != want.Cols {
		t.Fatalf("%s: %d×%d, want %d×%d", what, got.Rows, got.Cols, want.Rows, want.Cols)
	}
	for i := range want.Rows {
		for j := range want.Cols {
			if got.At(i, j) != want.At(i, j) {
				t.Fatalf("%s: (%d, %d) = %v, one process %v", what, i, j, got.At(i, j), want.At(i, j))
			}
		}
	}
}

// TestRefused: collecting a directory with a truncated, altered, missing,
// unfinished or foreign tile fails with a message naming the tile and its
// file; so do a manifest of another computation and an edited one.
func TestRefused(t *testing.T) {
	spec := ntk.Spec{Kind: ntk.KindNTK, Depth: 1, WeightStd: 1}
	x := randInputs(3, 2*Unit+40, 10)
	otherDir := t.TempDir() // the same kernel of other inputs
	computeAll[float64](t, otherDir, spec, randInputs(4, 2*Unit+40, 10), nil, 3)
	for _, tc := range []struct {
		name  string
		spoil func(dir string) error
		want  string
	}{
		{"truncated", func(dir string) error { return os.Truncate(filepath.Join(dir, "block-0001.npy"), 1000) },
			"tile 1: block-0001.npy is truncated: 1000 of"},
		{"missing", func(dir string) error { return os.Remove(filepath.Join(dir, "block-0002.npy")) },
			"tile 2: block-0002.npy (rows"},
		{"missing both", func(dir string) error {
			os.Remove(filepath.Join(dir, "block-0002.json"))
			return os.Remove(filepath.Join(dir, "block-0002.npy"))
		}, "tile 2: block-0002.npy (rows 256…295) is missing; run tile 2/3"},
		{"unfinished", func(dir string) error { return os.Remove(filepath.Join(dir, "block-0000.json")) },
			"tile 0: block-0000.npy (rows 0…127) has no record block-0000.json"},
		{"altered", func(dir string) error {
			f, err := os.OpenFile(filepath.Join(dir, "block-0001.npy"), os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteAt([]byte{0x3f}, 500)
			return err
		}, "tile 1: block-0001.npy does not match the SHA-256 in block-0001.json"},
		{"foreign", func(dir string) error {
			for _, f := range []string{"block-0001.npy", "block-0001.json"} {
				b, err := os.ReadFile(filepath.Join(otherDir, f))
				if err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
					return err
				}
			}
			return nil
		}, "tile 1: block-0001.json is a tile of another kernel or data set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			m := computeAll[float64](t, dir, spec, x, nil, 3)
			if err := tc.spoil(dir); err != nil {
				t.Fatal(err)
			}
			_, err := Collect[float64](dir, m, filepath.Join(t.TempDir(), "k.npy"), 0)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant an error containing %q", err, tc.want)
			}
			if _, err := Assemble(dir, m, linalg.New[float64](x.Rows, x.Rows)); err == nil {
				t.Error("Assemble: no error")
			}
		})
	}
}

// TestManifestMismatch: a directory keeps the tiles of one computation.
func TestManifestMismatch(t *testing.T) {
	spec := ntk.Spec{Kind: ntk.KindNTK, Depth: 1, WeightStd: 1}
	x := randInputs(5, 300, 10)
	dir := t.TempDir()
	m, err := NewManifest(spec, dataOf(x), nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := Prepare(dir, m); err != nil {
		t.Fatal(err)
	}
	if err := Prepare(dir, m); err != nil {
		t.Fatalf("same plan again: %v", err)
	}
	deeper := spec
	deeper.Depth = 2
	for _, tc := range []struct {
		spec  ntk.Spec
		data  Data
		tiles int
		want  string
	}{
		{deeper, dataOf(x), 2, "kernel ntk L=1 σ_w=1 σ_b=0 float64 there, ntk L=2"},
		{spec, dataOf(randInputs(6, 300, 10)), 2, "training inputs 300×10, SHA-256"},
		{spec, dataOf(x), 3, "2 tiles there, 3 here"},
	} {
		m2, err := NewManifest(tc.spec, tc.data, nil, tc.tiles)
		if err != nil {
			t.Fatal(err)
		}
		if err := Prepare(dir, m2); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
	got, err := Load(dir)
	if err != nil || got.ID() != m.ID() {
		t.Fatalf("Load: %v", err)
	}
	path := filepath.Join(dir, ManifestName)
	b, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(b), `"rows": [
        0,`, `"rows": [
        1,`, 1)), 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "edited") {
		t.Errorf("edited manifest: %v", err)
	}
}

// TestSummaryMachines: blocks computed with another kernel set are counted
// apart, for the collect step's warning.
func TestSummaryMachines(t *testing.T) {
	dir := t.TempDir()
	spec := ntk.Spec{Kind: ntk.KindNTK, Depth: 1, WeightStd: 1}
	m := computeAll[float64](t, dir, spec, randInputs(7, 2*Unit+3, 5), nil, 2)
	path := filepath.Join(dir, "block-0001.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), `"kernels": "`, `"kernels": "other-`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Collect[float64](dir, m, filepath.Join(t.TempDir(), "k.npy"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Kernels) != 2 || !strings.HasPrefix(s.Kernels[1], "other-") {
		t.Errorf("kernels %q, want two, one of them other-…", s.Kernels)
	}
}
