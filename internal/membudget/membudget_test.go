package membudget

import (
	"errors"
	"strings"
	"testing"
)

func TestCgroupRoom(t *testing.T) {
	for _, tc := range []struct {
		max, cur string
		room     uint64
		ok       bool
	}{
		{"max\n", "100\n", 0, false},
		{"1000\n", "100\n", 900, true},
		{"1000", "2000", 0, true},
		{"junk", "1", 0, false},
	} {
		room, ok := cgroupRoom([]byte(tc.max), []byte(tc.cur))
		if room != tc.room || ok != tc.ok {
			t.Errorf("cgroupRoom(%q, %q) = %d, %v", tc.max, tc.cur, room, ok)
		}
	}
}

func TestParseMemAvailable(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"MemTotal:       24000000 kB\nMemFree:        1000 kB\nMemAvailable:   23000000 kB\n", 23000000 << 10, true},
		{"MemAvailable: 0 kB\n", 0, true},
		{"MemTotal: 5 kB\n", 0, false},
		{"MemAvailable: lots kB\n", 0, false},
		{"MemAvailable: 5 MB\n", 0, false},
		{"", 0, false},
	} {
		got, ok := parseMemAvailable([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseMemAvailable(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"4GiB", 4 << 30}, {"4 gib", 4 << 30}, {"512MiB", 512 << 20}, {"1.5GiB", 3 << 29}, {"2G", 2e9}, {"4 gb", 4e9},
		{"100k", 1e5}, {"1000000", 1e6}, {"7B", 7}, {"2T", 2e12}, {"0", 0},
		{"", -1}, {"G", -1}, {"GiB", -1}, {"4X", -1}, {"4XB", -1}, {"-3G", -1}, {"-1", -1}, {"1e30", -1}, {"9e9T", -1},
	} {
		got, err := ParseSize(tc.in)
		if tc.want < 0 {
			if err == nil {
				t.Errorf("ParseSize(%q) = %d, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestCheck(t *testing.T) {
	if err := Check("x", 10, 10, ""); err != nil {
		t.Errorf("fits: %v", err)
	}
	err := Check("SMO on 60000 points", 3<<30, 1<<30, "use --mem 4G")
	var ne *NeedError
	if !errors.As(err, &ne) || ne.Need != 3<<30 || !strings.Contains(err.Error(), "needs 3.0 GiB of memory; the budget is 1.0 GiB: use --mem 4G") {
		t.Errorf("%v", err)
	}
	if a, ok := Available(); ok && a == 0 {
		t.Error("Available reports 0 bytes")
	}
	if b, ok := Default(); ok && b <= 0 {
		t.Errorf("Default budget %d", b)
	}
}
