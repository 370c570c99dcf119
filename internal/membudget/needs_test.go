package membudget

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestCheckNeeds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		avail uint64
		known bool
		needs []Need
		want  string // "" for no error
	}{
		{"fits", 1 << 30, true, []Need{{"Gram", 1 << 29}, {"scratch", 1 << 20}}, ""},
		{"unknown memory", 1, false, []Need{{"Gram", 1 << 40}}, ""},
		{"too large", 4 << 30, true, []Need{{"the Gram 60000×60000 float64", Matrix(60000, 60000, 8)}, {"workspace", 1 << 20}},
			"the Gram 60000×60000 float64 26.8 GiB + workspace 1.0 MiB (26.8 GiB in all), only 4.0 GiB is available"},
		{"overflow", 1 << 40, true, []Need{{"array", Matrix(1<<62, 1<<62, 8)}}, "more than can be addressed"},
		{"negative", 1 << 40, true, []Need{{"array", Matrix(-1, 2, 8)}}, "more than can be addressed"},
	} {
		err := CheckNeeds(tc.avail, tc.known, tc.needs...)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrNoMemory) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if Add(math.MaxUint64, 1) != math.MaxUint64 || Mul(1<<40, 1<<40) != math.MaxUint64 {
		t.Error("no saturation")
	}
}
