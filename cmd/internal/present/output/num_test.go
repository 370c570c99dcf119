package output

import (
	"encoding/json"
	"math"
	"testing"
)

func TestNumJSON(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		text string
	}{
		{0.1, "0.1"}, {-2.5e-300, "-2.5e-300"}, {math.NaN(), "null"}, {math.Inf(1), "null"}, {math.Inf(-1), "null"},
	} {
		b, err := json.Marshal(Num(tc.in))
		if err != nil || string(b) != tc.text {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tc.in, b, err, tc.text)
		}
		var back Num
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if want := tc.in; !(float64(back) == want || math.IsNaN(float64(back)) && (math.IsNaN(want) || math.IsInf(want, 0))) {
			t.Errorf("round trip of %v gave %v", tc.in, back)
		}
	}
}

func TestMaxNum(t *testing.T) {
	nan := Num(math.NaN())
	for _, tc := range []struct{ a, b, want Num }{
		{0, 2, 2}, {3, 2, 3}, {1, nan, 1}, {nan, 2, 2},
	} {
		if got := MaxNum(tc.a, tc.b); got != tc.want {
			t.Errorf("MaxNum(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	if got := MaxNum(0, nan); !math.IsNaN(float64(got)) {
		t.Errorf("MaxNum(0, NaN) = %v, want NaN (nothing but missing values so far)", got)
	}
}
