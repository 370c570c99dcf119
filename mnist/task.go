package mnist

import (
	"fmt"
	"slices"
	"sync"

	"github.com/ntksvm/ntksvm/internal/rng"
	"github.com/ntksvm/ntksvm/linalg"
)

// Mean and Std are the MNIST training-set pixel mean and standard deviation
// (after /255) that torchvision's customary normalisation uses.
const (
	Mean = 0.1307
	Std  = 0.3081
)

// Options controls how Binary builds a task. The zero value gives the
// paper's setting: every example of the two digits, pixels divided by 255.
type Options struct {
	// Standardize maps each pixel p to (p/255 − Mean)/Std instead of p/255.
	Standardize bool
	// First keeps only the first First examples of the task in file order
	// (0 keeps all). The paper's "first n" subsets (n = 128, 1000) are these.
	First int
	// Random keeps Random examples chosen at random without replacement
	// (0 keeps all), in file order; Seed picks them through Subset.
	// First and Random exclude each other.
	Random int
	Seed   uint64
	// AllowNonCanonical lets LoadBinary use files whose content is not the
	// canonical MNIST (it refuses them otherwise).
	AllowNonCanonical bool
}

// Task is a binary classification task drawn from one split.
type Task[T linalg.Float] struct {
	Split Split
	A, B  int              // the two digits: A is labelled −1 and B +1
	X     linalg.Matrix[T] // one example per row, Rows·Cols pixels each (784 for MNIST), row-major
	Y     []T              // −1 or +1, one per row of X
	Index []int            // Index[i] is the position of row i in the split's files, ascending
}

// Binary returns the task "digit a against digit b" from s: every example
// labelled a or b, in file order, with y = −1 for a and +1 for b, after the
// subsetting in opt. MNIST 0 against 1 has 12,665 train and 2,115 test
// examples.
func Binary[T linalg.Float](s *Set, a, b int, opt Options) (*Task[T], error) {
	if a < 0 || a > 9 || b < 0 || b > 9 || a == b {
		return nil, fmt.Errorf("mnist: digits %d and %d: want two different digits 0…9", a, b)
	}
	if opt.First < 0 || opt.Random < 0 {
		return nil, fmt.Errorf("mnist: negative subset size (first %d, random %d)", opt.First, opt.Random)
	}
	if opt.First > 0 && opt.Random > 0 {
		return nil, fmt.Errorf("mnist: first %d and random %d both set; choose one", opt.First, opt.Random)
	}
	var idx []int
	for i, v := range s.Labels.Values {
		if int(v) == a || int(v) == b {
			idx = append(idx, i)
		}
	}
	name := fmt.Sprintf("%s %d/%d", s.Split, a, b)
	switch {
	case opt.First > len(idx):
		return nil, fmt.Errorf("mnist: first %d examples asked, but %s has %d", opt.First, name, len(idx))
	case opt.Random > len(idx):
		return nil, fmt.Errorf("mnist: %d random examples asked, but %s has %d", opt.Random, name, len(idx))
	case opt.First > 0:
		idx = idx[:opt.First]
	case opt.Random > 0:
		pick := Subset(len(idx), opt.Random, opt.Seed)
		for i, p := range pick {
			pick[i] = idx[p]
		}
		idx = pick
	}

	var lut [256]T
	for p := range lut {
		x := float64(p) / 255
		if opt.Standardize {
			x = (x - Mean) / Std
		}
		lut[p] = T(x)
	}
	im := s.Images
	d := im.Rows * im.Cols
	t := &Task[T]{Split: s.Split, A: a, B: b, Index: idx, Y: make([]T, len(idx))}
	t.X = linalg.New[T](len(idx), d)
	for i, k := range idx {
		row := t.X.Row(i)
		for j, p := range im.Image(k) {
			row[j] = lut[p]
		}
		if int(s.Labels.Values[k]) == a {
			t.Y[i] = -1
		} else {
			t.Y[i] = 1
		}
	}
	return t, nil
}

// LoadBinary loads MNIST from dir and returns the train and test tasks
// "digit a against digit b", both built with opt. It is the loader of the
// paper's experiments, so it refuses files that are not the canonical MNIST
// (the error wraps ErrChecksum and names them) unless opt.AllowNonCanonical
// is set. The two splits are decoded and converted concurrently.
func LoadBinary[T linalg.Float](dir string, a, b int, opt Options) (train, test *Task[T], err error) {
	tr, te, err := Load(dir)
	if err != nil {
		return nil, nil, err
	}
	if !opt.AllowNonCanonical {
		for _, s := range []*Set{tr, te} {
			if err := s.Verify(); err != nil {
				return nil, nil, fmt.Errorf("%w (set AllowNonCanonical, or --allow-noncanonical, to use these files anyway)", err)
			}
		}
	}
	var wg sync.WaitGroup
	var errTest error
	wg.Add(1)
	go func() {
		defer wg.Done()
		test, errTest = Binary[T](te, a, b, opt)
	}()
	train, err = Binary[T](tr, a, b, opt)
	wg.Wait()
	if err != nil {
		return nil, nil, err
	}
	if errTest != nil {
		return nil, nil, errTest
	}
	return train, test, nil
}

// Subset returns n distinct integers from [0, m), ascending, chosen
// uniformly at random by a generator seeded with seed. The choice is fully
// specified, so it is the same on every platform and Go version:
//
//   - the generator is SplitMix64 (Steele, Lea and Flood 2014) with state
//     seed: each draw adds 0x9e3779b97f4a7c15 to the state and returns it
//     mixed by z ^= z>>30; z *= 0xbf58476d1ce4e5b9; z ^= z>>27;
//     z *= 0x94d049bb133111eb; z ^= z>>31;
//   - a draw in [0, k) is Lemire's unbiased multiply-shift: the high word
//     of z·k, redrawing z while the low word is below 2⁶⁴ mod k;
//   - a partial Fisher–Yates shuffle of 0, 1, …, m−1: for i = 0, …, n−1,
//     swap position i with position i + draw(m − i); the first n positions
//     are then sorted.
//
// It panics if n < 0 or n > m.
func Subset(m, n int, seed uint64) []int {
	if n < 0 || n > m {
		panic(fmt.Sprintf("mnist: Subset(%d, %d): want 0 ≤ n ≤ m", m, n))
	}
	g := rng.SplitMix64(seed)
	perm := make([]int, m)
	for i := range perm {
		perm[i] = i
	}
	for i := range n {
		j := i + int(rng.Below(&g, uint64(m-i)))
		perm[i], perm[j] = perm[j], perm[i]
	}
	out := perm[:n:n]
	slices.Sort(out)
	return out
}
