//go:build !(amd64 || arm64) || !gc || purego

package asm

// archKernels returns nothing: this build has no assembly.
func archKernels() []*Kernels { return nil }
