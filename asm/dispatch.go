package asm

import (
	"fmt"
	"os"
	"strings"
)

// Kernels is one implementation of every kernel in this package, for one
// instruction set. Values are created by this package only; the zero value
// is not usable.
type Kernels struct {
	name     string
	features string // human-readable list of the CPU features it needs

	mr32, nr32 int // float32 micro-tile shape
	mr64, nr64 int // float64 micro-tile shape

	relu32     func(dst, x []float32)
	relu64     func(dst, x []float64)
	reluGrad32 func(dst, g, x []float32)
	reluGrad64 func(dst, g, x []float64)

	// gemmTile32 and gemmTile64 accumulate one full MR×NR tile:
	// c[i*ldc+j] += Σ_p a[p*MR+i]·b[p*NR+j]. Lengths are checked by the
	// exported wrappers before the call.
	gemmTile32 func(k int, a, b, c []float32, ldc int)
	gemmTile64 func(k int, a, b, c []float64, ldc int)
	// gemmEdge32 and gemmEdge64, if not nil, accumulate an edge tile:
	// the m×n corner (1 ≤ m ≤ MR, 1 ≤ n ≤ NR) of gemmTile32's and
	// gemmTile64's sums, bit for bit, is added to c without touching
	// any other element of c. Sets that leave them nil go through a
	// zeroed scratch tile (gemm.go).
	gemmEdge32 func(k int, a, b, c []float32, ldc, m, n int)
	gemmEdge64 func(k int, a, b, c []float64, ldc, m, n int)

	// gemmBeta32 and gemmBeta64, if not nil, are gemmTile32 and
	// gemmTile64 with C scaled by beta in the epilogue (gemmbeta.go).
	gemmBeta32 func(k int, a, b, c []float32, ldc int, beta float32)
	gemmBeta64 func(k int, a, b, c []float64, ldc int, beta float64)

	// gemmPackB32 and gemmPackB64 are the tile kernels that pack their B
	// sliver from the unpacked matrix as they go (gemmpack.go);
	// fusedPackB32 and fusedPackB64 record that the set has its own,
	// rather than the Go fill.
	gemmPackB32  func(k int, a, b []float32, ldb int, bp, c []float32, ldc int)
	gemmPackB64  func(k int, a, b []float64, ldb int, bp, c []float64, ldc int)
	fusedPackB32 bool
	fusedPackB64 bool
	// gemmPF32 and gemmPF64 are gemmTile32 and gemmTile64 that also
	// prefetch rows runs of NR elements at pf[q*ldpf:] (gemmpack.go).
	gemmPF32 func(k int, a, b, c []float32, ldc int, pf []float32, ldpf, rows int)
	gemmPF64 func(k int, a, b, c []float64, ldc int, pf []float64, ldpf, rows int)

	// transpose32 and transpose64 copy a block transposed, the scaled
	// ones multiplying by alpha (transpose.go); hasTranspose32 and
	// hasTranspose64 record that the set has its own, rather than the Go
	// twins.
	transpose32       func(dst []float32, ldd int, src []float32, lds, m, n int)
	transpose64       func(dst []float64, ldd int, src []float64, lds, m, n int)
	scaledTranspose32 func(dst []float32, ldd int, src []float32, lds, m, n int, alpha float32)
	scaledTranspose64 func(dst []float64, ldd int, src []float64, lds, m, n int, alpha float64)
	hasTranspose32    bool
	hasTranspose64    bool

	// packBTrans32 and packBTrans64 pack one NR-wide sliver of Bᵀ
	// (packbt.go); hasPackBTrans32 and hasPackBTrans64 record that the
	// set has its own, rather than the Go twin.
	packBTrans32    func(dst, src []float32, ld, kb int)
	packBTrans64    func(dst, src []float64, ld, kb int)
	hasPackBTrans32 bool
	hasPackBTrans64 bool

	// gemmDirect32 and gemmDirect64, if not nil, compute one tile of C =
	// alpha·op(A)·B + beta·C from the unpacked operands (gemmdirect.go), for
	// 1 ≤ m ≤ MR, 1 ≤ n ≤ NR; arguments are checked by the exported
	// wrappers. Sets that leave them nil run the Go twin.
	gemmDirect32 func(k, m, n int, alpha float32, a []float32, rs, ps int, b []float32, ldb int, beta float32, c []float32, ldc int)
	gemmDirect64 func(k, m, n int, alpha float64, a []float64, rs, ps int, b []float64, ldb int, beta float64, c []float64, ldc int)

	// gemmRows32 accumulates one 6×64 tile from six rows of a strided
	// matrix and a packed sliver (gemmrows.go); hasGemmRows32 records
	// that the set has its own, rather than the Go twin.
	gemmRows32    func(k int, a []float32, lda int, b, c []float32, ldc int, pf []float32)
	hasGemmRows32 bool

	// fmaPeak32 and fmaPeak64 run n iterations of a register-only loop of
	// independent FMAs and return the number of floating-point operations
	// done (2 per lane per FMA); used to measure the machine's peak.
	fmaPeak32 func(n int) int
	fmaPeak64 func(n int) int

	// acos64, arcCosLayer64 and arcCosFirst64 are the arc-cosine kernels
	// (arccos.go); a set that leaves them nil gets the generic ones in init.
	acos64        func(dst, x []float64)
	arcCosLayer64 func(sig, ntk []float64, ni, invi float64, nj, invj []float64, sw2, sb2 float64)
	arcCosFirst64 func(sig, ntk, g []float64, a, b, ni, invi float64, nj, invj []float64, sw2, sb2 float64)

	// Level-1 kernels (dot.go); lengths are checked by the exported
	// wrappers. A set that leaves them nil gets the generic ones in init.
	dotF32F64 func(a []float32, x []float64) float64
	// dotRows4F32F64 is four dotF32F64 calls on rows lda apart.
	dotRows4F32F64 func(dst *[4]float64, a []float32, lda int, x []float64)
	dot64          func(a, x []float64) float64
	dot64Rows4     func(dst *[4]float64, a []float64, lda int, x []float64)
	dot32          func(a, x []float32) float32
	axpyF32F64     func(alpha float64, a []float32, y []float64)
	axpy64         func(alpha float64, x, y []float64)
	sum32          func(a []float32) float32
	sum64          func(a []float64) float64
	sum32Rows4     func(a []float32, lda, n int) float32
	sum64Rows4     func(a []float64, lda, n int) float64

	// smoSelect64 and smoUpdate64 are the SMO solver's two passes
	// (smo.go); lengths are checked by the exported wrappers. A set that
	// leaves them nil gets the Go twins in init.
	smoSelect64 func(g, sgn, lowPen, diag, ki []float64, gmax, qii, shift float64, i int) (int, float64)
	smoUpdate64 func(g, sgn, upPen, ki, kj []float64, d float64) (int, float64)
	// axpyUnfused64 is AxpyUnfused64 (smo.go), lengths checked.
	axpyUnfused64 func(alpha float64, x, y []float64)
}

// Name is the short name of the instruction set: "generic", "avx2",
// "avx512" or "neon". It is the value NTKSVM_SIMD accepts.
func (k *Kernels) Name() string { return k.name }

// Features lists the CPU features the kernels use, e.g. "AVX2 FMA3".
func (k *Kernels) Features() string { return k.features }

var (
	// available is what this CPU can run, best first; generic is last.
	available []*Kernels
	// active is what the package-level functions call.
	active *Kernels
	// chooseErr records why an NTKSVM_SIMD override was refused.
	chooseErr error
)

// init is the only init in the package: inits in different files run in
// file-name order, so all choices are made here.
func init() {
	available = append(archKernels(), generic)
	for _, k := range available {
		fillArcCos(k)
		fillDot(k)
		fillGemmPack(k)
		fillGemmRows(k)
		fillPackBTrans(k)
		fillTranspose(k)
		fillSMOArch(k)
		fillSMO(k)
	}
	active, chooseErr = choose(os.Getenv("NTKSVM_SIMD"))
	if chooseErr != nil {
		// A library cannot fail at start-up; fall back to the best set and
		// let Check report the problem to whoever asks.
		active = available[0]
	}
}

// choose returns the kernel set named by want ("" or "auto" for the best).
func choose(want string) (*Kernels, error) {
	want = strings.ToLower(strings.TrimSpace(want))
	if want == "" || want == "auto" {
		return available[0], nil
	}
	if k := Lookup(want); k != nil {
		return k, nil
	}
	for _, n := range knownNames {
		if n == want {
			return nil, fmt.Errorf("asm: NTKSVM_SIMD=%s: this CPU or build cannot run it (available: %s)",
				want, strings.Join(names(), ", "))
		}
	}
	return nil, fmt.Errorf("asm: NTKSVM_SIMD=%q is not a kernel set (known: %s)",
		want, strings.Join(knownNames, ", "))
}

// knownNames are all names NTKSVM_SIMD accepts on some machine.
var knownNames = []string{"generic", "avx2", "avx512", "neon"}

func names() []string {
	s := make([]string, len(available))
	for i, k := range available {
		s[i] = k.name
	}
	return s
}

// Check reports whether the NTKSVM_SIMD override, if any, was honoured. A
// command-line program should call it at start-up and exit with its error:
// an override naming a set the CPU cannot run falls back to the best
// available set.
//
// Check also reads NTKSVM_SIMD again. That changes nothing (the set was
// chosen at init) but lets go test's cache, which keys a cached result on
// the environment variables a test read, tell runs with different
// overrides apart: a test that calls Check is re-run when the override
// changes, where one that only uses the kernels would be served from the
// cache of a run on another set.
func Check() error {
	_ = os.Getenv("NTKSVM_SIMD")
	return chooseErr
}

// Implementation is the name of the active kernel set.
func Implementation() string { return active.name }

// Active returns the kernel set the package-level functions use.
func Active() *Kernels { return active }

// Available returns the kernel sets this CPU and build can run, best first;
// the last one is always "generic".
func Available() []*Kernels { return append([]*Kernels(nil), available...) }

// Lookup returns the available kernel set with the given name, or nil.
func Lookup(name string) *Kernels {
	for _, k := range available {
		if k.name == name {
			return k
		}
	}
	return nil
}
