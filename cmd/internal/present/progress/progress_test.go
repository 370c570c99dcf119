package progress

import (
	"bytes"
	"strings"
	"sync"
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
		// A line per tenth, and a timed line when the log has been silent
		// for a fifth of the elapsed time (at least a second).
		{"log", false, 1000, []string{"x: 5% 50/1000 (2.5s)\n", "x: 10% 100/1000\n", "x: 45% 450/1000 (12.5s)\n", "x: 50% 500/1000\n",
			"x: 60% 600/1000\n", "x: 90% 900/1000\n", "x: 100% 1000/1000 in 25.0s\n"}, 15},
		{"log unknown total", false, 0, []string{"x: 50 (2.5s)\n", "x: 450 (12.5s)\n", "x: 650 (17.5s)\n", "x: 850 (22.5s)\n", "x: 1000 in 25.0s\n"}, 8},
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
	want := "train: 19% 19/100 steps 1 steps/s ETA 1m21s (9s)\ntrain: 20% 20/100 steps 1.11 steps/s ETA 1m12s\ntrain: 20% 20/100 steps in 9.0s\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}

// syncBuffer is a strings.Builder safe for the Bar's timer and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestBarLogTimer: in a log, a job that reports nothing (a long product
// before its first row) still gets a line about a second in, written by
// the timer; Done stops the timer.
func TestBarLogTimer(t *testing.T) {
	var b syncBuffer
	p := New(&b, false, "kernel rows", 100)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(b.String(), "\n") {
		if time.Now().After(deadline) {
			t.Fatal("no log line in 10 s from a silent job")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := b.String(); !strings.HasPrefix(got, "kernel rows: 0% 0/100 (") || strings.Count(got, "\n") != 1 {
		t.Errorf("first timed line %q, want \"kernel rows: 0%% 0/100 (<elapsed>)\"", got)
	}
	p.Done()
	done := b.String()
	time.Sleep(2500 * time.Millisecond) // past the next timed line's due time
	if got := b.String(); got != done {
		t.Errorf("lines after Done: %q", got[len(done):])
	}
	// On a terminal the bar is redrawn by Add only: no timer, no line.
	var tb syncBuffer
	q := New(&tb, true, "x", 10)
	time.Sleep(1200 * time.Millisecond)
	if tb.String() != "" {
		t.Errorf("terminal bar wrote %q before any Add", tb.String())
	}
	q.Done()
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
