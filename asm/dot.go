package asm

// Dot products, axpy and sums: the level-1 kernels behind the kernel
// machines' K·α (a Gram row against the coefficients) and their minibatch
// updates, and the read-bandwidth yardstick Sum32.
//
// Accumulation order. The sums are not left to right: the vector kernels
// keep several partial sums (four vector accumulators, each lane its own
// sum) and combine them in a fixed tree, and the Go twin keeps four scalar
// partial sums. For a given kernel set the result depends only on the
// values and the length, never on alignment, the thread count or the
// caller, so it is reproducible; between kernel sets it differs by
// rounding (|error| ≤ about len·ε·Σ|a[i]·x[i]|, as for any summation
// order). NaN in any operand gives NaN, and +Inf and −Inf together give
// NaN, as in a left-to-right sum.
//
// Axpy is elementwise, one fused multiply-add per element
// (y[i] = fma(alpha, x[i], y[i])): every kernel set, and any split of y,
// gives the same bits.

// DotF32F64 returns Σ float64(a[i])·x[i], summed in float64: a float32 row
// (of a Gram matrix) against float64 coefficients. Widening a float32 is
// exact, so the only roundings are those of the float64 sum. It panics if
// len(a) != len(x).
func DotF32F64(a []float32, x []float64) float64 { return active.DotF32F64(a, x) }

// Dot64 returns Σ a[i]·x[i] in float64. It panics if len(a) != len(x).
func Dot64(a, x []float64) float64 { return active.Dot64(a, x) }

// Dot32 returns Σ a[i]·x[i] summed in float32. It panics if
// len(a) != len(x).
func Dot32(a, x []float32) float32 { return active.Dot32(a, x) }

// DotRows4F32F64 sets dst[r] = DotF32F64(a[r*lda:r*lda+len(x)], x) for
// r = 0…3, bit for bit, reading x once for the four rows (a matrix–vector
// product's x then stays in L1 rather than being streamed from L2 for
// every row). It panics if lda < len(x) or len(a) < 3·lda+len(x).
func DotRows4F32F64(dst *[4]float64, a []float32, lda int, x []float64) {
	active.DotRows4F32F64(dst, a, lda, x)
}

// Dot64Rows4 is DotRows4F32F64 for a float64 matrix: dst[r] =
// Dot64(a[r*lda:r*lda+len(x)], x), bit for bit.
func Dot64Rows4(dst *[4]float64, a []float64, lda int, x []float64) {
	active.Dot64Rows4(dst, a, lda, x)
}

// AxpyF32F64 sets y[i] = fma(alpha, float64(a[i]), y[i]) for every i: adds
// alpha times a float32 row to a float64 vector with one rounding per
// element. It panics if len(a) != len(y).
func AxpyF32F64(alpha float64, a []float32, y []float64) { active.AxpyF32F64(alpha, a, y) }

// Axpy64 sets y[i] = fma(alpha, x[i], y[i]) for every i. It panics if
// len(x) != len(y).
func Axpy64(alpha float64, x, y []float64) { active.Axpy64(alpha, x, y) }

// Sum32 returns Σ a[i] summed in float32 in the documented order. It is a
// pure streaming read, one vector add per loaded vector, and serves as the
// memory read-bandwidth baseline of kernels that read a float32 matrix
// once; a long sum of large values loses precision as any float32 sum does.
func Sum32(a []float32) float32 { return active.Sum32(a) }

// Sum64 is Sum32 for float64.
func Sum64(a []float64) float64 { return active.Sum64(a) }

// Sum32Rows4 returns the sum of the first n elements of four rows,
// a[r*lda:r*lda+n] for r = 0…3, read side by side, one vector of each row
// in turn, as DotRows4F32F64 reads them: the read-bandwidth baseline of a
// matrix–vector product that streams four rows at a time. The order is
// fixed (a partial sum per row, then the rows' tails). It panics if
// lda < n or len(a) < 3·lda+n.
func Sum32Rows4(a []float32, lda, n int) float32 { return active.Sum32Rows4(a, lda, n) }

// Sum64Rows4 is Sum32Rows4 for float64.
func Sum64Rows4(a []float64, lda, n int) float64 { return active.Sum64Rows4(a, lda, n) }

// DotF32F64 is the package-level DotF32F64 on this kernel set.
func (k *Kernels) DotF32F64(a []float32, x []float64) float64 {
	if len(a) != len(x) {
		panic("asm: DotF32F64: len(a) != len(x)")
	}
	return k.dotF32F64(a, x)
}

// Dot64 is the package-level Dot64 on this kernel set.
func (k *Kernels) Dot64(a, x []float64) float64 {
	if len(a) != len(x) {
		panic("asm: Dot64: len(a) != len(x)")
	}
	return k.dot64(a, x)
}

// Dot32 is the package-level Dot32 on this kernel set.
func (k *Kernels) Dot32(a, x []float32) float32 {
	if len(a) != len(x) {
		panic("asm: Dot32: len(a) != len(x)")
	}
	return k.dot32(a, x)
}

// DotRows4F32F64 is the package-level DotRows4F32F64 on this kernel set.
func (k *Kernels) DotRows4F32F64(dst *[4]float64, a []float32, lda int, x []float64) {
	if lda < len(x) || len(a) < 3*lda+len(x) {
		panic("asm: DotRows4F32F64: a too short for four rows of len(x) at stride lda")
	}
	k.dotRows4F32F64(dst, a, lda, x)
}

// Dot64Rows4 is the package-level Dot64Rows4 on this kernel set.
func (k *Kernels) Dot64Rows4(dst *[4]float64, a []float64, lda int, x []float64) {
	if lda < len(x) || len(a) < 3*lda+len(x) {
		panic("asm: Dot64Rows4: a too short for four rows of len(x) at stride lda")
	}
	k.dot64Rows4(dst, a, lda, x)
}

// AxpyF32F64 is the package-level AxpyF32F64 on this kernel set.
func (k *Kernels) AxpyF32F64(alpha float64, a []float32, y []float64) {
	if len(a) != len(y) {
		panic("asm: AxpyF32F64: len(a) != len(y)")
	}
	k.axpyF32F64(alpha, a, y)
}

// Axpy64 is the package-level Axpy64 on this kernel set.
func (k *Kernels) Axpy64(alpha float64, x, y []float64) {
	if len(x) != len(y) {
		panic("asm: Axpy64: len(x) != len(y)")
	}
	k.axpy64(alpha, x, y)
}

// Sum32 is the package-level Sum32 on this kernel set.
func (k *Kernels) Sum32(a []float32) float32 { return k.sum32(a) }

// Sum64 is the package-level Sum64 on this kernel set.
func (k *Kernels) Sum64(a []float64) float64 { return k.sum64(a) }

// Sum32Rows4 is the package-level Sum32Rows4 on this kernel set.
func (k *Kernels) Sum32Rows4(a []float32, lda, n int) float32 {
	if n < 0 || lda < n || len(a) < 3*lda+n {
		panic("asm: Sum32Rows4: a too short for four rows of n at stride lda")
	}
	return k.sum32Rows4(a, lda, n)
}

// Sum64Rows4 is the package-level Sum64Rows4 on this kernel set.
func (k *Kernels) Sum64Rows4(a []float64, lda, n int) float64 {
	if n < 0 || lda < n || len(a) < 3*lda+n {
		panic("asm: Sum64Rows4: a too short for four rows of n at stride lda")
	}
	return k.sum64Rows4(a, lda, n)
}

// sumRows4Generic is the reference Sum32Rows4 and Sum64Rows4: the rows
// summed one after the other.
func sumRows4Generic[T float32 | float64](a []T, lda, n int) T {
	var s T
	for r := range 4 {
		s += sumGeneric(a[r*lda:][:n])
	}
	return s
}

// fillDot gives a kernel set without its own level-1 kernels (generic, or
// AVX2's missing four-row dots) the generic ones.
func fillDot(k *Kernels) {
	if k.dotF32F64 == nil {
		k.dotF32F64 = dotGeneric[float32, float64]
	}
	if k.dotRows4F32F64 == nil {
		dot := k.dotF32F64
		k.dotRows4F32F64 = func(dst *[4]float64, a []float32, lda int, x []float64) {
			for r := range dst {
				dst[r] = dot(a[r*lda:][:len(x)], x)
			}
		}
	}
	if k.dot64 == nil {
		k.dot64 = dotGeneric[float64, float64]
	}
	if k.dot64Rows4 == nil {
		dot := k.dot64
		k.dot64Rows4 = func(dst *[4]float64, a []float64, lda int, x []float64) {
			for r := range dst {
				dst[r] = dot(a[r*lda:][:len(x)], x)
			}
		}
	}
	if k.dot32 == nil {
		k.dot32 = dotGeneric[float32, float32]
	}
	if k.axpyF32F64 == nil {
		k.axpyF32F64 = axpyF32F64Generic
	}
	if k.axpy64 == nil {
		k.axpy64 = axpy64Generic
	}
	if k.sum32 == nil {
		k.sum32 = sumGeneric[float32]
	}
	if k.sum64 == nil {
		k.sum64 = sumGeneric[float64]
	}
	if k.sum32Rows4 == nil {
		k.sum32Rows4 = sumRows4Generic[float32]
	}
	if k.sum64Rows4 == nil {
		k.sum64Rows4 = sumRows4Generic[float64]
	}
}

// The wrappers of the assembly level-1 kernels (dot_amd64.go,
// dot_arm64.go): each kernel handles a length that is a multiple of one
// vector, the wrapper calls it on the longest such prefix and finishes the
// tail with the Go twin.

// dotVec returns a dot-product wrapper that runs blocks on multiples of
// vec elements and the Go twin on the tail.
func dotVec[A, X float32 | float64](vec int, blocks func(a []A, x []X) X) func(a []A, x []X) X {
	return func(a []A, x []X) X {
		x = x[:len(a)]
		n := len(a) - len(a)%vec
		if n == 0 {
			return dotGeneric(a, x)
		}
		s := blocks(a[:n], x[:n])
		if n == len(a) {
			return s
		}
		return s + dotGeneric(a[n:], x[n:])
	}
}

// sumVec is dotVec for a sum.
func sumVec[T float32 | float64](vec int, blocks func(a []T) T) func(a []T) T {
	return func(a []T) T {
		n := len(a) - len(a)%vec
		if n == 0 {
			return sumGeneric(a)
		}
		s := blocks(a[:n])
		if n == len(a) {
			return s
		}
		return s + sumGeneric(a[n:])
	}
}

// axpyVec is dotVec for an axpy; being elementwise, the split does not
// change any result.
func axpyVec[A float32 | float64](vec int, blocks func(alpha float64, a []A, y []float64)) func(alpha float64, a []A, y []float64) {
	return func(alpha float64, a []A, y []float64) {
		y = y[:len(a)]
		n := len(a) - len(a)%vec
		blocks(alpha, a[:n], y[:n])
		axpyGeneric(alpha, a[n:], y[n:])
	}
}

// dotRows4Vec returns the four-row wrapper for blocks on multiples of vec
// elements; it sums each row exactly as dotVec's wrapper does.
func dotRows4Vec[A float32 | float64](vec int, blocks func(a []A, lda int, x []float64, dst *[4]float64)) func(dst *[4]float64, a []A, lda int, x []float64) {
	return func(dst *[4]float64, a []A, lda int, x []float64) {
		m := len(x)
		n := m - m%vec
		if n == 0 {
			for r := range dst {
				dst[r] = dotGeneric(a[r*lda:][:m], x)
			}
			return
		}
		blocks(a, lda, x[:n], dst)
		if n < m {
			for r := range dst {
				dst[r] += dotGeneric(a[r*lda+n:][:m-n], x[n:])
			}
		}
	}
}

// sumRows4Vec returns the four-row sum wrapper for blocks on multiples of
// vec elements; the tail of each row is added in Go.
func sumRows4Vec[T float32 | float64](vec int, blocks func(a []T, lda, n int) T) func(a []T, lda, n int) T {
	return func(a []T, lda, n int) T {
		m := n - n%vec
		var s T
		if m > 0 {
			s = blocks(a, lda, m)
		}
		if m < n {
			for r := range 4 {
				s += sumGeneric(a[r*lda+m:][:n-m])
			}
		}
		return s
	}
}
