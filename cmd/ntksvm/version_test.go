package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionLine(t *testing.T) {
	stamped := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.1.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-11-27T17:50:47Z"},
			{Key: "vcs.modified", Value: "false"}}}
	dirty := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261127175047-b8e247e03b1d+dirty"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "b8e247e"}, {Key: "vcs.modified", Value: "true"}}}
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"release", stamped, "ntksvm v0.1.0, revision abc123, committed 2026-11-27T17:50:47Z, go1.26.8, kernels generic"},
		{"modified tree", dirty, "ntksvm v0.0.0-20261127175047-b8e247e03b1d+dirty, revision b8e247e+modified, go1.26.8, kernels generic"},
		{"no VCS", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			"ntksvm (devel), revision unknown (not built from a VCS checkout), go1.26.8, kernels generic"},
		{"no build info", nil, "ntksvm (unknown), revision unknown (not built from a VCS checkout), kernels generic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionLine(tt.bi, "generic"); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestVersionCommand: "ntksvm version" and "--version" print one line with
// the version and the kernel set; a stray argument is a usage error.
func TestVersionCommand(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 || !strings.HasPrefix(stdout, "ntksvm ") || !strings.Contains(stdout, "kernels ") ||
			strings.Count(stdout, "\n") != 1 || stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "version", "extra"); code != 2 || !strings.Contains(stderr, `unexpected argument "extra"`) {
		t.Errorf("version extra: exit %d, %q", code, stderr)
	}
}

// TestCommandLists: every command and benchmark name is listed once, and
// the default benchmarks exist.
func TestCommandLists(t *testing.T) {
	for _, list := range [][]*command{commands, benchmarks} {
		seen := map[string]bool{}
		for _, c := range list {
			if seen[c.name] || c.run == nil || c.summary == "" {
				t.Errorf("command %q: listed twice, or without a run function or summary", c.name)
			}
			seen[c.name] = true
		}
	}
	for _, n := range defaultBenches {
		if lookup(benchmarks, n) == nil {
			t.Errorf("default benchmark %q is not in benchmarks", n)
		}
	}
}
