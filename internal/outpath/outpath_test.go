package outpath

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	x := filepath.Join(dir, "X.npy")
	os.WriteFile(x, []byte("data"), 0o644)
	hard := filepath.Join(dir, "hard.npy")
	os.Link(x, hard)
	link := filepath.Join(dir, "link.npy")
	os.Symlink("X.npy", link)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	in := []Path{{"--data", x}, {"--test", filepath.Join(dir, "missing.npy")}}
	for _, tc := range []struct {
		name string
		outs []Path
		want string // "" for no error
		same bool
	}{
		{"new names", []Path{{"--out", filepath.Join(dir, "m")}, {"--log", filepath.Join(dir, "log.csv")}}, "", false},
		{"unset outputs", []Path{{"--out", filepath.Join(dir, "m")}, {"--log", ""}}, "", false},
		{"output is the input", []Path{{"--out", x}}, "--out " + x + " is the same file as the input --data " + x, true},
		{"another spelling", []Path{{"--out", filepath.Join(sub, "..", "X.npy")}}, "same file as the input --data", true},
		{"hard link", []Path{{"--out", hard}}, "same file as the input --data", true},
		{"symbolic link", []Path{{"--out", link}}, "same file as the input --data", true},
		{"two outputs, one new name", []Path{{"--out", filepath.Join(dir, "m")}, {"--log", filepath.Join(sub, "..", "m")}},
			"--log " + filepath.Join(sub, "..", "m") + " is the same file as --out", true},
		{"a device", []Path{{"--out", "/dev/null"}}, "--out: /dev/null is a character device", false},
		{"a directory", []Path{{"--out", sub}}, "is a directory", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.outs, in)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			if errors.Is(err, ErrSame) != tc.same {
				t.Errorf("errors.Is(err, ErrSame) = %v", !tc.same)
			}
		})
	}
	if b, _ := os.ReadFile(x); string(b) != "data" {
		t.Error("Check changed the input")
	}
}
