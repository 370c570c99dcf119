package main

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"
)

// runCLI runs the command line args as "ntksvm" would and returns its exit
// code and outputs.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = runMain(context.Background(), &env{stdout: &o, stderr: &e}, args)
	return code, o.String(), e.String()
}

// cliRefusal is a command line's arguments that a command must refuse: the
// exit code it must give and a part of its error message.
type cliRefusal struct {
	args []string
	code int
	want string
}

// checkRefusals runs cmd followed by each refusal's arguments and checks
// the exit code and that the error output contains the expected message.
func checkRefusals(t *testing.T, cmd []string, refusals []cliRefusal) {
	t.Helper()
	for _, r := range refusals {
		code, _, stderr := runCLI(t, append(slices.Clone(cmd), r.args...)...)
		if code != r.code || !strings.Contains(stderr, r.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", r.args, code, stderr, r.code, r.want)
		}
	}
}

// checkNoOutput fails t if path exists: a command that failed must leave
// no output behind.
func checkNoOutput(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a failed run left %s behind", path)
	}
}
