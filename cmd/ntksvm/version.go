package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/ntksvm/ntksvm/asm"
)

// The version scheme: releases are tags vMAJOR.MINOR.PATCH of the module
// (semantic versioning); a build from a clone between tags reports the Go
// command's pseudo-version of its commit, or "(devel)". "ntksvm version"
// prints that version, the VCS revision and time the binary was built from
// (with "+modified" for a tree with uncommitted changes), the Go version
// and the SIMD kernel set in use.

// runVersion runs "ntksvm version" (also "ntksvm --version").
func runVersion(_ context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "version", "")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	bi, _ := debug.ReadBuildInfo() // nil when the binary carries none
	_, err := fmt.Fprintln(e.stdout, versionLine(bi, asm.Implementation()))
	return err
}

// versionLine formats the module version and VCS stamp of bi (nil: none
// embedded) and the kernel set.
func versionLine(bi *debug.BuildInfo, kernels string) string {
	version, goVersion := "(unknown)", ""
	settings := map[string]string{}
	if bi != nil {
		version, goVersion = bi.Main.Version, bi.GoVersion
		if version == "" {
			version = "(devel)"
		}
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
	}
	parts := []string{"ntksvm " + version}
	if rev := settings["vcs.revision"]; rev != "" {
		if settings["vcs.modified"] == "true" {
			rev += "+modified"
		}
		parts = append(parts, "revision "+rev)
		if t := settings["vcs.time"]; t != "" {
			parts = append(parts, "committed "+t)
		}
	} else {
		parts = append(parts, "revision unknown (not built from a VCS checkout)")
	}
	if goVersion != "" {
		parts = append(parts, goVersion)
	}
	parts = append(parts, "kernels "+kernels)
	return strings.Join(parts, ", ")
}
