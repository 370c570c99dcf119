//go:build !(amd64 || arm64) || !gc || purego

package asm

// fillSMOArch leaves the Go twins: this build has no SMO assembly.
func fillSMOArch(*Kernels) {}
