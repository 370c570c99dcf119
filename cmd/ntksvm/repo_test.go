package main

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment/reproduce"
)

// docPage is one page of the documentation: README.md or a page of docs/.
type docPage struct {
	name string // slash-separated path from the repository root
	text string
}

// readDocs reads README.md and every docs/*.md page.
func readDocs(t *testing.T) []docPage {
	t.Helper()
	names, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("no pages in docs/")
	}
	names = append([]string{"../../README.md"}, names...)
	pages := make([]docPage, len(names))
	for i, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		pages[i] = docPage{strings.TrimPrefix(filepath.ToSlash(n), "../../"), string(b)}
	}
	return pages
}

// TestReadmeLength: the front page stays a front page.
func TestReadmeLength(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > 200 {
		t.Errorf("README.md has %d lines, want at most 200: move details to docs/", n)
	}
}

// TestReadmeOutputsIgnored: every file the commands of README.md and docs/
// write in the repository root (--out, --log, --export-libsvm) matches a
// .gitignore pattern, so that trying them leaves a clean tree.
func TestReadmeOutputsIgnored(t *testing.T) {
	ignore, err := os.ReadFile("../../.gitignore")
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, l := range strings.Split(string(ignore), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "!") {
			// "/dir/" covers an output directory of that name.
			patterns = append(patterns, strings.TrimSuffix(strings.TrimPrefix(l, "/"), "/"))
		}
	}
	outFlag := regexp.MustCompile(`--(?:out|log|export-libsvm)[ =]([^\s` + "`" + `|]+)`)
	found := 0
	for _, p := range readDocs(t) {
		outs := outFlag.FindAllStringSubmatch(p.text, -1)
		found += len(outs)
		for _, m := range outs {
			name := m[1]
			if strings.ContainsAny(name, "/") || strings.HasPrefix(name, "-") || strings.ToUpper(name) == name {
				continue // a directory, a flag or a placeholder such as FILE
			}
			ok := false
			for _, pat := range patterns {
				if match, _ := filepath.Match(pat, name); match {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s writes %s, which .gitignore does not cover", p.name, name)
			}
		}
	}
	if found == 0 {
		t.Fatal("no output files found in the README or docs/")
	}
}

// TestReadmeFigures: every image README.md and docs/ show exists in the
// repository and is an SVG document that parses as XML.
func TestReadmeFigures(t *testing.T) {
	img := regexp.MustCompile(`!\[[^\]]*\]\(([^)\s]+)\)`)
	n := 0
	for _, p := range readDocs(t) {
		for _, m := range img.FindAllStringSubmatch(p.text, -1) {
			n++
			f := path.Join(path.Dir(p.name), m[1])
			b, err := os.ReadFile(filepath.Join("../..", filepath.FromSlash(f)))
			if err != nil {
				t.Errorf("%s: figure: %v", p.name, err)
			} else if err := reproduce.CheckSVG(b); err != nil {
				t.Errorf("%s: figure %s: %v", p.name, m[1], err)
			}
		}
	}
	if n < 2 {
		t.Fatalf("README.md and docs/ show %d figures, want at least two", n)
	}
}

// TestReadmeLinks: every relative link of README.md and docs/ names a file
// of the repository and, with #anchor, a heading of that page (GitHub's
// anchors: lower case, punctuation dropped, spaces as hyphens).
func TestReadmeLinks(t *testing.T) {
	pages := readDocs(t)
	anchors := map[string]map[string]bool{}
	heading := regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
	for _, p := range pages {
		a := map[string]bool{}
		for _, m := range heading.FindAllStringSubmatch(stripFences(p.text), -1) {
			a[slug(m[1])] = true
		}
		anchors[p.name] = a
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, p := range pages {
		for _, m := range link.FindAllStringSubmatch(stripFences(p.text), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			f := p.name
			if file != "" {
				f = path.Join(path.Dir(p.name), file)
				if _, err := os.Stat(filepath.Join("../..", filepath.FromSlash(f))); err != nil {
					t.Errorf("%s: link %s: %v", p.name, target, err)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			a, ok := anchors[f]
			if !ok {
				t.Errorf("%s: link %s: an anchor into a page that is not README.md or docs/*.md", p.name, target)
			} else if !a[anchor] {
				t.Errorf("%s: link %s: %s has no heading with that anchor", p.name, target, f)
			}
		}
	}
}

// TestReadmeCodeRefs: a Go comment that points to a section of docs/
// (`docs/performance.md, "Block sizes"`, possibly across comment lines)
// names a page and a heading that exist.
func TestReadmeCodeRefs(t *testing.T) {
	headings := map[string]map[string]bool{}
	heading := regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
	for _, p := range readDocs(t) {
		h := map[string]bool{}
		for _, m := range heading.FindAllStringSubmatch(stripFences(p.text), -1) {
			h[m[1]] = true
		}
		headings[p.name] = h
	}
	ref := regexp.MustCompile(`(docs/[\w.-]+\.md), "([^"]+)"`)
	lead := regexp.MustCompile(`\n\s*//\s*`)
	n := 0
	err := filepath.WalkDir("../..", func(name string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && name != "../..") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") {
			return nil
		}
		b, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		text := lead.ReplaceAllString(string(b), " ") // comment lines joined
		for _, m := range ref.FindAllStringSubmatch(text, -1) {
			n++
			if h, ok := headings[m[1]]; !ok {
				t.Errorf("%s: refers to %s, which is not a page of docs/", name, m[1])
			} else if !h[m[2]] {
				t.Errorf("%s: refers to %s, %q: no such heading", name, m[1], m[2])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Error("no Go comment refers to a section of docs/")
	}
}

// stripFences removes fenced code blocks, whose lines are neither headings
// nor links.
func stripFences(s string) string {
	var b strings.Builder
	in := false
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(l, "```") {
			in = !in
			continue
		}
		if !in {
			b.WriteString(l)
		}
	}
	return b.String()
}

// slug is GitHub's anchor of a heading.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) || unicode.Is(unicode.M, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestMakeUnitListsSkips: "make unit" names the tests that skipped for
// want of $NTKSVM_MNIST_DIR.
func TestMakeUnitListsSkips(t *testing.T) {
	if testing.Short() {
		t.Skip("runs make")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	bin := t.TempDir()
	cmd := exec.Command("make", "-s", "unit", "PKGS=./svm/dataset", "BIN="+bin)
	cmd.Dir = "../.."
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NTKSVM_MNIST_DIR=") && !strings.HasPrefix(kv, "CI=") && !strings.HasPrefix(kv, "MAKEFLAGS=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "skipped for want of NTKSVM_MNIST_DIR") || !strings.Contains(string(out), "TestRealMNIST") {
		t.Errorf("make unit: %v\n%s", err, out)
	}
}
