package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// binaryCmd returns the test binary set up to run as "ntksvm args…" in a
// process of its own (see TestMain); prefix, if any, is a command (e.g.
// "sh -c …" or "unshare …") that ends by exec'ing "$0".
func binaryCmd(args []string, prefix ...string) *exec.Cmd {
	var cmd *exec.Cmd
	if len(prefix) > 0 {
		cmd = exec.Command(prefix[0], append(prefix[1:], os.Args[0])...)
	} else {
		cmd = exec.Command(os.Args[0])
	}
	cmd.Env = append(os.Environ(), "NTKSVM_TEST_ARGS="+strings.Join(args, "\n"))
	return cmd
}

// runBinary runs "ntksvm args…" as a process (the built command, through
// TestMain) and returns its exit code and outputs.
func runBinary(t *testing.T, args []string, prefix ...string) (code int, stdout, stderr string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts processes")
	}
	cmd := binaryCmd(args, prefix...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("running %v: %v", args, err)
		}
	}
	return cmd.ProcessState.ExitCode(), o.String(), e.String()
}

// binaryRefusal is a command line the built command must refuse with code,
// printing want.
type binaryRefusal struct {
	name string
	args []string
	code int
	want string
}

// checkBinaryRefusals runs each refusal as a process.
func checkBinaryRefusals(t *testing.T, refusals []binaryRefusal) {
	t.Helper()
	for _, r := range refusals {
		code, _, stderr := runBinary(t, r.args)
		if code != r.code || !strings.Contains(stderr, r.want) {
			t.Errorf("%s: %v: exit %d, stderr %q; want exit %d mentioning %q", r.name, r.args, code, stderr, r.code, r.want)
		}
	}
}
