package report

import (
	"bufio"
	"bytes"
	"html"
	"io"
	"strconv"
)

// style is the page's whole CSS: readable widths, tables with rules,
// figures scaled to the column.
const style = `body{margin:0;background:#fff;color:#222;font:16px/1.5 "DejaVu Sans",Helvetica,Arial,sans-serif}
main{max-width:1000px;margin:0 auto;padding:1em 1.5em 3em}
h1{font-size:1.7em;margin:.6em 0 .4em}
h2{font-size:1.3em;margin:1.6em 0 .5em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.9em}
caption{caption-side:top;text-align:left;padding:.3em 0}
th,td{border-bottom:1px solid #ddd;padding:.25em .8em;text-align:left}
th{border-bottom:2px solid #999}
.num{text-align:right;font-variant-numeric:tabular-nums}
figure{margin:1em 0 2em}
figure svg{display:block;max-width:100%;height:auto}
figcaption{font-size:.9em;color:#444;margin-top:.4em}`

// stripProlog removes an XML declaration, a doctype and comments before
// the root element of an SVG document, which HTML does not want inline.
func stripProlog(svg []byte) []byte {
	for {
		svg = bytes.TrimSpace(svg)
		var end string
		switch {
		case bytes.HasPrefix(svg, []byte("<?")):
			end = "?>"
		case bytes.HasPrefix(svg, []byte("<!--")):
			end = "-->"
		case bytes.HasPrefix(svg, []byte("<!")):
			end = ">"
		default:
			return svg
		}
		i := bytes.Index(svg, []byte(end))
		if i < 0 {
			return svg
		}
		svg = svg[i+len(end):]
	}
}

// html writes the page. It is also well-formed XML, so that tests and
// other tools can parse it with an XML parser.
func (r *Report) html(w io.Writer, svgs map[string][]byte) error {
	bw := bufio.NewWriter(w)
	e := html.EscapeString
	s := bw.WriteString
	title := r.Title
	if title == "" {
		title = "Report"
	}
	s("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
	s("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
	s("<title>" + e(oneLine(title)) + "</title>\n<style>\n" + style + "\n</style>\n</head>\n<body>\n<main>\n")
	if r.Title != "" {
		s("<h1>" + e(oneLine(r.Title)) + "</h1>\n")
	}
	nt, nf := 0, 0
	for _, sec := range r.Sections {
		s("<section>\n")
		if sec.Title != "" {
			s("<h2>" + e(oneLine(sec.Title)) + "</h2>\n")
		}
		for _, b := range sec.Blocks {
			switch b := b.(type) {
			case Paragraph:
				s("<p>" + e(oneLine(string(b))) + "</p>\n")
			case *Table:
				nt++
				s("<table>\n<caption><b>Table " + strconv.Itoa(nt) + ".</b> " + e(oneLine(b.Caption)) + "</caption>\n<thead><tr>")
				num := make([]bool, len(b.Header))
				for c, h := range b.Header {
					num[c] = numeric(b, c)
					if num[c] {
						s(`<th class="num">`)
					} else {
						s("<th>")
					}
					s(e(oneLine(h)) + "</th>")
				}
				s("</tr></thead>\n<tbody>\n")
				for _, row := range b.Rows {
					s("<tr>")
					for c := range b.Header {
						if num[c] {
							s(`<td class="num">`)
						} else {
							s("<td>")
						}
						s(e(oneLine(cell(row, c))) + "</td>")
					}
					s("</tr>\n")
				}
				s("</tbody>\n</table>\n")
			case *Figure:
				nf++
				s("<figure id=\"" + e(b.Name) + "\">\n")
				bw.Write(stripProlog(svgs[b.Name]))
				s("\n<figcaption><b>Figure " + strconv.Itoa(nf) + ".</b> " + e(oneLine(b.Caption)) + "</figcaption>\n</figure>\n")
			}
		}
		s("</section>\n")
	}
	s("</main>\n</body>\n</html>\n")
	return bw.Flush()
}
