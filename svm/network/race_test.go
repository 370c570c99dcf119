//go:build race

package network

// raceEnabled reports a -race build, whose instrumentation allocates.
const raceEnabled = true
