package linalg

import (
	"runtime"
	"slices"
	"testing"
)

func TestSetThreads(t *testing.T) {
	defer SetThreads(0)
	SetThreads(3)
	if got := Threads(); got != 3 {
		t.Fatalf("after SetThreads(3): Threads() = %d", got)
	}
	SetThreads(-1)
	if got, want := Threads(), runtime.GOMAXPROCS(0); got != want {
		t.Fatalf("after SetThreads(-1): Threads() = %d, want GOMAXPROCS %d", got, want)
	}
}

func TestEvenCuts(t *testing.T) {
	tests := []struct {
		n, q, parts int
		want        []int
	}{
		{100, 4, 1, []int{0, 100}},
		{100, 4, 2, []int{0, 48, 100}},
		{10, 4, 3, []int{0, 4, 8, 10}},
		{128, 14, 2, []int{0, 70, 128}},
		{3, 4, 2, []int{0, 0, 3}},
	}
	for _, tc := range tests {
		if got := evenCuts(tc.n, tc.q, tc.parts); !slices.Equal(got, tc.want) {
			t.Errorf("evenCuts(%d, %d, %d) = %v, want %v", tc.n, tc.q, tc.parts, got, tc.want)
		}
	}
}
