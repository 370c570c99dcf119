// Package report writes an experiment's report in two forms from one
// description: report.md, Markdown with tables and links to figures saved
// beside it as SVG files, and report.html, one self-contained page with
// the same figures inline and no external resources. It is presentation
// code for the commands.
package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ntksvm/ntksvm/internal/atomicfile"
)

// Report is a titled list of sections.
type Report struct {
	Title    string
	Sections []Section
}

// Section is a titled part of a report; its blocks are written in order.
type Section struct {
	Title  string
	Blocks []Block
}

// Block is the content of a section: a Paragraph, a *Table or a *Figure.
type Block interface{ block() }

// Paragraph is a paragraph of plain text. Characters that Markdown or HTML
// would read as markup are escaped; line breaks are kept as spaces.
type Paragraph string

// Table is a table of text cells, numbered in the report. Columns whose
// non-empty cells are all numbers are right-aligned.
type Table struct {
	Caption string
	Header  []string
	Rows    [][]string // each row at most len(Header) cells; missing cells are empty
}

// Figure is an SVG image, numbered in the report, saved as Name + ".svg"
// beside report.md and inlined into report.html.
type Figure struct {
	// Name is the file name without ".svg": letters, digits, '-', '_'
	// and '.', unique in the report.
	Name    string
	Caption string
	// Render writes the SVG document, such as a plot.Figure's WriteSVG.
	Render func(w io.Writer) error
}

func (Paragraph) block() {}
func (*Table) block()    {}
func (*Figure) block()   {}

// MarkdownFile and HTMLFile are the names Write gives the two forms.
const (
	MarkdownFile = "report.md"
	HTMLFile     = "report.html"
)

// Write writes the report into dir, which must exist: one SVG file per
// figure, then MarkdownFile and HTMLFile, each atomically, so a reader
// sees every file either whole or as it was. It checks the whole report
// before writing anything.
func (r *Report) Write(dir string) error {
	svgs, err := r.render()
	if err != nil {
		return err
	}
	for _, f := range r.figures() {
		svg := svgs[f.Name]
		if err := atomicfile.WriteFile(filepath.Join(dir, f.Name+".svg"), func(w io.Writer) error {
			_, err := w.Write(svg)
			return err
		}); err != nil {
			return err
		}
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, MarkdownFile), func(w io.Writer) error {
		return r.markdown(w)
	}); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, HTMLFile), func(w io.Writer) error {
		return r.html(w, svgs)
	})
}

// WriteMarkdown writes the Markdown form to w, linking each figure as
// Name + ".svg" without writing it.
func (r *Report) WriteMarkdown(w io.Writer) error {
	if err := r.check(); err != nil {
		return err
	}
	return r.markdown(w)
}

// WriteHTML writes the self-contained HTML form to w.
func (r *Report) WriteHTML(w io.Writer) error {
	svgs, err := r.render()
	if err != nil {
		return err
	}
	return r.html(w, svgs)
}

func (r *Report) figures() []*Figure {
	var out []*Figure
	for _, s := range r.Sections {
		for _, b := range s.Blocks {
			if f, ok := b.(*Figure); ok {
				out = append(out, f)
			}
		}
	}
	return out
}

// check reports the first problem of the report's description.
func (r *Report) check() error {
	names := map[string]bool{}
	for i, s := range r.Sections {
		for j, b := range s.Blocks {
			where := fmt.Sprintf("report: section %d (%q) block %d", i+1, s.Title, j+1)
			switch b := b.(type) {
			case nil:
				return errors.New(where + ": nil block")
			case Paragraph:
			case *Table:
				if b == nil {
					return errors.New(where + ": nil table")
				}
				if len(b.Header) == 0 {
					return errors.New(where + ": table without a header")
				}
				for k, row := range b.Rows {
					if len(row) > len(b.Header) {
						return fmt.Errorf("%s: table row %d has %d cells for %d columns", where, k+1, len(row), len(b.Header))
					}
				}
			case *Figure:
				if b == nil {
					return errors.New(where + ": nil figure")
				}
				if !validName(b.Name) {
					return fmt.Errorf("%s: figure name %q is not a plain file name", where, b.Name)
				}
				if names[b.Name] {
					return fmt.Errorf("%s: two figures named %q", where, b.Name)
				}
				names[b.Name] = true
				if b.Render == nil {
					return fmt.Errorf("%s: figure %q has no Render", where, b.Name)
				}
			default:
				return fmt.Errorf("%s: unknown block type %T", where, b)
			}
		}
	}
	return nil
}

func validName(s string) bool {
	if s == "" || s == "." || s == ".." || strings.HasPrefix(s, ".") {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// render checks the report and renders every figure once.
func (r *Report) render() (map[string][]byte, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	svgs := map[string][]byte{}
	for _, f := range r.figures() {
		var buf bytes.Buffer
		if err := f.Render(&buf); err != nil {
			return nil, fmt.Errorf("report: figure %q: %w", f.Name, err)
		}
		b := bytes.TrimSpace(buf.Bytes())
		if !bytes.HasPrefix(b, []byte("<")) {
			return nil, fmt.Errorf("report: figure %q: output is not an SVG document", f.Name)
		}
		svgs[f.Name] = append(b, '\n')
	}
	return svgs, nil
}

// numeric reports whether every non-empty cell of column c is a number
// (and at least one is).
func numeric(t *Table, c int) bool {
	seen := false
	for _, row := range t.Rows {
		if c >= len(row) || strings.TrimSpace(row[c]) == "" {
			continue
		}
		s := strings.TrimSpace(row[c])
		s = strings.TrimSuffix(s, "%")
		s = strings.ReplaceAll(s, "\u2212", "-")
		s = strings.TrimPrefix(s, "±")
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return false
		}
		seen = true
	}
	return seen
}

// cell returns cell c of row, or "".
func cell(row []string, c int) string {
	if c < len(row) {
		return row[c]
	}
	return ""
}

// oneLine joins the lines of s with spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
