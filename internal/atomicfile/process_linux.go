package atomicfile

import (
	"bytes"
	"errors"
	"hash/fnv"
	"io/fs"
	"os"
	"strconv"
	"time"
)

// machineID names this machine and boot in temporary names: a hash of the
// kernel's boot ID (a process ID means nothing on another machine or
// after a reboot).
var machineID = func() uint32 {
	h := fnv.New32a()
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		host, _ := os.Hostname()
		b = []byte(host)
	}
	h.Write(bytes.TrimSpace(b))
	return h.Sum32()
}()

// userHZ is the unit of the start times in /proc/PID/stat (USER_HZ,
// 100 on every Linux architecture).
const userHZ = 100

// processGone reports whether no process of this machine that could have
// written a file last modified at mtime holds pid: there is none, or the
// one there started after mtime (the ID was reused).
func processGone(pid int, mtime time.Time) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	start, ok := processStart(stat)
	return ok && start.After(mtime.Add(time.Second))
}

// processStart returns the start time of the process whose
// /proc/PID/stat is stat: field 22, in USER_HZ ticks after the boot time
// (btime in /proc/stat).
func processStart(stat []byte) (time.Time, bool) {
	i := bytes.LastIndexByte(stat, ')') // the command name may hold spaces
	if i < 0 {
		return time.Time{}, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 20 {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseUint(string(f[19]), 10, 64) // field 22; f[0] is field 3
	if err != nil {
		return time.Time{}, false
	}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, false
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("btime ")); ok {
			boot, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			if err != nil {
				return time.Time{}, false
			}
			return time.Unix(boot, 0).Add(time.Duration(ticks) * time.Second / userHZ), true
		}
	}
	return time.Time{}, false
}
