package falkon

import (
	"errors"
	"testing"

	"github.com/ntksvm/ntksvm/internal/membudget"
)

func TestMaxCentres(t *testing.T) {
	const n, c = 60000, 10
	for _, budget := range []int64{64 << 20, 1 << 30, 4 << 30} {
		m, err := MaxCentres(n, c, budget, 200<<20)
		if err != nil {
			var ne *membudget.NeedError
			if budget == 64<<20 && errors.As(err, &ne) {
				continue
			}
			t.Fatalf("budget %d: %v", budget, err)
		}
		if Bytes(n, m, c, 0)+200<<20 > budget || m < n && Bytes(n, m+1, c, 0)+200<<20 <= budget {
			t.Errorf("budget %d: M = %d is not the largest that fits", budget, m)
		}
		if err := CheckBudget(n, m, c, budget, 200<<20); err != nil {
			t.Errorf("budget %d: M = %d refused: %v", budget, m, err)
		}
		if err := CheckBudget(n, m+100, c, budget, 200<<20); m+100 <= n && err == nil {
			t.Errorf("budget %d: M = %d accepted", budget, m+100)
		}
	}
}
