package report

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// mdEscape escapes s so that Markdown shows it as plain text on one line.
func mdEscape(s string) string {
	s = oneLine(s)
	var b strings.Builder
	for i, c := range s {
		switch c {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '#', '!', '&', '~':
			b.WriteByte('\\')
		case '-', '+', '=':
			if i == 0 {
				b.WriteByte('\\')
			}
		case '.', ')':
			// "1." or "1)" at the start would begin a list.
			if i > 0 && strings.Trim(s[:i], "0123456789") == "" && (i+1 == len(s) || s[i+1] == ' ') {
				b.WriteByte('\\')
			}
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (r *Report) markdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	p := func(lines ...string) {
		for _, l := range lines {
			bw.WriteString(l)
			bw.WriteByte('\n')
		}
	}
	if r.Title != "" {
		p("# "+mdEscape(r.Title), "")
	}
	nt, nf := 0, 0
	for _, s := range r.Sections {
		if s.Title != "" {
			p("## "+mdEscape(s.Title), "")
		}
		for _, b := range s.Blocks {
			switch b := b.(type) {
			case Paragraph:
				p(mdEscape(string(b)), "")
			case *Table:
				nt++
				p("**Table "+strconv.Itoa(nt)+".** "+mdEscape(b.Caption), "")
				row := func(cells []string) {
					var l strings.Builder
					l.WriteString("|")
					for c := range b.Header {
						l.WriteString(" " + mdEscape(cell(cells, c)) + " |")
					}
					p(l.String())
				}
				row(b.Header)
				var sep strings.Builder
				sep.WriteString("|")
				for c := range b.Header {
					if numeric(b, c) {
						sep.WriteString(" ---: |")
					} else {
						sep.WriteString(" --- |")
					}
				}
				p(sep.String())
				for _, r := range b.Rows {
					row(r)
				}
				p("")
			case *Figure:
				nf++
				label := "Figure " + strconv.Itoa(nf)
				p("!["+mdEscape(label+". "+b.Caption)+"]("+b.Name+".svg)", "")
				p("*"+label+".* "+mdEscape(b.Caption), "")
			}
		}
	}
	return bw.Flush()
}
