package ondemand

import (
	"errors"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/internal/membudget"
)

func TestChoose(t *testing.T) {
	const n = 12665
	gram64 := int64(n) * n * 8
	for _, tc := range []struct {
		name   string
		budget int64
		dense  bool
		rows   int64 // cached rows, when not dense
		err    string
	}{
		{"dense fits", gram64 + SolverBytes(n) + 1<<20, true, 0, ""},
		{"on demand", 1 << 30, false, 10000, ""},
		{"tiny", 40 << 20, false, 0, ""},
		{"too small", 20 << 20, false, 0, "needs"},
	} {
		p, err := Choose[float64](n, tc.budget, 1<<20)
		if tc.err != "" {
			var ne *membudget.NeedError
			if !errors.As(err, &ne) || !strings.Contains(err.Error(), tc.err) || ne.Need <= tc.budget {
				t.Errorf("%s: %v, want a NeedError", tc.name, err)
			}
			continue
		}
		if err != nil || p.Dense != tc.dense || p.Need > tc.budget {
			t.Fatalf("%s: %+v, %v", tc.name, p, err)
		}
		if !p.Dense {
			rows := p.Config.CacheBytes / RowBytes[float64](n)
			if rows < 2 || tc.rows > 0 && rows < tc.rows {
				t.Errorf("%s: %d cached rows", tc.name, rows)
			}
			if b := Bytes[float64](n, p.Config) + SolverBytes(n) + 1<<20; b > tc.budget {
				t.Errorf("%s: the plan's Matrix needs %d bytes, over the budget %d", tc.name, b, tc.budget)
			}
		}
	}
}
