package mnist

import (
	"math"
	"testing"
)

func TestRealMNIST(t *testing.T) {
	dir := RealDataDirForTest(t)
	train, test, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Set{train, test} {
		for _, info := range []FileInfo{s.Images.Info, s.Labels.Info} {
			if info.Checksum != ChecksumOK {
				t.Errorf("%s: checksum %v", info.Path, info.Checksum)
			}
		}
		if err := s.Verify(); err != nil {
			t.Error(err)
		}
		if s.Images.Rows != 28 || s.Images.Cols != 28 {
			t.Errorf("%s: images %d×%d, want 28×28", s.Split, s.Images.Rows, s.Images.Cols)
		}
	}
	if train.Len() != 60000 || test.Len() != 10000 {
		t.Errorf("sizes %d, %d; want 60000, 10000", train.Len(), test.Len())
	}
	wantCounts := [10]int{5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949}
	if c := train.Counts(); c != wantCounts {
		t.Errorf("train counts %v, want %v", c, wantCounts)
	}
	var sum float64
	for _, p := range train.Images.Pixels {
		sum += float64(p) / 255
	}
	if mean := sum / float64(len(train.Images.Pixels)); math.Abs(mean-0.13066) > 5e-6 {
		t.Errorf("train pixel mean %.6f, want 0.13066", mean)
	}

	for _, c := range []struct {
		s           *Set
		n, neg, pos int
	}{{train, 12665, 5923, 6742}, {test, 2115, 980, 1135}} {
		task, err := Binary[float64](c.s, 0, 1, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if task.X.Rows != c.n || task.X.Cols != 784 || len(task.Y) != c.n || len(task.Index) != c.n {
			t.Fatalf("%s: X %d×%d, %d labels, %d indices; want %d×784", c.s.Split, task.X.Rows, task.X.Cols, len(task.Y), len(task.Index), c.n)
		}
		neg := 0
		for _, y := range task.Y {
			if y == -1 {
				neg++
			}
		}
		if neg != c.neg || c.n-neg != c.pos {
			t.Errorf("%s 0/1: %d negatives, %d positives; want %d, %d", c.s.Split, neg, c.n-neg, c.neg, c.pos)
		}
	}
}

// BenchmarkLoadBinary01 loads the paper's task (0 against 1, both splits,
// float64) from $NTKSVM_MNIST_DIR; it skips when that is unset (even in
// CI) and fails when it names no readable MNIST files.
func BenchmarkLoadBinary01(b *testing.B) {
	dir, set, err := RealDataDir()
	if !set {
		b.Skipf("%s not set", EnvDir)
	}
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		train, test, err := LoadBinary[float64](dir, 0, 1, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if train.X.Rows != 12665 || test.X.Rows != 2115 {
			b.Fatalf("got %d and %d examples", train.X.Rows, test.X.Rows)
		}
	}
}
