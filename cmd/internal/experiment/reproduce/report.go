package reproduce

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ntksvm/ntksvm/cmd/internal/present/report"
	"github.com/ntksvm/ntksvm/internal/atomicfile"
)

// ResultsFile is the name of the machine-readable summary in DIR.
const ResultsFile = "results.json"

// FormatLike formats v in the style of the paper's number paper (as
// printed): the same exponent, one digit more than the paper prints, and
// integers as integers when both are.
func FormatLike(paper string, v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	t := strings.TrimSpace(paper)
	mant, exp := t, ""
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		mant, exp = t[:i], t[i+1:]
	}
	dec := -1
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		dec = len(mant) - i - 1
	}
	if exp != "" {
		e, err := strconv.Atoi(exp)
		if err != nil {
			return strconv.FormatFloat(v, 'g', 5, 64)
		}
		return strconv.FormatFloat(v/math.Pow(10, float64(e)), 'f', max(dec, 0)+1, 64) + "e" + exp
	}
	if dec < 0 && v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', max(dec, 0)+1, 64)
}

// FormatDiff formats ours − paper like the paper's number, with the
// relative difference when the paper's number is not 0.
func FormatDiff(paper string, d float64) string {
	if math.IsNaN(d) {
		return "—"
	}
	s := FormatLike(paper, d)
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	if p, _, err := ParsePaper(paper); err == nil && p != 0 {
		s += fmt.Sprintf(" (%+.2g %%)", 100*d/math.Abs(p))
	}
	return s
}

// VerdictText is the verdict as the summary prints it, with the row's
// reason for anything but a match.
func VerdictText(r Row) string {
	if r.Verdict == Match || r.Reason == "" {
		if r.Verdict == Differs {
			return string(r.Verdict) + " (no known reason)"
		}
		return string(r.Verdict)
	}
	return string(r.Verdict) + ": " + r.Reason
}

// summaryHeader is the header of the summary table (stdout and report).
var summaryHeader = []string{"experiment", "quantity", "paper", "ours", "difference", "tolerance", "verdict", "scale"}

// summaryRows returns the summary table's cells for every row of every
// result; short cuts each reason at its first clause (for a terminal).
func summaryRows(run *Run, short bool) [][]string {
	var rows [][]string
	for _, r := range run.Results {
		for _, row := range r.Rows {
			scale := "paper's"
			if row.Reduction != "" {
				scale = row.Reduction
			}
			if short {
				row.Reason, _, _ = strings.Cut(row.Reason, ";")
			}
			rows = append(rows, []string{r.Name, row.Quantity, row.Paper, FormatLike(row.Paper, row.Ours),
				FormatDiff(row.Paper, row.Diff), row.Tol.String(), VerdictText(row), scale})
		}
	}
	return rows
}

// WriteSummary prints the summary table in aligned columns, then the
// wall time of each experiment and any failures.
func WriteSummary(w io.Writer, run *Run) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(summaryHeader, "\t"))
	for _, cells := range summaryRows(run, true) {
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range run.Results {
		fmt.Fprintf(w, "%s: %s\n", r.Name, fmtDuration(r.Wall))
	}
	names := make([]string, 0, len(run.Failed))
	for n := range run.Failed {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "%s: FAILED: %s\n", n, run.Failed[n])
	}
	for _, u := range run.Unfinished {
		fmt.Fprintf(w, "%s: not finished (%s)\n", u.Name, u.State)
	}
	_, err := fmt.Fprintf(w, "total wall time %s (%s scale)\n", fmtDuration(run.Wall), run.Scale)
	return err
}

// fmtDuration formats seconds as "1m23s" or "4.2s".
func fmtDuration(s float64) string {
	d := time.Duration(s * float64(time.Second))
	if d >= time.Minute {
		return d.Round(time.Second).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

// Report returns the report of run: a header (machine, kernels, threads,
// version, wall times), the summary table, then one section per experiment
// with its table, figures and notes. Figure names are <experiment>-<figure>.
func (run *Run) Report() *report.Report {
	m := run.Machine
	wall := "wall time of this run"
	if len(run.Unfinished) > 0 {
		wall += " up to this report" // written as each experiment starts and ends
	}
	head := []report.Block{
		report.Paragraph(fmt.Sprintf("Chen, Huang, Nguyen, Weng, \"On the Equivalence between Neural Network and Support Vector Machine\", NeurIPS 2021: every experiment at %s scale, the paper's number beside ours.", run.Scale)),
		&report.Table{Caption: "Machine and run", Header: []string{"", ""}, Rows: [][]string{
			{"CPU", m.CPU}, {"architecture", fmt.Sprintf("%s, %d logical CPUs", m.Arch, m.CPUs)},
			{"threads", strconv.Itoa(m.Threads)}, {"kernel set", m.Kernels}, {"ntksvm version", m.Version},
			{"Go", m.Go}, {"started", run.Started.Format("2006-01-02 15:04:05 UTC")},
			{wall, fmtDuration(run.Wall)}, {"resumed from an earlier run", nonEmpty(strings.Join(run.Resumed, ", "), "none")},
		}},
		&report.Table{Caption: "Summary: the paper's numbers and ours (the reasons in full are in each experiment's table)", Header: summaryHeader, Rows: displayRows(summaryRows(run, true))},
	}
	if len(run.Unfinished) > 0 {
		var rows [][]string
		for _, u := range run.Unfinished {
			where := u.Name + "/"
			if u.State == "waiting" {
				where = "—"
			}
			rows = append(rows, []string{u.Name, u.State, where})
		}
		head = append(head, &report.Table{Caption: "Not in this report yet (ntksvm reproduce --resume continues an interrupted experiment from its checkpoints)",
			Header: []string{"experiment", "state", "outputs so far"}, Rows: rows})
	}
	rep := &report.Report{Title: "ntksvm reproduce", Sections: []report.Section{{Title: "Run", Blocks: head}}}
	for _, r := range run.Results {
		rep.Sections = append(rep.Sections, resultSection(r))
	}
	if len(run.Failed) > 0 {
		var rows [][]string
		for n, e := range run.Failed {
			rows = append(rows, []string{n, e})
		}
		sort.Slice(rows, func(i, j int) bool { return rows[i][0] < rows[j][0] })
		rep.Sections = append(rep.Sections, report.Section{Title: "Failed experiments", Blocks: []report.Block{
			&report.Table{Caption: "Experiments that stopped with an error", Header: []string{"experiment", "error"}, Rows: rows}}})
	}
	return rep
}

// resultSection is one experiment's part of the report.
func resultSection(r *Result) report.Section {
	var rows [][]string
	for _, row := range r.Rows {
		rows = append(rows, displayCells([]string{row.Quantity, row.Paper, FormatLike(row.Paper, row.Ours), FormatDiff(row.Paper, row.Diff),
			row.Tol.String(), VerdictText(row), row.Reduction}, 1, 2, 3))
	}
	bl := []report.Block{
		report.Paragraph("The paper: " + r.Paper),
		report.Paragraph(fmt.Sprintf("Run at %s scale in %s (finished %s).", r.Scale, fmtDuration(r.Wall), r.Finished.Format("2006-01-02 15:04:05 UTC"))),
	}
	if len(rows) > 0 {
		bl = append(bl, &report.Table{Caption: r.Title,
			Header: []string{"quantity", "paper", "ours", "difference", "tolerance", "verdict", "reduction at this scale"}, Rows: rows})
	}
	if len(r.Reductions) > 0 {
		bl = append(bl, report.Paragraph("Reductions at this scale: "+strings.Join(r.Reductions, "; ")+"."))
	}
	for _, n := range r.Notes {
		bl = append(bl, report.Paragraph(n))
	}
	for _, f := range r.Figures {
		svg := f.SVG
		bl = append(bl, &report.Figure{Name: r.Name + "-" + f.Name, Caption: f.Caption,
			Render: func(w io.Writer) error { _, err := w.Write(svg); return err }})
	}
	return report.Section{Title: r.Name + ": " + r.Title, Blocks: bl}
}

// nonEmpty returns s, or alt if s is empty.
func nonEmpty(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// displayNumber writes the minus signs of a number as U+2212, which a
// browser does not break a line after ("7.9733e−3" stays on one line).
func displayNumber(s string) string {
	s = strings.ReplaceAll(s, "e-", "e−")
	if strings.HasPrefix(s, "-") {
		s = "−" + s[1:]
	}
	return strings.ReplaceAll(s, "(-", "(−")
}

// displayCells applies displayNumber to the cells at the given columns.
func displayCells(cells []string, cols ...int) []string {
	for _, c := range cols {
		cells[c] = displayNumber(cells[c])
	}
	return cells
}

// displayRows applies displayNumber to the number columns of the summary
// table (paper, ours, difference).
func displayRows(rows [][]string) [][]string {
	for _, r := range rows {
		displayCells(r, 2, 3, 4)
	}
	return rows
}

// WriteReport writes report.md, report.html (with the figures beside
// report.md) and results.json into dir, each atomically.
func WriteReport(dir string, run *Run) error {
	if err := run.Report().Write(dir); err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(run); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, ResultsFile), func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}

// ReadRun reads a results.json written by WriteReport (without figures).
func ReadRun(r io.Reader) (*Run, error) {
	var run Run
	if err := json.NewDecoder(r).Decode(&run); err != nil {
		return nil, err
	}
	return &run, nil
}
