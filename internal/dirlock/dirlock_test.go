//go:build unix

package dirlock

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestLock(t *testing.T) {
	dir := t.TempDir()
	release, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(dir)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("second Lock: %v", err)
	}
	release()
	release2, err := Lock(dir)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	release2()
	if _, err := Lock(dir + "/missing"); err == nil {
		t.Error("Lock of a missing directory succeeded")
	}
}
