package linalg

import (
	"testing"

	"github.com/ntksvm/ntksvm/asm"
)

// TestBlockSizes checks the derived blocks against the cache sizes and the
// micro-tile multiples the driver relies on.
func TestBlockSizes(t *testing.T) {
	l1, l2, _ := cacheSizes()
	for _, ks := range asm.Available() {
		for _, size := range []int{4, 8} {
			mr, nr := ks.Tile32()
			if size == 8 {
				mr, nr = ks.Tile64()
			}
			b := blockSizes(mr, nr, size)
			switch {
			case b.mc%mr != 0 || b.nc%nr != 0 || b.kc%8 != 0:
				t.Errorf("%s/%d: %+v not multiples of %d×%d and 8", ks.Name(), size, b, mr, nr)
			case b.kc < 64 || b.mc < mr || b.nc < nr:
				t.Errorf("%s/%d: %+v too small", ks.Name(), size, b)
			case mr*nr*size >= deepTile && (mr*b.kc*size > l1/2 || b.kc > kcMax) && b.kc > 64:
				t.Errorf("%s/%d: kc=%d: the A sliver, %d bytes, overflows half of L1 (%d) or kc > %d", ks.Name(), size, b.kc, mr*b.kc*size, l1, kcMax)
			case mr*nr*size < deepTile && (mr+nr)*b.kc*size > l1 && b.kc > 64:
				t.Errorf("%s/%d: kc=%d: slivers of %d bytes overflow L1 (%d)", ks.Name(), size, b.kc, (mr+nr)*b.kc*size, l1)
			case b.kc*b.nc*size > l2 && b.nc > 4*nr:
				t.Errorf("%s/%d: B panel %d×%d overflows L2 (%d)", ks.Name(), size, b.kc, b.nc, l2)
			}
		}
	}
}

func TestBalanced(t *testing.T) {
	tests := []struct{ n, limit, q, want int }{
		{10, 100, 4, 12},
		{100, 100, 4, 100},
		{101, 100, 4, 52},
		{2048, 1302, 14, 1036},
		{784, 200, 1, 196},
		{10000, 200, 1, 200},
		{1, 8, 8, 8},
	}
	for _, tc := range tests {
		if got := balanced(tc.n, tc.limit, tc.q); got != tc.want {
			t.Errorf("balanced(%d, %d, %d) = %d, want %d", tc.n, tc.limit, tc.q, got, tc.want)
		}
	}
}

func TestClampRound(t *testing.T) {
	tests := []struct{ v, q, lo, hi, want int }{
		{209, 8, 64, 1024, 208},
		{10, 8, 64, 1024, 64},
		{5000, 8, 64, 1024, 1024},
		{1310, 14, 14, 4096, 1302},
		{3, 14, 56, 4096, 56},
	}
	for _, tc := range tests {
		if got := clampRound(tc.v, tc.q, tc.lo, tc.hi); got != tc.want {
			t.Errorf("clampRound(%d, %d, %d, %d) = %d, want %d", tc.v, tc.q, tc.lo, tc.hi, got, tc.want)
		}
	}
}
