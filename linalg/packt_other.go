//go:build !amd64 || !gc || purego

package linalg

// packTActive reports false: this build has no gather kernels.
func packTActive() bool { return false }
