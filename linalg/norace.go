//go:build !race

package linalg

// raceEnabled says whether the race detector is on.
const raceEnabled = false
