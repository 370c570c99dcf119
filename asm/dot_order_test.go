package asm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The vector dot and sum kernels' summation order, written out in Go, so
// that each set's kernels can be checked bit for bit rather than within
// a rounding bound: a kernel that adds an element to the wrong partial sum
// or reduces its lanes in another order shows at the first differing bit.

// dotOrder describes a set's order: lanes of a vector for the float64
// and the float32 results, and how the lanes of the final vector are
// added: halving (upper half onto lower half, x86) or pairwise (FADDP,
// NEON).
type dotOrder struct {
	lanes64, lanes32 int
	pairwise         bool
}

// dotOrders are the sets whose order is modelled here.
var dotOrders = map[string]dotOrder{
	"avx512": {8, 16, false},
	"avx2":   {4, 8, false},
	"neon":   {2, 4, true},
}

// reduceLanes adds the lanes of l in the set's order.
func reduceLanes[X float32 | float64](l []X, pairwise bool) X {
	l = append([]X(nil), l...)
	for w := len(l); w > 1; w /= 2 {
		for i := range w / 2 {
			if pairwise {
				l[i] = l[2*i] + l[2*i+1]
			} else {
				l[i] = l[i] + l[i+w/2]
			}
		}
	}
	return l[0]
}

// dotModel is the wrapper and kernel of a set with lanes-wide vectors:
// four accumulators s0…s3, a main loop of four vectors (vector r into
// s_r, each lane its own fused sum), single vectors into s0, then
// ((s0+s1)+(s2+s3)) reduced across lanes; a tail shorter than a vector is
// dotGeneric's, added last. With x nil it is the sum of a.
func dotModel[A, X float32 | float64](a []A, x []X, lanes int, pairwise bool) X {
	n := len(a) - len(a)%lanes
	term := func(i int) X {
		if x == nil {
			return X(a[i])
		}
		return X(a[i]) * x[i]
	}
	tail := func(i int) X { // the Go twin on a[i:]
		if x != nil {
			return dotGeneric(a[i:], x[i:])
		}
		ax := make([]X, len(a)-i)
		for j := range ax {
			ax[j] = X(a[i+j])
		}
		return sumGeneric(ax)
	}
	if n == 0 {
		return tail(0)
	}
	acc := make([][]X, 4)
	for r := range acc {
		acc[r] = make([]X, lanes)
	}
	add := func(s []X, i int) {
		for l := range lanes {
			if x == nil {
				s[l] += term(i + l)
			} else {
				s[l] = fmaT(X(a[i+l]), x[i+l], s[l])
			}
		}
	}
	i := 0
	for ; i+4*lanes <= n; i += 4 * lanes {
		for r := range 4 {
			add(acc[r], i+r*lanes)
		}
	}
	for ; i < n; i += lanes {
		add(acc[0], i)
	}
	v := make([]X, lanes)
	for l := range v {
		v[l] = (acc[0][l] + acc[1][l]) + (acc[2][l] + acc[3][l])
	}
	s := reduceLanes(v, pairwise)
	if n < len(a) {
		s += tail(n)
	}
	return s
}

// TestDotOrder checks the dot and sum kernels of the modelled sets bit for
// bit against dotModel for every length 0…200 and misaligned starts.
func TestDotOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, k := range available {
		o, ok := dotOrders[k.name]
		if !ok {
			continue
		}
		t.Run(k.name, func(t *testing.T) {
			for n := 0; n <= 200; n++ {
				for off := range 4 {
					a32 := randSlice[float32](rng, n+off)[off:]
					a64 := randSlice[float64](rng, n+off)[off:]
					x64 := randSlice[float64](rng, n+off+1)[off+1:]
					x32 := randSlice[float32](rng, n+off+3)[off+3:]
					check := func(name string, got, want float64) {
						if math.Float64bits(got) != math.Float64bits(want) {
							t.Fatalf("%s n=%d off=%d: %v, order model %v", name, n, off, got, want)
						}
					}
					check("DotF32F64", k.DotF32F64(a32, x64), dotModel(a32, x64, o.lanes64, o.pairwise))
					check("Dot64", k.Dot64(a64, x64), dotModel(a64, x64, o.lanes64, o.pairwise))
					check("Dot32", float64(k.Dot32(a32, x32)), float64(dotModel(a32, x32, o.lanes32, o.pairwise)))
					check("Sum64", k.Sum64(a64), dotModel[float64, float64](a64, nil, o.lanes64, o.pairwise))
					check("Sum32", float64(k.Sum32(a32)), float64(dotModel[float32, float32](a32, nil, o.lanes32, o.pairwise)))
				}
			}
		})
	}
}
