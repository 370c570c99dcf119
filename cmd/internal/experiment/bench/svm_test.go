package bench

import (
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// TestReadRows checks that the bandwidth baseline reads every element
// exactly once for any thread count and row grouping (small integers sum
// exactly), never the padding.
func TestReadRows(t *testing.T) {
	for _, c := range []struct{ rows, cols, stride int }{{1, 1, 1}, {7, 33, 40}, {50, 100, 100}, {9, 4099, 4104}} {
		data32 := make([]float32, (c.rows-1)*c.stride+c.cols)
		data64 := make([]float64, len(data32))
		want := 0.0
		for i := range data32 {
			v := float64(i%13 - 6)
			if i%c.stride >= c.cols {
				v = 1e9 // padding: must not be read
			} else {
				want += v
			}
			data32[i], data64[i] = float32(v), v
		}
		k32, err := linalg.FromStrided(c.rows, c.cols, c.stride, data32)
		if err != nil {
			t.Fatal(err)
		}
		k64, err := linalg.FromStrided(c.rows, c.cols, c.stride, data64)
		if err != nil {
			t.Fatal(err)
		}
		for _, th := range []int{1, 2, 3, 64} {
			if got := readRows(k32, th); got != want {
				t.Errorf("%+v float32, %d threads: %v, want %v", c, th, got, want)
			}
			if got := readRows(k64, th); got != want {
				t.Errorf("%+v float64, %d threads: %v, want %v", c, th, got, want)
			}
		}
	}
}
