// Package rng holds the project's deterministic random number generators:
// the same seed gives the same numbers on every platform and Go version,
// so that a seeded run (initial weights, a random MNIST subset, a batch
// order) can be reproduced bit for bit. It has SplitMix64 (the seeds of
// the weights and of the subsets), math/rand/v2's PCG-DXSM (the batch
// order) and Lemire's unbiased bounded draw on either.
package rng

import (
	"math/bits"
	"math/rand/v2"
	"slices"
)

// Source is a generator of uniformly distributed 64-bit words: a
// *SplitMix64 or the *rand.PCG of NewPCG.
type Source interface {
	Uint64() uint64
}

// SplitMix64 is the SplitMix64 generator (Steele, Lea and Flood 2014); its
// value is the state, so SplitMix64(seed) is the generator for seed. Each
// draw adds 0x9e3779b97f4a7c15 to the state and returns it mixed by
// z ^= z>>30; z *= 0xbf58476d1ce4e5b9; z ^= z>>27; z *= 0x94d049bb133111eb;
// z ^= z>>31. The zero value is the generator for seed 0.
type SplitMix64 uint64

// Uint64 returns the next 64 random bits.
func (g *SplitMix64) Uint64() uint64 {
	*g += 0x9e3779b97f4a7c15
	z := uint64(*g)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// NewPCG returns math/rand/v2's PCG-DXSM generator with state (seed, seq):
// rand.NewPCG(seed, seq), whose output stream the Go project keeps fixed.
// Different seq values give different streams for the same seed.
func NewPCG(seed, seq uint64) *rand.PCG { return rand.NewPCG(seed, seq) }

// Below returns a uniform integer in [0, k) from src by Lemire's unbiased
// multiply-shift method (Lemire 2019): the high word of w·k for the next
// word w, drawing w again while the low word is below 2⁶⁴ mod k. It panics
// if k is 0 (a programmer error).
func Below(src Source, k uint64) uint64 {
	if k == 0 {
		panic("rng: Below(0)")
	}
	hi, lo := bits.Mul64(src.Uint64(), k)
	if lo < k {
		thresh := -k % k // 2⁶⁴ mod k
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), k)
		}
	}
	return hi
}

// Subset returns m distinct indices of 0…n−1 drawn uniformly by a partial
// Fisher–Yates shuffle on SplitMix64(seed), in ascending order. It needs
// 0 ≤ m ≤ n.
func Subset(n, m int, seed uint64) []int {
	g := SplitMix64(seed)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	for i := range m {
		j := i + int(Below(&g, uint64(n-i)))
		perm[i], perm[j] = perm[j], perm[i]
	}
	out := perm[:m:m]
	slices.Sort(out)
	return out
}
