package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProgress(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tty   bool
		total int64
		want  []string // substrings, in order
		lines int      // newline count
	}{
		{"log", false, 1000, []string{"x: 10% 100/1000\n", "x: 50% 500/1000\n", "x: 90% 900/1000\n", "x: 100% 1000/1000 in 25.0s\n"}, 10},
		{"log unknown total", false, 0, []string{"x: 350\n", "x: 750\n", "x: 1000 in 25.0s\n"}, 3},
		{"terminal", true, 1000, []string{"\r\033[Kx: [#....", "]   5% 50/1000", "]  95% 950/1000", "\r\033[Kx: 100% 1000/1000 in 25.0s\n"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			p := New(&buf, tc.tty, "x", tc.total)
			t0 := time.Unix(0, 0)
			clock := t0
			p.now = func() time.Time { return clock }
			p.start = t0
			p.drawn = t0
			for i := 1; i <= 10; i++ {
				clock = t0.Add(time.Duration(i) * 2500 * time.Millisecond)
				p.Add(50)
				p.Add(50)
			}
			p.Done()
			p.Done()
			p.Add(1)
			out := buf.String()
			rest := out
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (in order):\n%q", w, out)
				}
				rest = rest[i+len(w):]
			}
			if n := strings.Count(out, "\n"); n != tc.lines {
				t.Errorf("%d lines, want %d:\n%q", n, tc.lines, out)
			}
		})
	}
	if got := ByteCount(9719438); got != "9.7 MB" {
		t.Errorf("ByteCount = %q", got)
	}
}

func TestBarUnitRateETA(t *testing.T) {
	var b strings.Builder
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	p := New(&b, false, "train", 100).Unit("steps").Clock(clock).From(10)
	now = now.Add(9 * time.Second)
	p.Set(19) // 9 steps in 9 s: 1 step/s, 81 left
	p.Set(20)
	p.Done()
	want := "train: 20% 20/100 steps 1.11 steps/s ETA 1m12s\ntrain: 20% 20/100 steps in 9.0s\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}

func TestRoundDuration(t *testing.T) {
	for _, tc := range []struct{ in, want time.Duration }{
		{1234567 * time.Microsecond, 1230 * time.Millisecond},
		{61*time.Second + 600*time.Millisecond, 62 * time.Second},
		{time.Hour + 89*time.Second, time.Hour + time.Minute},
	} {
		if got := RoundDuration(tc.in); got != tc.want {
			t.Errorf("RoundDuration(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
