package asm

// ReLU32 sets dst[i] = max(x[i], 0) for every i < len(x).
//
// Special values: NaN stays NaN with its sign and payload (the NEON kernels
// may return a signalling NaN quieted), −0 becomes +0, +Inf stays +Inf and
// −Inf becomes +0. dst may be x (in place); any other
// overlap is not allowed. It panics if len(dst) < len(x).
func ReLU32(dst, x []float32) { active.ReLU32(dst, x) }

// ReLU64 is ReLU32 for float64.
func ReLU64(dst, x []float64) { active.ReLU64(dst, x) }

// ReLUGrad32 sets dst[i] = g[i] if x[i] > 0, else +0: the backward pass of
// ReLU, g·1[x > 0], computed as a select so that a NaN or infinite g where
// x ≤ 0 still gives 0. A NaN x counts as not positive. dst may be g or x;
// any other overlap is not allowed. It panics if len(g) != len(x) or
// len(dst) < len(x).
func ReLUGrad32(dst, g, x []float32) { active.ReLUGrad32(dst, g, x) }

// ReLUGrad64 is ReLUGrad32 for float64.
func ReLUGrad64(dst, g, x []float64) { active.ReLUGrad64(dst, g, x) }

// ReLU32 is the package-level ReLU32 on this kernel set.
func (k *Kernels) ReLU32(dst, x []float32) {
	if len(dst) < len(x) {
		panic("asm: ReLU32: len(dst) < len(x)")
	}
	k.relu32(dst[:len(x)], x)
}

// ReLU64 is the package-level ReLU64 on this kernel set.
func (k *Kernels) ReLU64(dst, x []float64) {
	if len(dst) < len(x) {
		panic("asm: ReLU64: len(dst) < len(x)")
	}
	k.relu64(dst[:len(x)], x)
}

// ReLUGrad32 is the package-level ReLUGrad32 on this kernel set.
func (k *Kernels) ReLUGrad32(dst, g, x []float32) {
	if len(g) != len(x) || len(dst) < len(x) {
		panic("asm: ReLUGrad32: mismatched lengths")
	}
	k.reluGrad32(dst[:len(x)], g, x)
}

// ReLUGrad64 is the package-level ReLUGrad64 on this kernel set.
func (k *Kernels) ReLUGrad64(dst, g, x []float64) {
	if len(g) != len(x) || len(dst) < len(x) {
		panic("asm: ReLUGrad64: mismatched lengths")
	}
	k.reluGrad64(dst[:len(x)], g, x)
}
