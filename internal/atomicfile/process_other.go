//go:build !linux

package atomicfile

import (
	"hash/fnv"
	"os"
	"time"
)

// machineID names this machine in temporary names: a hash of its host
// name.
var machineID = func() uint32 {
	h := fnv.New32a()
	host, _ := os.Hostname()
	h.Write([]byte(host))
	return h.Sum32()
}()

// processGone reports false: without Linux's /proc the start time of a
// process is not read, so only StaleAge removes another run's file.
func processGone(int, time.Time) bool { return false }
