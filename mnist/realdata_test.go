package mnist

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealDataDir: unset, the variable is reported as such; set to a
// directory without the files, the error names the variable and the
// directory; set to one holding the four files, there is no error.
func TestRealDataDir(t *testing.T) {
	t.Setenv(EnvDir, "")
	if dir, set, err := RealDataDir(); set || dir != "" || err != nil {
		t.Errorf("unset: %q %v %v", dir, set, err)
	}
	missing := filepath.Join(t.TempDir(), "nowhere")
	t.Setenv(EnvDir, missing)
	dir, set, err := RealDataDir()
	if !set || dir != missing || !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), EnvDir) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing: %q %v %v", dir, set, err)
	}
	full := t.TempDir()
	for _, f := range Files {
		if err := os.WriteFile(filepath.Join(full, f.Name()+".gz"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(EnvDir, full)
	if dir, set, err := RealDataDir(); !set || dir != full || err != nil {
		t.Errorf("present: %q %v %v", dir, set, err)
	}
}
