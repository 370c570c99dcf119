package reproduce

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/ntksvm/ntksvm/asm"
	"github.com/ntksvm/ntksvm/linalg"
)

// Machine describes where a run happened, for the report's header.
type Machine struct {
	CPU     string `json:"cpu"`     // model name from /proc/cpuinfo
	Arch    string `json:"arch"`    // GOOS/GOARCH
	CPUs    int    `json:"cpus"`    // logical CPUs
	Threads int    `json:"threads"` // threads of the numerics
	Kernels string `json:"kernels"` // asm.Implementation()
	Go      string `json:"go"`
	Version string `json:"version"` // ntksvm's VCS revision, "+dirty" if modified
	Host    string `json:"host,omitempty"`
}

// ThisMachine describes the running process's machine.
func ThisMachine() Machine {
	h, _ := os.Hostname()
	return Machine{
		CPU:     cpuModel("/proc/cpuinfo"),
		Arch:    runtime.GOOS + "/" + runtime.GOARCH,
		CPUs:    runtime.NumCPU(),
		Threads: linalg.Threads(),
		Kernels: asm.Implementation(),
		Go:      runtime.Version(),
		Version: version(),
		Host:    h,
	}
}

// cpuModel returns the first "model name" (x86) or "Model"/"CPU part"
// (arm64) line of a cpuinfo file, or "unknown".
func cpuModel(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	fallback := ""
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "model name":
			return v
		case "Model", "Hardware":
			fallback = v
		}
	}
	if fallback != "" {
		return fallback
	}
	return "unknown"
}

// version returns the VCS revision (and time) the binary was built from.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	var rev, at string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			return bi.Main.Version
		}
		return gitDescribe()
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	if at != "" {
		if t, err := time.Parse(time.RFC3339, at); err == nil {
			rev += " (" + t.UTC().Format("2006-01-02 15:04") + " UTC)"
		}
	}
	return rev
}

// gitDescribe asks git for the working tree's revision, for binaries built
// without VCS stamps ("go run").
func gitDescribe() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty", "--abbrev=12").Output()
	if err != nil {
		return "unknown (built without VCS information)"
	}
	return strings.TrimSpace(string(out)) + " (git describe)"
}
