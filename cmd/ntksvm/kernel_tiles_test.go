package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
	"github.com/ntksvm/ntksvm/svm"
)

// writeSet writes n random labelled points of dimension d as X.npy and
// y.npy in dir and returns the --data spec.
func writeSet(t *testing.T, dir, name string, seed uint64, n, d int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed))
	x := linalg.New[float64](n, d)
	y := make([]float64, n)
	for i := range n {
		y[i] = float64(2*(i%2) - 1)
		for j := range d {
			x.Set(i, j, rng.NormFloat64()+0.5*y[i])
		}
	}
	xp, yp := filepath.Join(dir, name+"-X.npy"), filepath.Join(dir, name+"-y.npy")
	if err := npy.Write(xp, x); err != nil {
		t.Fatal(err)
	}
	if err := npy.WriteVector(yp, y); err != nil {
		t.Fatal(err)
	}
	return xp + "," + yp
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	return stdout
}

// sameFiles fails t unless the files at a and b have the same bytes.
func sameFiles(t *testing.T, a, b string) {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x, y) {
		t.Errorf("%s and %s differ", a, b)
	}
}

// TestKernelTiles: the tiles of "ntksvm kernel --tile", run in any order
// and again, collect into the file "ntksvm kernel" writes, for the Gram
// (float64, NNGP) and the cross kernel (float32), and "ntksvm train
// --tiles" fits the model "ntksvm train" fits.
func TestKernelTiles(t *testing.T) {
	dir := t.TempDir()
	data := writeSet(t, dir, "train", 1, 2*linalg.GramStrip+70, 7)
	test := writeSet(t, dir, "test", 2, 3*linalg.GramStrip+5, 7)
	for _, tc := range []struct {
		name  string
		flags []string
		tiles int
	}{
		{"gram", []string{"--kernel", "nngp", "--depth", "2", "--sigma-b", "0.3"}, 3},
		{"cross", []string{"--test", test, "--precision", "float32"}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kernel := append([]string{"kernel", "--data", data}, tc.flags...)
			want := filepath.Join(dir, tc.name+"-K.npy")
			mustRun(t, append(kernel, "--out", want)...)
			tiles := filepath.Join(dir, tc.name+"-tiles")
			for i := tc.tiles - 1; i >= 0; i-- {
				t.Setenv("SLURM_ARRAY_TASK_ID", string(rune('0'+i)))
				out := mustRun(t, append(kernel, "--tile", "auto/"+string(rune('0'+tc.tiles)), "--out", tiles)...)
				if !strings.Contains(out, "computed in") {
					t.Errorf("tile %d: %q", i, out)
				}
			}
			if out := mustRun(t, append(kernel, "--tile", "1/"+string(rune('0'+tc.tiles)), "--out", tiles)...); !strings.Contains(out, "nothing to do") {
				t.Errorf("tile 1 again: %q", out)
			}
			got := filepath.Join(dir, tc.name+"-collected.npy")
			mustRun(t, append(kernel[:1], append([]string{"--collect", tiles, "--out", got}, kernel[1:]...)...)...)
			sameFiles(t, got, want)
			got2 := filepath.Join(dir, tc.name+"-collected-nodata.npy")
			mustRun(t, "kernel", "--collect", tiles, "--out", got2, "--mem-cap", "5kB")
			sameFiles(t, got2, want)
		})
	}
	t.Run("train", func(t *testing.T) {
		tiles := filepath.Join(dir, "train-tiles")
		for i := range 2 {
			mustRun(t, "kernel", "--data", data, "--depth", "2", "--tile", string(rune('0'+i))+"/2", "--out", tiles)
		}
		a, b := filepath.Join(dir, "a.model"), filepath.Join(dir, "b.model")
		mustRun(t, "train", "--data", data, "--depth", "2", "--machine", "svm2", "--out", a)
		mustRun(t, "train", "--data", data, "--depth", "2", "--machine", "svm2", "--tiles", tiles, "--out", b)
		if ma, mb := modelBytes(t, a), modelBytes(t, b); !bytes.Equal(ma, mb) {
			t.Error("the model fitted on the tiles differs from the one fitted in one process")
		}
		checkRefusals(t, []string{"train", "--data", data, "--out", filepath.Join(dir, "c.model"), "--tiles", tiles}, []cliRefusal{
			{nil, 1, "holds the tiles of another computation: kernel ntk L=2 σ_w=1 σ_b=0 float64 there, ntk L=1"},
		})
	})
}

// modelBytes returns the model file at path re-encoded without the solver's
// wall time.
func modelBytes(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := svm.ReadModel(f)
	if err != nil {
		t.Fatal(err)
	}
	m.Fit.Seconds = 0
	var b bytes.Buffer
	if err := svm.WriteModel(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestKernelTilesRefused: bad tile flags, and tiles of another data set,
// are refused with the flag or the difference named.
func TestKernelTilesRefused(t *testing.T) {
	dir := t.TempDir()
	data := writeSet(t, dir, "a", 3, 300, 5)
	other := writeSet(t, dir, "b", 4, 300, 5)
	tiles := filepath.Join(dir, "tiles")
	mustRun(t, "kernel", "--data", data, "--tile", "0/2", "--out", tiles)
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	t.Setenv("JOB_COMPLETION_INDEX", "")
	out := filepath.Join(dir, "K.npy")
	checkRefusals(t, []string{"kernel"}, []cliRefusal{
		{[]string{"--data", data, "--tile", "2/2", "--out", tiles}, 2, "--tile \"2/2\": tile index \"2\""},
		{[]string{"--data", data, "--tile", "auto/2", "--out", tiles}, 2, "neither $SLURM_ARRAY_TASK_ID nor $JOB_COMPLETION_INDEX"},
		{[]string{"--data", data, "--tile", "0/4", "--out", tiles}, 2, "--tile: 4 tiles for 300 rows: want 1…3"},
		{[]string{"--data", data, "--tile", "0/3", "--out", tiles}, 1, "holds the tiles of another computation: 2 tiles there, 3 here"},
		{[]string{"--data", other, "--tile", "1/2", "--out", tiles}, 1, "training inputs 300×5, SHA-256"},
		{[]string{"--data", data, "--tile", "0/2", "--collect", tiles, "--out", tiles}, 2, "--tile and --collect"},
		{[]string{"--data", data, "--tile", "0/2"}, 2, "--out is required"},
		{[]string{"--collect", tiles, "--out", out}, 1, "tile 1: block-0001.npy (rows 256…299) is missing; run tile 1/2"},
		{[]string{"--collect", tiles, "--depth", "3", "--out", out}, 2, "--depth with --collect needs --data"},
		{[]string{"--collect", tiles, "--data", data, "--depth", "3", "--out", out}, 1, "kernel ntk L=1 σ_w=1 σ_b=0 float64 there, ntk L=3"},
		{[]string{"--collect", tiles, "--data", data, "--out", filepath.Join(dir, "K.txt")}, 2, "want a .npy file name"},
		{[]string{"--collect", dir, "--out", out}, 1, "no manifest.json: not a tile directory"},
	})
	checkNoOutput(t, out)
}
