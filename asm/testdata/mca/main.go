// Command mca predicts the throughput of every loop of the package's NEON
// kernels with LLVM's machine-code analyser, llvm-mca, on several Arm core
// models, since no arm64 machine is at hand to time them. run.sh beside it
// installs the tools, builds the arm64 test binary and runs it:
//
//	asm/testdata/mca/run.sh
//
// For each TEXT symbol of the package's *_arm64.s files it disassembles the
// function in the binary, takes as a loop every backward branch inside the
// function together with the instructions from its target to it, and runs
// llvm-mca on each loop body for each model. It prints, per loop and model,
// the floating-point operations per cycle counted from FMLA/FMLS/FMADD
// lanes (two per lane) and their share of that core's FMA peak:
//
//	model           FMA pipes × width   float32 / float64 FLOP per cycle
//	cortex-a72      1 Q-form FMLA/cycle  8 / 4  (F0 and F1 are 64 bits wide; a Q-form FMLA takes both)
//	neoverse-n1     2 × 128 bit         16 / 8
//	n1-wide         2 × 128 bit         16 / 8  (N1 with an 8-wide dispatch, the Cortex-A76/A78 class of the Raspberry Pi 5)
//	neoverse-v1     4 × 128 bit (NEON)  32 / 16
//	neoverse-v2     4 × 128 bit         32 / 16
//
// These are the figures of Arm's software optimisation guides and of LLVM's
// scheduling models (a loop of independent FMLAs gives exactly them under
// llvm-mca). llvm-mca -mcpu=cortex-a76 would silently use the older
// Cortex-A57 model, so the A76 class is N1 with a wider front end.
//
// Each loop is named by its symbol and the assembly label at or before its
// first instruction (found through the binary's line table, as go tool
// objdump prints it). A loop is "full" (marked *) when it is one that a
// full MR×NR tile runs: the packed kernels' k loops, the edge kernels' full
// tile, and the direct kernels' loops for the full tile with A's rows
// (r2fullp0, r2fullp1; r3fullp0) or columns (colfull) contiguous, which
// are the two layouts package linalg passes (-full changes the set). The
// direct kernels' gather loops (k…) serve any other strides and the short
// tiles of a transposed A.
//
// Loops that store count no FMAs (they are the epilogues writing C, or
// element-wise kernels) and show cycles per iteration. The last lines give,
// per model, the least share over the full loops and the median over all
// GEMM loops. LLVM's Neoverse N1 model dispatches three micro-ops a cycle
// and counts most vector loads with an offset as two, so loops with many
// loads per FMLA fall short there and not with the wider front end.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// model is one llvm-mca configuration and the core's FMA peak in 128-bit
// FMLAs per cycle.
type model struct {
	name  string
	args  []string
	pipes float64
}

var models = []model{
	{"cortex-a72", []string{"-mcpu=cortex-a72"}, 1},
	{"neoverse-n1", []string{"-mcpu=neoverse-n1"}, 2},
	{"n1-wide", []string{"-mcpu=neoverse-n1", "-dispatch=8", "-micro-op-queue-size=16", "-decoder-throughput=4"}, 2},
	{"neoverse-v1", []string{"-mcpu=neoverse-v1"}, 4},
	{"neoverse-v2", []string{"-mcpu=neoverse-v2"}, 4},
}

// insn is one disassembled instruction.
type insn struct {
	addr   uint64
	op     string // mnemonic
	args   string
	target uint64 // address operand, 0 if none
	branch bool   // target is a branch target
}

// loop is the body of one backward branch.
type loop struct {
	sym        string
	label      string // the source label at the loop's first instruction
	full       bool   // a full-tile GEMM loop
	start, end uint64 // offsets in the symbol of the first and the branch instruction
	body       []insn
	fmla       int     // FMA instructions per iteration
	flops      float64 // per iteration: two per FMA lane
	lanes      int     // lanes of the widest FMA: 4 float32, 2 float64
}

var (
	lineRE   = regexp.MustCompile(`^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$`)
	targetRE = regexp.MustCompile(`^(.*?)([0-9a-f]+) <[^>]*>$`)
	textRE   = regexp.MustCompile(`(?m)^TEXT\s+·(\w+)\(SB\)`)
	arrRE    = regexp.MustCompile(`^v\d+\.(\d+)([sdh])`)
)

func main() {
	bin := flag.String("bin", "", "arm64 test binary of package asm")
	dir := flag.String("dir", ".", "directory of the package's *_arm64.s files")
	objdump := flag.String("objdump", "aarch64-linux-gnu-objdump", "objdump for aarch64")
	mca := flag.String("mca", "llvm-mca", "llvm-mca (LLVM 22 or later)")
	iters := flag.Int("iterations", 300, "llvm-mca iterations per loop")
	pkg := flag.String("pkg", "github.com/ntksvm/ntksvm/asm", "import path of the package")
	fullRE := flag.String("full", defaultFull, "regexp of the full-tile loops, as \"symbol label\"")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "mca: -bin is required")
		os.Exit(2)
	}
	syms, err := textSymbols(*dir)
	if err != nil {
		fatal(err)
	}
	isFull, err := regexp.Compile(*fullRE)
	if err != nil {
		fatal(err)
	}
	var loops []loop
	for _, s := range syms {
		ins, err := disassemble(*objdump, *bin, *pkg+"."+s+".abi0")
		if err != nil {
			fatal(err)
		}
		lines, err := sourceLines(*bin, *pkg+"."+s+".abi0")
		if err != nil {
			fatal(err)
		}
		for _, l := range findLoops(s, ins) {
			l.label = labelAt(*dir, lines[ins[0].addr+l.start])
			l.full = isFull.MatchString(l.sym + " " + l.label)
			loops = append(loops, l)
		}
	}
	fmt.Printf("%-36s %4s %5s", "loop (symbol label)", "fma", "flops")
	for _, m := range models {
		fmt.Printf(" %15s", m.name)
	}
	fmt.Println()
	pct := make([][]float64, len(models)) // per model, over GEMM loops
	worst := make([]float64, len(models)) // per model, over full loops
	for i := range worst {
		worst[i] = 1e9
	}
	for _, l := range loops {
		full := l.full
		mark := " "
		if full {
			mark = "*"
		}
		fmt.Printf("%-35s%s %4d %5.0f", l.sym+" "+l.label, mark, l.fmla, l.flops)
		for mi, m := range models {
			cyc, err := cycles(*mca, m, l.body, *iters)
			if err != nil {
				fatal(fmt.Errorf("%s %s: %v", l.sym, m.name, err))
			}
			if l.fmla == 0 {
				fmt.Printf(" %9.2fc      ", cyc)
				continue
			}
			fpc := l.flops / cyc
			peak := m.pipes * float64(l.lanes) * 2
			p := 100 * fpc / peak
			fmt.Printf(" %6.2f (%4.0f%%)", fpc, p)
			if isGemm(l.sym) {
				pct[mi] = append(pct[mi], p)
				if full {
					worst[mi] = min(worst[mi], p)
				}
			}
		}
		fmt.Println()
	}
	fmt.Printf("%-46s", "full GEMM loops (*), least % of peak")
	for _, w := range worst {
		fmt.Printf(" %14.0f%%", w)
	}
	fmt.Printf("\n%-46s", "all GEMM loops, median % of peak")
	for _, p := range pct {
		slices.Sort(p)
		med := 0.0
		if n := len(p); n > 0 {
			med = (p[(n-1)/2] + p[n/2]) / 2
		}
		fmt.Printf(" %14.0f%%", med)
	}
	fmt.Println()
	fmt.Println("columns: FLOP per cycle (share of the model's FMA peak); loops without FMA: cycles per iteration")
}

// defaultFull matches the full-tile loops, as "symbol label".
const defaultFull = `^(gemm(Beta)?NEON\w+ loop|gemmEdgeNEON8x12 e8x12|gemmEdgeNEON6x8 e6x8|gemmDirectNEON8x12 (r2fullp[01]|colfull)|gemmDirectNEON6x8 (r3fullp0|colfull))$`

var (
	goObjdumpRE = regexp.MustCompile(`^\s*(\S+\.s):(\d+)\s+0x([0-9a-f]+)`)
	labelRE     = regexp.MustCompile(`^(\w+):`)
)

// srcLine is a line of an assembly file.
type srcLine struct {
	file string
	line int
}

// sourceLines maps the addresses of symbol sym in bin to their source
// lines, read from go tool objdump.
func sourceLines(bin, sym string) (map[uint64]srcLine, error) {
	out, err := exec.Command("go", "tool", "objdump", "-s", "^"+regexp.QuoteMeta(sym)+"$", bin).Output()
	if err != nil {
		return nil, fmt.Errorf("go tool objdump -s %s: %v", sym, err)
	}
	m := map[uint64]srcLine{}
	for _, ln := range strings.Split(string(out), "\n") {
		if f := goObjdumpRE.FindStringSubmatch(ln); f != nil {
			addr, _ := strconv.ParseUint(f[3], 16, 64)
			n, _ := strconv.Atoi(f[2])
			m[addr] = srcLine{f[1], n}
		}
	}
	return m, nil
}

var sources = map[string][]string{}

// labelAt returns the last label at or before line l of its file (in dir),
// or "line N" if there is none.
func labelAt(dir string, l srcLine) string {
	src, ok := sources[l.file]
	if !ok {
		b, err := os.ReadFile(filepath.Join(dir, filepath.Base(l.file)))
		if err != nil {
			return fmt.Sprintf("line %d", l.line)
		}
		src = strings.Split(string(b), "\n")
		sources[l.file] = src
	}
	for i := min(l.line, len(src)) - 1; i >= 0; i-- {
		if strings.HasPrefix(src[i], "TEXT") {
			break
		}
		if m := labelRE.FindStringSubmatch(src[i]); m != nil {
			return m[1]
		}
	}
	return fmt.Sprintf("line %d", l.line)
}

func isGemm(sym string) bool { return strings.HasPrefix(sym, "gemm") }

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "mca:", err)
	os.Exit(1)
}

// textSymbols returns the TEXT symbols of dir's *_arm64.s files in file
// order.
func textSymbols(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_arm64.s"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no *_arm64.s files in %s", dir)
	}
	var syms []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, m := range textRE.FindAllSubmatch(src, -1) {
			syms = append(syms, string(m[1]))
		}
	}
	return syms, nil
}

// disassemble returns the instructions of symbol sym in bin.
func disassemble(objdump, bin, sym string) ([]insn, error) {
	out, err := exec.Command(objdump, "-d", "--no-show-raw-insn", "--disassemble="+sym, bin).Output()
	if err != nil {
		return nil, fmt.Errorf("%s --disassemble=%s: %v", objdump, sym, err)
	}
	var ins []insn
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := lineRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		addr, _ := strconv.ParseUint(m[1], 16, 64)
		args := m[3]
		if i := strings.Index(args, "//"); i >= 0 {
			args = args[:i]
		}
		args = strings.TrimSpace(args)
		in := insn{addr: addr, op: m[2], args: args}
		if t := targetRE.FindStringSubmatch(args); t != nil {
			// A code address (branch target, adrp page): kept apart, as
			// llvm-mca reads labels, not addresses.
			in.target, _ = strconv.ParseUint(t[2], 16, 64)
			in.args = strings.TrimSuffix(strings.TrimSpace(t[1]), ",")
			in.branch = isBranch(in.op)
		}
		ins = append(ins, in)
	}
	if len(ins) == 0 {
		return nil, fmt.Errorf("symbol %s not found in %s", sym, bin)
	}
	return ins, nil
}

func isBranch(op string) bool {
	switch {
	case op == "b", strings.HasPrefix(op, "b."), op == "cbz", op == "cbnz", op == "tbz", op == "tbnz":
		return true
	}
	return false
}

// findLoops returns the loops of one function: each backward branch whose
// target lies in the function. The FMAs of a loop that stores (the write
// of C in a GEMM epilogue) are not counted: it is not a k loop.
func findLoops(sym string, ins []insn) []loop {
	base := ins[0].addr
	var loops []loop
	for i, in := range ins {
		if !in.branch || in.target > in.addr || in.target < base {
			continue
		}
		j := slices.IndexFunc(ins, func(x insn) bool { return x.addr == in.target })
		if j < 0 {
			continue
		}
		l := loop{sym: sym, start: in.target - base, end: in.addr - base, body: ins[j : i+1]}
		stores := slices.ContainsFunc(l.body, func(x insn) bool {
			return strings.HasPrefix(x.op, "st") || x.op == "str"
		})
		for _, b := range l.body {
			if n := fmaLanes(b); n > 0 && !stores {
				l.fmla++
				l.flops += 2 * float64(n)
				l.lanes = max(l.lanes, lanesOf(b))
			}
		}
		loops = append(loops, l)
	}
	return loops
}

// fmaLanes returns the number of fused multiply-adds one instruction does.
func fmaLanes(in insn) int {
	switch in.op {
	case "fmla", "fmls":
		if m := arrRE.FindStringSubmatch(in.args); m != nil {
			n, _ := strconv.Atoi(m[1])
			return n
		}
		return 1 // scalar by-element form
	case "fmadd", "fmsub", "fnmadd", "fnmsub":
		return 1
	}
	return 0
}

// lanesOf returns the lanes of a 128-bit vector of the instruction's
// element type: 4 for single, 2 for double precision.
func lanesOf(in insn) int {
	if m := arrRE.FindStringSubmatch(in.args); m != nil && m[2] == "d" {
		return 2
	}
	if strings.HasPrefix(in.args, "d") {
		return 2
	}
	return 4
}

var cyclesRE = regexp.MustCompile(`Total Cycles:\s+(\d+)`)

// cycles returns llvm-mca's cycles per iteration of body under model m.
func cycles(mca string, m model, body []insn, iters int) (float64, error) {
	var src strings.Builder
	src.WriteString("loop:\n")
	for _, in := range body {
		args := in.args
		if in.target != 0 {
			// Any address is named "loop": llvm-mca needs a label, not an
			// address, and ignores where branches go.
			if args != "" {
				args += ", "
			}
			args += "loop"
		}
		fmt.Fprintf(&src, "\t%s %s\n", in.op, args)
	}
	args := append([]string{"-mtriple=aarch64", "-iterations=" + strconv.Itoa(iters),
		"-resource-pressure=false", "-instruction-info=false"}, m.args...)
	cmd := exec.Command(mca, args...)
	cmd.Stdin = strings.NewReader(src.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("%v: %s\n%s", err, stderr.String(), src.String())
	}
	c := cyclesRE.FindSubmatch(out)
	if c == nil {
		return 0, fmt.Errorf("no Total Cycles in llvm-mca output")
	}
	total, _ := strconv.ParseFloat(string(c[1]), 64)
	return total / float64(iters), nil
}
