package bench

import (
	"fmt"
	"strconv"
	"strings"
)

// gemmShape is one benchmark case: op(A) m×k times op(B) k×n, or for op
// "gram" the n×n Gram matrix of an n×k matrix (m = n), or for "syrk" its
// lower triangle only (linalg.SyrkLower, what BLAS ?syrk computes).
type gemmShape struct {
	op      string // "gemm", "gram" or "syrk"
	dtype   string // "float32" or "float64"
	m, k, n int
}

// bytes returns the memory the operands of s take (A, C and, for gemm, B).
func (s gemmShape) bytes() uint64 {
	elems := uint64(s.m)*uint64(s.k) + uint64(s.m)*uint64(s.n)
	if s.op == "gemm" {
		elems += uint64(s.k) * uint64(s.n)
	}
	size := uint64(4)
	if s.dtype == "float64" {
		size = 8
	}
	return elems * size
}

// paperShapes are the products the reproduction spends its time in.
var paperShapes = []gemmShape{
	{"gemm", "float32", 2048, 2048, 2048},
	{"gemm", "float32", 128, 784, 10000},   // first layer, batch 128, width 10,000
	{"gemm", "float32", 128, 10000, 10000}, // hidden layer
	{"gram", "float32", 12665, 784, 12665}, // X·Xᵀ of the MNIST 0/1 training set
	{"gemm", "float64", 2048, 2048, 2048},
	{"gemm", "float64", 128, 10000, 10000},
}

// sweepSizes are the square sizes of --sweep.
var sweepSizes = []int{64, 128, 256, 512, 1024, 2048, 4096}

// maxGemmElems bounds the elements of one operand of a --shapes entry
// (1<<31 float64 values are 16 GiB).
const maxGemmElems = 1 << 31

// filterDtype keeps only float32 or only float64 cases if asked.
func filterDtype(cases []gemmShape, f32, f64 bool) []gemmShape {
	if !f32 && !f64 {
		return cases
	}
	var out []gemmShape
	for _, s := range cases {
		if (s.dtype == "float32") == f32 {
			out = append(out, s)
		}
	}
	return out
}

// parseGemmShapes parses --shapes: "MxKxN" entries (× also accepted),
// "gram:NxK" and "syrk:NxK", each run in float32 and float64.
func parseGemmShapes(s string) ([]gemmShape, error) {
	var out []gemmShape
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		op, dims := "gemm", f
		for _, o := range []string{"gram", "syrk"} {
			if rest, ok := strings.CutPrefix(f, o+":"); ok {
				op, dims = o, rest
			}
		}
		parts := strings.FieldsFunc(dims, func(r rune) bool { return r == 'x' || r == 'X' || r == '×' })
		want := 3
		if op != "gemm" {
			want = 2
		}
		if len(parts) != want {
			return nil, usage("--shapes entry %q: want MxKxN, gram:NxK or syrk:NxK", f)
		}
		v := make([]int, want)
		for i, p := range parts {
			n, err := strconv.Atoi(p)
			if err != nil || n < 1 || n > 1<<20 {
				return nil, usage("--shapes entry %q: dimension %q is not an integer in 1…%d", f, p, 1<<20)
			}
			v[i] = n
		}
		var sh gemmShape
		if op != "gemm" {
			sh = gemmShape{op, "", v[0], v[1], v[0]}
		} else {
			sh = gemmShape{"gemm", "", v[0], v[1], v[2]}
		}
		if sh.m*sh.k > maxGemmElems || sh.k*sh.n > maxGemmElems || sh.m*sh.n > maxGemmElems {
			return nil, usage("--shapes entry %q: an operand has more than %d elements", f, maxGemmElems)
		}
		for _, dt := range []string{"float32", "float64"} {
			sh.dtype = dt
			out = append(out, sh)
		}
	}
	return out, nil
}

// gemmCases returns the shapes "bench gemm" runs, refusing flag
// combinations and shapes whose operands exceed the memory env reports
// available.
func gemmCases(sweep bool, shapes string, f32, f64 bool, env Env) ([]gemmShape, error) {
	if sweep && shapes != "" {
		return nil, usage("--sweep and --shapes are exclusive")
	}
	if f32 && f64 {
		return nil, usage("--float32 and --float64 are exclusive; give neither for both")
	}
	var cases []gemmShape
	switch {
	case shapes != "":
		var err error
		if cases, err = parseGemmShapes(shapes); err != nil {
			return nil, err
		}
	case sweep:
		for _, dt := range []string{"float32", "float64"} {
			for _, s := range sweepSizes {
				cases = append(cases, gemmShape{"gemm", dt, s, s, s})
			}
		}
	default:
		cases = paperShapes
	}
	cases = filterDtype(cases, f32, f64)
	if avail, ok := env.available(); ok {
		for _, s := range cases {
			if need := s.bytes(); need > avail {
				return nil, usage("%s %d×%d×%d %s: the operands need %s, more than the %s of memory available",
					s.op, s.m, s.k, s.n, s.dtype, gib(need), gib(avail))
			}
		}
	}
	return cases, nil
}

// gib formats a byte count in GiB for messages.
func gib(n uint64) string { return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30)) }
