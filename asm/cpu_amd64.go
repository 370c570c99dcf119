//go:build gc && !purego

package asm

// archKernels returns the amd64 kernel sets this CPU can run, best first.
func archKernels() []*Kernels { return nil }
