// Package progress reports how far the ntksvm commands' long jobs have
// got: a bar redrawn in place on a terminal, plain lines in a log, and a
// status line for training runs.
package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// RoundDuration rounds an estimated or elapsed time for display: to the
// minute above an hour, to the second above a minute, else to 10 ms.
func RoundDuration(d time.Duration) time.Duration {
	switch {
	case d > time.Hour:
		return d.Round(time.Minute)
	case d > time.Minute:
		return d.Round(time.Second)
	}
	return d.Round(10 * time.Millisecond)
}

// Bar reports how far a long job has got: on a terminal, a bar redrawn in
// place at most ten times a second; otherwise (a log, a pipe) one plain
// line per tenth of the total and, whenever no line has been written for
// a while (logGap: a second at first, a fifth of the elapsed time later,
// a minute at most), a line with the elapsed time, written by a timer even while
// the job reports nothing (a long matrix product before the first row is
// done). Each line is one Write, so a log shows progress as it is made,
// not in a burst at the end, and stays short. It is safe for concurrent
// use; Done stops the timer.
//
//	p := progress.New(os.Stderr, tty, "train-images-idx3-ubyte.gz", size).Bytes()
//	… p.Add(n) as work is done …
//	p.Done()
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	label    string
	total    int64 // ≤ 0: unknown
	n        int64
	first    int64  // the count the report started from (From)
	unit     string // the name of a unit (Unit); "" for plain counts
	eta      func() time.Duration
	asBytes  bool
	start    time.Time
	drawn    time.Time // last redraw or log line
	logged   int64     // tenths of the total already logged
	finished bool
	now      func() time.Time
	timer    *time.Timer // the log's timer (not on a terminal); nil once done
}

// Intervals between updates.
const (
	drawInterval = 100 * time.Millisecond // terminal redraws
	minLogGap    = time.Second            // a log's first timed line
	maxLogGap    = time.Minute            // the longest silence of a log
)

// logGap is how long a log may go without a line, elapsed into the job: a
// fifth of the elapsed time, within [minLogGap, maxLogGap], so a job of
// seconds writes a line a second and an hour's job about ninety lines.
func logGap(elapsed time.Duration) time.Duration {
	return min(max(elapsed/5, minLogGap), maxLogGap)
}

// New starts a progress report on w for label out of total units (≤ 0 if
// unknown); tty says w is a terminal.
func New(w io.Writer, tty bool, label string, total int64) *Bar {
	p := &Bar{w: w, tty: tty, label: label, total: total, now: time.Now}
	p.start = p.now()
	p.drawn = p.start
	if !tty {
		p.mu.Lock() // the timer's first tick must see p.timer set
		p.timer = time.AfterFunc(minLogGap, p.tick)
		p.mu.Unlock()
	}
	return p
}

// tick writes a timed line if the log has been silent for logGap, and
// sets the timer for the next check.
func (p *Bar) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished || p.timer == nil {
		return
	}
	t := p.now()
	gap := logGap(t.Sub(p.start))
	if wait := gap - t.Sub(p.drawn); wait > 0 {
		p.timer.Reset(wait)
		return
	}
	p.logLine(t)
	p.timer.Reset(logGap(t.Sub(p.start)))
}

// stopTimer stops the log's timer, if any; p.mu is held.
func (p *Bar) stopTimer() {
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
}

// logLine writes the current state as a log line at time t, with the
// elapsed time.
func (p *Bar) logLine(t time.Time) {
	p.drawn = t
	fmt.Fprintf(p.w, "%s (%s)\n", p.line(false), RoundDuration(t.Sub(p.start)).Round(100*time.Millisecond))
}

// Bytes makes p show its counts as bytes (kB, MB, …); it returns p.
func (p *Bar) Bytes() *Bar {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asBytes = true
	return p
}

// Unit names the units counted ("steps"): the report then shows "40/100
// steps" and, once the count has moved, the rate and the estimated time
// left. It returns p.
func (p *Bar) Unit(name string) *Bar {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.unit = name
	return p
}

// From starts the count at n units already done (a resumed run): the rate
// and the time left count only what is done after. It returns p.
func (p *Bar) From(n int64) *Bar {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n, p.first = n, n
	p.logged = 0
	if p.total > 0 {
		p.logged = min(10*n/p.total, 10)
	}
	return p
}

// ETA replaces the estimate of the time left (by default the units left
// at the rate so far) with eta, for jobs whose units do not cost alike; it
// returns p. The estimate is read on Add and Set only (a Bar with its own
// estimate has no timer: eta may read state of the job's goroutine), so
// timed log lines then come with the updates.
func (p *Bar) ETA(eta func() time.Duration) *Bar {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.eta = eta
	p.stopTimer()
	return p
}

// Clock replaces the clock (time.Now) the report reads, for tests; it
// returns p. Like ETA, it stops the timer: the lines then depend on the
// updates and that clock alone.
func (p *Bar) Clock(now func() time.Time) *Bar {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.now = now
	p.stopTimer()
	p.start = now()
	p.drawn = p.start
	return p
}

// Add records n more units done.
func (p *Bar) Add(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.update(p.n + n)
}

// Set records that n units are done in all.
func (p *Bar) Set(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.update(n)
}

func (p *Bar) update(n int64) {
	if p.finished {
		return
	}
	p.n = n
	t := p.now()
	if p.tty {
		if t.Sub(p.drawn) >= drawInterval {
			p.drawn = t
			fmt.Fprintf(p.w, "\r\033[K%s", p.line(false))
		}
		return
	}
	if p.total > 0 {
		if tenth := min(10*p.n/p.total, 10); tenth > p.logged && tenth < 10 {
			p.logged = tenth
			p.drawn = t
			fmt.Fprintln(p.w, p.line(false))
			return
		}
	}
	if t.Sub(p.drawn) >= logGap(t.Sub(p.start)) {
		p.logLine(t)
	}
}

// Done writes the final state with the elapsed time and ends the report;
// later calls do nothing.
func (p *Bar) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	p.finished = true
	p.stopTimer()
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintln(p.w, p.line(true))
}

// line formats the current state: "label [####......] 40% 4.0 MB/10 MB".
func (p *Bar) line(final bool) string {
	var b strings.Builder
	b.WriteString(p.label)
	b.WriteString(": ")
	if p.total > 0 {
		f := min(max(float64(p.n)/float64(p.total), 0), 1)
		if p.tty && !final {
			const width = 20
			k := int(f * width)
			b.WriteString("[" + strings.Repeat("#", k) + strings.Repeat(".", width-k) + "] ")
		}
		pct := "%.0f%%"
		if p.tty {
			pct = "%3.0f%%" // a fixed width keeps the redrawn line steady
		}
		fmt.Fprintf(&b, pct+" %s/%s", 100*f, p.count(p.n), p.count(p.total))
	} else {
		b.WriteString(p.count(p.n))
	}
	if p.unit != "" {
		b.WriteString(" " + p.unit)
		if el := p.now().Sub(p.start).Seconds(); !final && el > 0 && p.n > p.first {
			rate := float64(p.n-p.first) / el
			fmt.Fprintf(&b, " %.3g %s/s", rate, p.unit)
			if p.total > 0 {
				eta := time.Duration(float64(p.total-p.n) / rate * 1e9)
				if p.eta != nil {
					eta = p.eta()
				}
				fmt.Fprintf(&b, " ETA %s", eta.Round(time.Second))
			}
		}
	}
	if final {
		fmt.Fprintf(&b, " in %.1fs", p.now().Sub(p.start).Seconds())
	}
	return b.String()
}

// count formats n as a plain number or, for byte counts, in SI units.
func (p *Bar) count(n int64) string {
	if !p.asBytes {
		return fmt.Sprint(n)
	}
	return ByteCount(n)
}

// ByteCount formats a size in bytes with SI units: "9.7 MB".
func ByteCount(n int64) string {
	switch f := float64(n); {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000_000:
		return fmt.Sprintf("%.1f kB", f/1e3)
	case n < 1000_000_000:
		return fmt.Sprintf("%.1f MB", f/1e6)
	default:
		return fmt.Sprintf("%.2f GB", f/1e9)
	}
}

// Status is a one-line status of a running job (a training step and its
// losses): redrawn in place on a terminal with the elapsed time, one line
// per update in a log.
type Status struct {
	w     io.Writer
	tty   bool
	start time.Time
	drawn bool
}

// NewStatus starts a status line on w; tty says w is a terminal.
func NewStatus(w io.Writer, tty bool) *Status {
	return &Status{w: w, tty: tty, start: time.Now()}
}

// Update shows line.
func (s *Status) Update(line string) {
	if s.tty {
		s.drawn = true
		fmt.Fprintf(s.w, "\r%s (%.0fs)\x1b[K", line, time.Since(s.start).Seconds())
		return
	}
	fmt.Fprintln(s.w, line)
}

// End ends the line on a terminal, so that later output starts on its own.
func (s *Status) End() {
	if s.tty && s.drawn {
		fmt.Fprintln(s.w)
		s.drawn = false
	}
}
