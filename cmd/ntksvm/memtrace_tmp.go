package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"runtime/metrics"
	"strings"
)

func memTrace(what string) {
	if os.Getenv("NTKSVM_MEMTRACE") == "" {
		return
	}
	if what == "end" && os.Getenv("NTKSVM_MEMPROF") != "" {
		f, _ := os.Create(os.Getenv("NTKSVM_MEMPROF"))
		pprof.Lookup("allocs").WriteTo(f, 0)
		f.Close()
	}
	b, _ := os.ReadFile("/proc/self/status")
	var rss, hwm string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			rss = strings.TrimSpace(l[6:])
		}
		if strings.HasPrefix(l, "VmHWM:") {
			hwm = strings.TrimSpace(l[6:])
		}
	}
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/free:bytes"}, {Name: "/memory/classes/heap/released:bytes"}, {Name: "/memory/classes/total:bytes"}, {Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	fmt.Fprintf(os.Stderr, "MEM %-20s rss %s hwm %s objects %.1fM free %.1fM released %.1fM total %.1fM goal %.1fM\n", what, rss, hwm,
		float64(s[0].Value.Uint64())/1e6, float64(s[1].Value.Uint64())/1e6, float64(s[2].Value.Uint64())/1e6, float64(s[3].Value.Uint64())/1e6, float64(s[4].Value.Uint64())/1e6)
}
