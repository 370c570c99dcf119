package tiles

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ntksvm/ntksvm/linalg"
)

// Unit is the granularity of band edges: linalg.GramStrip rows.
const Unit = linalg.GramStrip

// SplitTriangle splits the rows 0…n−1 of an n×n lower triangle into tiles
// bands [r0, r1) of about equal work, the number of entries
// r1(r1+1)/2 − r0(r0+1)/2, with inner edges on multiples of Unit. Each
// band has at least one Unit of rows, so tiles is at most ⌈n/Unit⌉.
func SplitTriangle(n, tiles int) ([][2]int, error) {
	tri := func(r float64) float64 { return r * (r + 1) / 2 }
	total := tri(float64(n))
	return split(n, tiles, func(k int) float64 {
		w := total * float64(k) / float64(tiles)
		return (math.Sqrt(1+8*w) - 1) / 2 // tri(r) = w
	})
}

// SplitRows splits m rows into tiles bands of about equal size, inner edges
// on multiples of Unit.
func SplitRows(m, tiles int) ([][2]int, error) {
	return split(m, tiles, func(k int) float64 { return float64(m) * float64(k) / float64(tiles) })
}

// MaxTiles bounds the tiles of a plan, so that a manifest that declares
// more (edited or corrupt) is refused before its bands are allocated; it
// allows Grams of over eight million points.
const MaxTiles = 1 << 16

// split returns tiles bands of n rows whose k-th inner edge is ideal(k)
// rounded to the nearest multiple of Unit, kept at least one Unit from
// its neighbours.
func split(n, tiles int, ideal func(k int) float64) ([][2]int, error) {
	units := (n + Unit - 1) / Unit
	if n < 1 {
		return nil, fmt.Errorf("no rows to split")
	}
	if tiles < 1 || tiles > units {
		return nil, fmt.Errorf("%d tiles for %d rows: want 1…%d (a tile holds at least %d rows)", tiles, n, units, Unit)
	}
	if tiles > MaxTiles {
		return nil, fmt.Errorf("%d tiles: want at most %d", tiles, MaxTiles)
	}
	bands := make([][2]int, tiles)
	prev := 0 // edge of the previous band, in units
	for k := 1; k < tiles; k++ {
		g := int(math.Round(ideal(k) / Unit))
		g = max(g, prev+1)
		g = min(g, units-(tiles-k))
		bands[k-1] = [2]int{prev * Unit, g * Unit}
		prev = g
	}
	bands[tiles-1] = [2]int{prev * Unit, n}
	return bands, nil
}

// TileEnv are the environment variables that give a task its index when
// the tile is "auto/N", in the order they are tried: Slurm job arrays
// (submitted with --array=0-(N−1)) and Kubernetes Indexed Jobs.
var TileEnv = []string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"}

// ParseTile parses "i/N" (0 ≤ i < N) or "auto/N", which takes i from the
// first of TileEnv that getenv returns non-empty.
func ParseTile(s string, getenv func(string) string) (i, n int, err error) {
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return 0, 0, fmt.Errorf("%q: want i/N (tile i of N, from 0) or auto/N", s)
	}
	if n, err = strconv.Atoi(ns); err != nil || n < 1 {
		return 0, 0, fmt.Errorf("%q: N = %q is not a positive count", s, ns)
	}
	from := ""
	if is == "auto" {
		for _, v := range TileEnv {
			if is = getenv(v); is != "" {
				from = " (from $" + v + ")"
				break
			}
		}
		if is == "" {
			return 0, 0, fmt.Errorf("%q: neither $%s nor $%s is set (run it as an array task, or give i/N)", s, TileEnv[0], TileEnv[1])
		}
	}
	if i, err = strconv.Atoi(is); err != nil || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("%q: tile index %q%s: want 0…%d", s, is, from, n-1)
	}
	return i, n, nil
}
