package equiv

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progress reports the steps of a run: on a terminal a bar with the rate
// and the ETA, redrawn in place at most five times a second; otherwise a
// plain line per tenth of the run, or every minute at least. The ETA comes
// from the eta function when set, else from the step rate.
type progress struct {
	w            io.Writer
	tty          bool
	label        string
	n, total     int
	first        int // the step count at the start (a resumed run)
	start, drawn time.Time
	logged       int
	now          func() time.Time
	done         bool
	// eta, if set, estimates the time left (the evaluations of a run are
	// log-spaced, so the step rate early on says little about the rest).
	eta func() time.Duration
}

func newProgress(w io.Writer, tty bool, label string, done, total int, now func() time.Time) *progress {
	p := &progress{w: w, tty: tty, label: label, n: done, first: done, total: total, now: now}
	p.start = now()
	p.drawn = p.start
	p.logged = 10 * done / max(total, 1)
	return p
}

// Add records k more steps.
func (p *progress) Add(k int) {
	p.n += k
	t := p.now()
	if p.tty {
		if t.Sub(p.drawn) >= 200*time.Millisecond {
			p.drawn = t
			fmt.Fprintf(p.w, "\r\033[K%s", p.line(t))
		}
		return
	}
	if tenth := 10 * p.n / max(p.total, 1); (tenth > p.logged && tenth < 10) || t.Sub(p.drawn) >= time.Minute {
		p.logged = max(p.logged, tenth)
		p.drawn = t
		fmt.Fprintln(p.w, p.line(t))
	}
}

// Done ends the report with the elapsed time.
func (p *progress) Done() {
	if p.done {
		return
	}
	p.done = true
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, "%s: %d/%d steps in %s\n", p.label, p.n, p.total, roundDur(p.now().Sub(p.start)))
}

// line is "label [#####.....] 50% 500/1000 steps 12.3 steps/s ETA 41s".
func (p *progress) line(t time.Time) string {
	var b strings.Builder
	f := min(max(float64(p.n)/float64(max(p.total, 1)), 0), 1)
	b.WriteString(p.label + " ")
	if p.tty {
		const width = 20
		k := int(f * width)
		b.WriteString("[" + strings.Repeat("#", k) + strings.Repeat(".", width-k) + "] ")
	}
	fmt.Fprintf(&b, "%3.0f%% %d/%d steps", 100*f, p.n, p.total)
	if el := t.Sub(p.start).Seconds(); el > 0 && p.n > p.first {
		rate := float64(p.n-p.first) / el
		eta := time.Duration(float64(p.total-p.n) / rate * 1e9)
		if p.eta != nil {
			eta = p.eta()
		}
		fmt.Fprintf(&b, " %.3g steps/s ETA %s", rate, roundDur(eta))
	}
	return b.String()
}
