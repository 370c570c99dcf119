package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/cmd/internal/present/plot"
)

func chart(name string, y ...float64) *plot.Chart {
	x := make([]float64, len(y))
	for i := range x {
		x[i] = float64(i + 1)
	}
	return &plot.Chart{X: plot.Axis{Label: "t", Scale: plot.ScaleLog10}, Y: plot.Axis{Label: "loss"},
		Series: []plot.Series{{Name: name, X: x, Y: y}}}
}

func sample() *Report {
	fig := &plot.Figure{Panels: []plot.Panel{
		{Caption: "train <outputs>", Chart: chart("NN & SVM", 1, 0.5, 0.2)},
		{Caption: "test", Chart: chart("SVM", 1, 0.6, 0.3)},
	}}
	single := chart("one", 3, 2, 1)
	return &Report{
		Title: "Equivalence of NN & SVM <run 1>",
		Sections: []Section{
			{Title: "Summary", Blocks: []Block{
				Paragraph("Trained for 10_000 steps; *not* a [link] | pipe.\nSecond line."),
				&Table{Caption: "Accuracy", Header: []string{"model", "train", "test"}, Rows: [][]string{
					{"NN", "0.99", "0.951"},
					{"SVM | NTK", "1.00", "−0.5"},
					{"partial"},
				}},
			}},
			{Title: "Figures", Blocks: []Block{
				&Figure{Name: "fig1", Caption: "Outputs & loss", Render: fig.WriteSVG},
				Paragraph("Between the figures."),
				&Figure{Name: "loss.single", Caption: "One chart", Render: func(w io.Writer) error {
					return single.WriteSVG(w, 300, 200)
				}},
			}},
		},
	}
}

// xmlNode is an element of a parsed document.
type xmlNode struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Text     string     `xml:",chardata"`
	Children []xmlNode  `xml:",any"`
}

func (n *xmlNode) find(local string) []*xmlNode {
	var out []*xmlNode
	if n.XMLName.Local == local {
		out = append(out, n)
	}
	for i := range n.Children {
		out = append(out, n.Children[i].find(local)...)
	}
	return out
}

func parseXML(t *testing.T, b []byte) *xmlNode {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	var root xmlNode
	if err := d.Decode(&root); err != nil {
		t.Fatalf("not well-formed: %v", err)
	}
	return &root
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	if err := sample().Write(dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}

	// Every SVG that report.md links exists and is a well-formed SVG.
	links := regexp.MustCompile(`\]\(([^)]+\.svg)\)`).FindAllSubmatch(md, -1)
	if len(links) != 2 {
		t.Fatalf("%d SVG links in report.md, want 2:\n%s", len(links), md)
	}
	for _, l := range links {
		b, err := os.ReadFile(filepath.Join(dir, string(l[1])))
		if err != nil {
			t.Fatalf("linked figure: %v", err)
		}
		if root := parseXML(t, b); root.XMLName.Local != "svg" {
			t.Errorf("%s: root %v", l[1], root.XMLName)
		}
	}
	// No temporary files left.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		t.Errorf("%d files in the output directory, want 4", len(entries))
	}

	// The page is well-formed XML, holds both SVGs inline and loads
	// nothing from outside.
	root := parseXML(t, page)
	svgs := root.find("svg")
	if len(svgs) != 2 {
		t.Fatalf("%d inline SVGs, want 2", len(svgs))
	}
	for _, s := range svgs {
		if s.XMLName.Space != "http://www.w3.org/2000/svg" {
			t.Errorf("inline svg in namespace %q", s.XMLName.Space)
		}
	}
	for _, bad := range []string{"http://", "https://", "src=", "<link", "<script", "@import"} {
		if i := bytes.Index(page, []byte(bad)); i >= 0 && !strings.Contains(string(page[max(0, i-7):i+len(bad)]), `xmlns="`) {
			t.Errorf("page refers outside: %q", page[max(0, i-20):min(len(page), i+40)])
		}
	}
	text := func(local string) []string {
		var out []string
		for _, n := range root.find(local) {
			out = append(out, n.Text)
		}
		return out
	}
	if h := text("h1"); len(h) != 1 || h[0] != "Equivalence of NN & SVM <run 1>" {
		t.Errorf("h1 = %q", h)
	}
	if tds := text("td"); strings.Join(tds, ",") != "NN,0.99,0.951,SVM | NTK,1.00,−0.5,partial,," {
		t.Errorf("cells = %q", tds)
	}
	if n := len(root.find("figcaption")); n != 2 {
		t.Errorf("%d figcaptions", n)
	}

	// Markdown: escaped text, numbered tables and figures, alignment.
	for _, want := range []string{
		`# Equivalence of NN \& SVM \<run 1\>`,
		`Trained for 10\_000 steps; \*not\* a \[link\] \| pipe. Second line.`,
		"**Table 1.** Accuracy",
		"| model | train | test |\n| --- | ---: | ---: |",
		`| SVM \| NTK | 1.00 | −0.5 |`,
		"| partial |  |  |",
		"![Figure 1. Outputs \\& loss](fig1.svg)",
		"*Figure 2.* One chart",
	} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}

func TestDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if err := sample().WriteHTML(&a); err != nil {
		t.Fatal(err)
	}
	if err := sample().WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two renderings differ")
	}
}

func TestErrorsWriteNothing(t *testing.T) {
	fail := errors.New("boom")
	for _, tc := range []struct {
		name  string
		block Block
		want  string
	}{
		{"bad name", &Figure{Name: "../x", Render: func(io.Writer) error { return nil }}, "plain file name"},
		{"no render", &Figure{Name: "x"}, "no Render"},
		{"render fails", &Figure{Name: "x", Render: func(io.Writer) error { return fail }}, "boom"},
		{"not svg", &Figure{Name: "x", Render: func(w io.Writer) error { _, err := w.Write([]byte("hello")); return err }}, "not an SVG"},
		{"long row", &Table{Header: []string{"a"}, Rows: [][]string{{"1", "2"}}}, "2 cells for 1 columns"},
		{"no header", &Table{}, "without a header"},
		{"nil", nil, "nil block"},
		{"duplicate", &Figure{Name: "fig1", Render: func(io.Writer) error { return nil }}, "two figures"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := sample()
			r.Sections = append(r.Sections, Section{Blocks: []Block{tc.block}})
			dir := t.TempDir()
			err := r.Write(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("%d files written despite the error", len(entries))
			}
		})
	}
	if err := sample().Write(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing directory: no error")
	}
}

func TestStripProlog(t *testing.T) {
	in := "<?xml version=\"1.0\"?>\n<!-- made by hand -->\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"x\">\n<svg/>"
	if got := string(stripProlog([]byte(in))); got != "<svg/>" {
		t.Errorf("stripProlog = %q", got)
	}
}

func TestMarkdownEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain text":    "plain text",
		"- not a list":  `\- not a list`,
		"1. not a list": `1\. not a list`,
		"10) no":        `10\) no`,
		"a-b 2.5":       "a-b 2.5",
		"# no heading":  `\# no heading`,
		"x\ny":          "x y",
	} {
		if got := mdEscape(in); got != want {
			t.Errorf("mdEscape(%q) = %q, want %q", in, got, want)
		}
	}
}

// A report of one section with a table and a figure, written to a directory.
func ExampleReport_Write() {
	c := &plot.Chart{Series: []plot.Series{{Name: "loss", X: []float64{1, 2, 3}, Y: []float64{3, 2, 1}}}}
	r := &Report{
		Title: "Run 1",
		Sections: []Section{{Title: "Results", Blocks: []Block{
			Paragraph("The network and its SVM agree."),
			&Table{Caption: "Accuracy", Header: []string{"model", "test"}, Rows: [][]string{{"NN", "0.95"}, {"SVM", "0.95"}}},
			&Figure{Name: "loss", Caption: "Hinge loss", Render: func(w io.Writer) error { return c.WriteSVG(w, 0, 0) }},
		}}},
	}
	dir, err := os.MkdirTemp("", "report")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if err := r.Write(dir); err != nil {
		panic(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, MarkdownFile))
	os.Stdout.Write(md)
	// Output:
	// # Run 1
	//
	// ## Results
	//
	// The network and its SVM agree.
	//
	// **Table 1.** Accuracy
	//
	// | model | test |
	// | --- | ---: |
	// | NN | 0.95 |
	// | SVM | 0.95 |
	//
	// ![Figure 1. Hinge loss](loss.svg)
	//
	// *Figure 1.* Hinge loss
}

// TestWriteSample writes the sample report to $REPORT_SAMPLE_DIR, to look at.
func TestWriteSample(t *testing.T) {
	dir := os.Getenv("REPORT_SAMPLE_DIR")
	if dir == "" {
		t.Skip("REPORT_SAMPLE_DIR not set")
	}
	if err := sample().Write(dir); err != nil {
		t.Fatal(err)
	}
}
