//go:build race

package svm

// raceEnabled reports a -race build, whose instrumentation allocates.
const raceEnabled = true
