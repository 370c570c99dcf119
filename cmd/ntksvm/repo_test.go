package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment/reproduce"
)

// TestReadmeOutputsIgnored: every file the README's commands write in the
// repository root (--out, --log, --export-libsvm) matches a .gitignore
// pattern, so that trying them leaves a clean tree.
func TestReadmeOutputsIgnored(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
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
	outs := regexp.MustCompile(`--(?:out|log|export-libsvm)[ =]([^\s`+"`"+`|]+)`).FindAllStringSubmatch(string(readme), -1)
	if len(outs) == 0 {
		t.Fatal("no output files found in the README")
	}
	for _, m := range outs {
		name := m[1]
		if strings.ContainsAny(name, "/") || strings.HasPrefix(name, "-") || strings.ToUpper(name) == name {
			continue // a directory, a flag or a placeholder such as FILE
		}
		ok := false
		for _, p := range patterns {
			if match, _ := filepath.Match(p, name); match {
				ok = true
			}
		}
		if !ok {
			t.Errorf("the README writes %s, which .gitignore does not cover", name)
		}
	}
}

// TestReadmeFigures: every image the README shows exists in the
// repository and is an SVG document that parses as XML.
func TestReadmeFigures(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	imgs := regexp.MustCompile(`!\[[^\]]*\]\(([^)\s]+)\)`).FindAllStringSubmatch(string(readme), -1)
	if len(imgs) < 2 {
		t.Fatalf("the README shows %d figures, want at least two", len(imgs))
	}
	for _, m := range imgs {
		b, err := os.ReadFile(filepath.Join("../..", filepath.FromSlash(m[1])))
		if err != nil {
			t.Errorf("README figure: %v", err)
		} else if err := reproduce.CheckSVG(b); err != nil {
			t.Errorf("README figure %s: %v", m[1], err)
		}
	}
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
	cmd := exec.Command("make", "-s", "unit", "PKGS=./cmd/internal/dataset", "BIN="+bin)
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
