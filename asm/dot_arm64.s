//go:build gc && !purego

#include "textflag.h"

// Dot products, axpy and sums on NEON (ASIMD, baseline on arm64). Each
// kernel takes slices whose length is a multiple of one step of its
// single-vector loop (2 elements for the float64 results, 4 for the float32
// ones); the Go wrappers (dot.go) finish the shorter tail.
//
// Accumulation order (dot and sum): four vector accumulators s0…s3; the
// main loop adds vector 4q+r of the products into s_r (8 float64 or 16
// float32 elements per iteration), then the remaining single vectors all go
// into s0; the result is ((s0+s1)+(s2+s3)) with its lanes added pairwise
// by FADDP: l0+l1 for float64, (l0+l1)+(l2+l3) for float32. DotF32F64
// widens each float32 pair with FCVTL (exact), so it sums exactly as Dot64
// sums the widened values. The order depends only on the length, never on
// alignment or threads. axpy is elementwise, y[i] = fma(alpha, x[i], y[i])
// by FMLA, which is fused, so it matches the Go twin bit for bit.
//
// Speed has not been measured: these kernels were only run under qemu,
// which shows correctness, not speed.
//
// The Go assembler lacks the vector FADD, FADDP and FCVTL, so they are
// WORD encodings behind macros named after their mnemonics (operands are
// register numbers; the encodings were checked with
// aarch64-linux-gnu-objdump).

// fadd vd.2d, vn.2d, vm.2d and fadd vd.4s, vn.4s, vm.4s
#define FADD_2D(d, n, m) WORD $(0x4e60d400 | (m)<<16 | (n)<<5 | (d))
#define FADD_4S(d, n, m) WORD $(0x4e20d400 | (m)<<16 | (n)<<5 | (d))
// faddp vd.4s, vn.4s, vm.4s: vd = {n0+n1, n2+n3, m0+m1, m2+m3}
#define FADDP_4S(d, n, m) WORD $(0x6e20d400 | (m)<<16 | (n)<<5 | (d))
// faddp dd, vn.2d and faddp sd, vn.2s: the two low lanes added
#define FADDP_D(d, n) WORD $(0x7e70d800 | (n)<<5 | (d))
#define FADDP_S(d, n) WORD $(0x7e30d800 | (n)<<5 | (d))
// fcvtl vd.2d, vn.2s (lanes 0, 1) and fcvtl2 vd.2d, vn.4s (lanes 2, 3)
#define FCVTL(d, n) WORD $(0x0e617800 | (n)<<5 | (d))
#define FCVTL2(d, n) WORD $(0x4e617800 | (n)<<5 | (d))

// REDUCE_D leaves ((s0+s1)+(s2+s3)) summed across its two lanes in the low
// lane of V(s0), for float64 accumulators V(s0)…V(s0+3).
#define REDUCE_D(s0) \
	FADD_2D(s0, s0, (s0)+1); \
	FADD_2D((s0)+2, (s0)+2, (s0)+3); \
	FADD_2D(s0, s0, (s0)+2); \
	FADDP_D(s0, s0)

// REDUCE_S is REDUCE_D for float32 accumulators V(s0)…V(s0+3).
#define REDUCE_S(s0) \
	FADD_4S(s0, s0, (s0)+1); \
	FADD_4S((s0)+2, (s0)+2, (s0)+3); \
	FADD_4S(s0, s0, (s0)+2); \
	FADDP_4S(s0, s0, s0); \
	FADDP_S(s0, s0)

#define ZERO4(a, b, c, d) \
	VEOR a.B16, a.B16, a.B16; \
	VEOR b.B16, b.B16, b.B16; \
	VEOR c.B16, c.B16, c.B16; \
	VEOR d.B16, d.B16, d.B16

// func dot64NEON(a, x []float64) float64
// len(a) = len(x), a multiple of 2.
TEXT ·dot64NEON(SB), NOSPLIT, $0-56
	MOVD a_base+0(FP), R0
	MOVD a_len+8(FP), R2
	MOVD x_base+24(FP), R1
	ZERO4(V0, V1, V2, V3)
	CMP  $8, R2
	BLT  one

loop4:
	VLD1.P 64(R0), [V4.D2, V5.D2, V6.D2, V7.D2]
	VLD1.P 64(R1), [V16.D2, V17.D2, V18.D2, V19.D2]
	VFMLA  V16.D2, V4.D2, V0.D2
	VFMLA  V17.D2, V5.D2, V1.D2
	VFMLA  V18.D2, V6.D2, V2.D2
	VFMLA  V19.D2, V7.D2, V3.D2
	SUB    $8, R2, R2
	CMP    $8, R2
	BGE    loop4

one:
	CBZ R2, reduce

loop1:
	VLD1.P 16(R0), [V4.D2]
	VLD1.P 16(R1), [V16.D2]
	VFMLA  V16.D2, V4.D2, V0.D2
	SUBS   $2, R2, R2
	BNE    loop1

reduce:
	REDUCE_D(0)
	FMOVD F0, ret+48(FP)
	RET

// func dotF32F64NEON(a []float32, x []float64) float64
// len(a) = len(x), a multiple of 2. The float32 values are widened by
// FCVTL and FCVTL2, then summed exactly as dot64NEON sums.
TEXT ·dotF32F64NEON(SB), NOSPLIT, $0-56
	MOVD a_base+0(FP), R0
	MOVD a_len+8(FP), R2
	MOVD x_base+24(FP), R1
	ZERO4(V0, V1, V2, V3)
	CMP  $8, R2
	BLT  one

loop4:
	VLD1.P 32(R0), [V4.S4, V5.S4]
	VLD1.P 64(R1), [V16.D2, V17.D2, V18.D2, V19.D2]
	FCVTL(20, 4)
	FCVTL2(21, 4)
	FCVTL(22, 5)
	FCVTL2(23, 5)
	VFMLA  V16.D2, V20.D2, V0.D2
	VFMLA  V17.D2, V21.D2, V1.D2
	VFMLA  V18.D2, V22.D2, V2.D2
	VFMLA  V19.D2, V23.D2, V3.D2
	SUB    $8, R2, R2
	CMP    $8, R2
	BGE    loop4

one:
	CBZ R2, reduce

loop1:
	VLD1.P 8(R0), [V4.S2]
	VLD1.P 16(R1), [V16.D2]
	FCVTL(20, 4)
	VFMLA  V16.D2, V20.D2, V0.D2
	SUBS   $2, R2, R2
	BNE    loop1

reduce:
	REDUCE_D(0)
	FMOVD F0, ret+48(FP)
	RET

// func dot32NEON(a, x []float32) float32
// len(a) = len(x), a multiple of 4.
TEXT ·dot32NEON(SB), NOSPLIT, $0-52
	MOVD a_base+0(FP), R0
	MOVD a_len+8(FP), R2
	MOVD x_base+24(FP), R1
	ZERO4(V0, V1, V2, V3)
	CMP  $16, R2
	BLT  one

loop4:
	VLD1.P 64(R0), [V4.S4, V5.S4, V6.S4, V7.S4]
	VLD1.P 64(R1), [V16.S4, V17.S4, V18.S4, V19.S4]
	VFMLA  V16.S4, V4.S4, V0.S4
	VFMLA  V17.S4, V5.S4, V1.S4
	VFMLA  V18.S4, V6.S4, V2.S4
	VFMLA  V19.S4, V7.S4, V3.S4
	SUB    $16, R2, R2
	CMP    $16, R2
	BGE    loop4

one:
	CBZ R2, reduce

loop1:
	VLD1.P 16(R0), [V4.S4]
	VLD1.P 16(R1), [V16.S4]
	VFMLA  V16.S4, V4.S4, V0.S4
	SUBS   $4, R2, R2
	BNE    loop1

reduce:
	REDUCE_S(0)
	FMOVS F0, ret+48(FP)
	RET

// func sum64NEON(a []float64) float64
// len(a) a multiple of 2.
TEXT ·sum64NEON(SB), NOSPLIT, $0-32
	MOVD a_base+0(FP), R0
	MOVD a_len+8(FP), R2
	ZERO4(V0, V1, V2, V3)
	CMP  $8, R2
	BLT  one

loop4:
	VLD1.P 64(R0), [V4.D2, V5.D2, V6.D2, V7.D2]
	FADD_2D(0, 0, 4)
	FADD_2D(1, 1, 5)
	FADD_2D(2, 2, 6)
	FADD_2D(3, 3, 7)
	SUB    $8, R2, R2
	CMP    $8, R2
	BGE    loop4

one:
	CBZ R2, reduce

loop1:
	VLD1.P 16(R0), [V4.D2]
	FADD_2D(0, 0, 4)
	SUBS   $2, R2, R2
	BNE    loop1

reduce:
	REDUCE_D(0)
	FMOVD F0, ret+24(FP)
	RET

// func sum32NEON(a []float32) float32
// len(a) a multiple of 4.
TEXT ·sum32NEON(SB), NOSPLIT, $0-28
	MOVD a_base+0(FP), R0
	MOVD a_len+8(FP), R2
	ZERO4(V0, V1, V2, V3)
	CMP  $16, R2
	BLT  one

loop4:
	VLD1.P 64(R0), [V4.S4, V5.S4, V6.S4, V7.S4]
	FADD_4S(0, 0, 4)
	FADD_4S(1, 1, 5)
	FADD_4S(2, 2, 6)
	FADD_4S(3, 3, 7)
	SUB    $16, R2, R2
	CMP    $16, R2
	BGE    loop4

one:
	CBZ R2, reduce

loop1:
	VLD1.P 16(R0), [V4.S4]
	FADD_4S(0, 0, 4)
	SUBS   $4, R2, R2
	BNE    loop1

reduce:
	REDUCE_S(0)
	FMOVS F0, ret+24(FP)
	RET

// func axpy64NEON(alpha float64, x, y []float64)
// len(x) = len(y), a multiple of 2. y is loaded, updated by FMLA with
// alpha in every lane of V31, and stored back.
TEXT ·axpy64NEON(SB), NOSPLIT, $0-56
	FMOVD alpha+0(FP), F31
	VDUP  V31.D[0], V31.D2
	MOVD  x_base+8(FP), R0
	MOVD  x_len+16(FP), R2
	MOVD  y_base+32(FP), R1
	CMP   $8, R2
	BLT   one

loop4:
	VLD1.P 64(R0), [V0.D2, V1.D2, V2.D2, V3.D2]
	VLD1   (R1), [V4.D2, V5.D2, V6.D2, V7.D2]
	VFMLA  V31.D2, V0.D2, V4.D2
	VFMLA  V31.D2, V1.D2, V5.D2
	VFMLA  V31.D2, V2.D2, V6.D2
	VFMLA  V31.D2, V3.D2, V7.D2
	VST1.P [V4.D2, V5.D2, V6.D2, V7.D2], 64(R1)
	SUB    $8, R2, R2
	CMP    $8, R2
	BGE    loop4

one:
	CBZ R2, done

loop1:
	VLD1.P 16(R0), [V0.D2]
	VLD1   (R1), [V4.D2]
	VFMLA  V31.D2, V0.D2, V4.D2
	VST1.P [V4.D2], 16(R1)
	SUBS   $2, R2, R2
	BNE    loop1

done:
	RET

// func axpyF32F64NEON(alpha float64, a []float32, y []float64)
// len(a) = len(y), a multiple of 2: axpy64NEON on the widened a.
TEXT ·axpyF32F64NEON(SB), NOSPLIT, $0-56
	FMOVD alpha+0(FP), F31
	VDUP  V31.D[0], V31.D2
	MOVD  a_base+8(FP), R0
	MOVD  a_len+16(FP), R2
	MOVD  y_base+32(FP), R1
	CMP   $8, R2
	BLT   one

loop4:
	VLD1.P 32(R0), [V16.S4, V17.S4]
	VLD1   (R1), [V4.D2, V5.D2, V6.D2, V7.D2]
	FCVTL(0, 16)
	FCVTL2(1, 16)
	FCVTL(2, 17)
	FCVTL2(3, 17)
	VFMLA  V31.D2, V0.D2, V4.D2
	VFMLA  V31.D2, V1.D2, V5.D2
	VFMLA  V31.D2, V2.D2, V6.D2
	VFMLA  V31.D2, V3.D2, V7.D2
	VST1.P [V4.D2, V5.D2, V6.D2, V7.D2], 64(R1)
	SUB    $8, R2, R2
	CMP    $8, R2
	BGE    loop4

one:
	CBZ R2, done

loop1:
	VLD1.P 8(R0), [V16.S2]
	VLD1   (R1), [V4.D2]
	FCVTL(0, 16)
	VFMLA  V31.D2, V0.D2, V4.D2
	VST1.P [V4.D2], 16(R1)
	SUBS   $2, R2, R2
	BNE    loop1

done:
	RET

// Four rows at once. R0, R3, R4 and R5 point at rows 0…3 (lda apart),
// R1 at x; row r keeps its own four accumulators V(4r)…V(4r+3) and is
// summed exactly as the one-row kernel sums it.

// func dotRows4F32F64NEON(a []float32, lda int, x []float64, dst *[4]float64)
// len(x) a multiple of 2; rows r < 4 start at a[r*lda]. Each row is summed
// exactly as dotF32F64NEON sums it.
TEXT ·dotRows4F32F64NEON(SB), NOSPLIT, $0-64
	MOVD a_base+0(FP), R0
	MOVD lda+24(FP), R6
	LSL  $2, R6, R6
	ADD  R6, R0, R3
	ADD  R6, R3, R4
	ADD  R6, R4, R5
	MOVD x_base+32(FP), R1
	MOVD x_len+40(FP), R2
	MOVD dst+56(FP), R7
	ZERO4(V0, V1, V2, V3)
	ZERO4(V4, V5, V6, V7)
	ZERO4(V8, V9, V10, V11)
	ZERO4(V12, V13, V14, V15)
	CMP  $8, R2
	BLT  one

loop4:
	VLD1.P 64(R1), [V16.D2, V17.D2, V18.D2, V19.D2]
	VLD1.P 32(R0), [V20.S4, V21.S4]
	FCVTL(24, 20)
	FCVTL2(25, 20)
	FCVTL(26, 21)
	FCVTL2(27, 21)
	VFMLA  V16.D2, V24.D2, V0.D2
	VFMLA  V17.D2, V25.D2, V1.D2
	VFMLA  V18.D2, V26.D2, V2.D2
	VFMLA  V19.D2, V27.D2, V3.D2
	VLD1.P 32(R3), [V20.S4, V21.S4]
	FCVTL(24, 20)
	FCVTL2(25, 20)
	FCVTL(26, 21)
	FCVTL2(27, 21)
	VFMLA  V16.D2, V24.D2, V4.D2
	VFMLA  V17.D2, V25.D2, V5.D2
	VFMLA  V18.D2, V26.D2, V6.D2
	VFMLA  V19.D2, V27.D2, V7.D2
	VLD1.P 32(R4), [V20.S4, V21.S4]
	FCVTL(24, 20)
	FCVTL2(25, 20)
	FCVTL(26, 21)
	FCVTL2(27, 21)
	VFMLA  V16.D2, V24.D2, V8.D2
	VFMLA  V17.D2, V25.D2, V9.D2
	VFMLA  V18.D2, V26.D2, V10.D2
	VFMLA  V19.D2, V27.D2, V11.D2
	VLD1.P 32(R5), [V20.S4, V21.S4]
	FCVTL(24, 20)
	FCVTL2(25, 20)
	FCVTL(26, 21)
	FCVTL2(27, 21)
	VFMLA  V16.D2, V24.D2, V12.D2
	VFMLA  V17.D2, V25.D2, V13.D2
	VFMLA  V18.D2, V26.D2, V14.D2
	VFMLA  V19.D2, V27.D2, V15.D2
	SUB    $8, R2, R2
	CMP    $8, R2
	BGE    loop4

one:
	CBZ R2, reduce

loop1:
	VLD1.P 16(R1), [V16.D2]
	VLD1.P 8(R0), [V20.S2]
	VLD1.P 8(R3), [V21.S2]
	VLD1.P 8(R4), [V22.S2]
	VLD1.P 8(R5), [V23.S2]
	FCVTL(24, 20)
	FCVTL(25, 21)
	FCVTL(26, 22)
	FCVTL(27, 23)
	VFMLA  V16.D2, V24.D2, V0.D2
	VFMLA  V16.D2, V25.D2, V4.D2
	VFMLA  V16.D2, V26.D2, V8.D2
	VFMLA  V16.D2, V27.D2, V12.D2
	SUBS   $2, R2, R2
	BNE    loop1

reduce:
	REDUCE_D(0)
	REDUCE_D(4)
	REDUCE_D(8)
	REDUCE_D(12)
	FMOVD F0, 0(R7)
	FMOVD F4, 8(R7)
	FMOVD F8, 16(R7)
	FMOVD F12, 24(R7)
	RET

// func dotRows4F64NEON(a []float64, lda int, x []float64, dst *[4]float64)
// len(x) a multiple of 2; rows r < 4 start at a[r*lda]. Each row is summed
// exactly as dot64NEON sums it.
TEXT ·dotRows4F64NEON(SB), NOSPLIT, $0-64
	MOVD a_base+0(FP), R0
	MOVD lda+24(FP), R6
	LSL  $3, R6, R6
	ADD  R6, R0, R3
	ADD  R6, R3, R4
	ADD  R6, R4, R5
	MOVD x_base+32(FP), R1
	MOVD x_len+40(FP), R2
	MOVD dst+56(FP), R7
	ZERO4(V0, V1, V2, V3)
	ZERO4(V4, V5, V6, V7)
	ZERO4(V8, V9, V10, V11)
	ZERO4(V12, V13, V14, V15)
	CMP  $8, R2
	BLT  one

loop4:
	VLD1.P 64(R1), [V16.D2, V17.D2, V18.D2, V19.D2]
	VLD1.P 64(R0), [V20.D2, V21.D2, V22.D2, V23.D2]
	VLD1.P 64(R3), [V24.D2, V25.D2, V26.D2, V27.D2]
	VFMLA  V16.D2, V20.D2, V0.D2
	VFMLA  V17.D2, V21.D2, V1.D2
	VFMLA  V18.D2, V22.D2, V2.D2
	VFMLA  V19.D2, V23.D2, V3.D2
	VLD1.P 64(R4), [V20.D2, V21.D2, V22.D2, V23.D2]
	VFMLA  V16.D2, V24.D2, V4.D2
	VFMLA  V17.D2, V25.D2, V5.D2
	VFMLA  V18.D2, V26.D2, V6.D2
	VFMLA  V19.D2, V27.D2, V7.D2
	VLD1.P 64(R5), [V24.D2, V25.D2, V26.D2, V27.D2]
	VFMLA  V16.D2, V20.D2, V8.D2
	VFMLA  V17.D2, V21.D2, V9.D2
	VFMLA  V18.D2, V22.D2, V10.D2
	VFMLA  V19.D2, V23.D2, V11.D2
	VFMLA  V16.D2, V24.D2, V12.D2
	VFMLA  V17.D2, V25.D2, V13.D2
	VFMLA  V18.D2, V26.D2, V14.D2
	VFMLA  V19.D2, V27.D2, V15.D2
	SUB    $8, R2, R2
	CMP    $8, R2
	BGE    loop4

one:
	CBZ R2, reduce

loop1:
	VLD1.P 16(R1), [V16.D2]
	VLD1.P 16(R0), [V20.D2]
	VLD1.P 16(R3), [V21.D2]
	VLD1.P 16(R4), [V22.D2]
	VLD1.P 16(R5), [V23.D2]
	VFMLA  V16.D2, V20.D2, V0.D2
	VFMLA  V16.D2, V21.D2, V4.D2
	VFMLA  V16.D2, V22.D2, V8.D2
	VFMLA  V16.D2, V23.D2, V12.D2
	SUBS   $2, R2, R2
	BNE    loop1

reduce:
	REDUCE_D(0)
	REDUCE_D(4)
	REDUCE_D(8)
	REDUCE_D(12)
	FMOVD F0, 0(R7)
	FMOVD F4, 8(R7)
	FMOVD F8, 16(R7)
	FMOVD F12, 24(R7)
	RET

// func sum32Rows4NEON(a []float32, lda, n int) float32
// n a multiple of 4; rows r < 4 start at a[r*lda]. The four rows are read
// side by side, one vector of each per iteration, row r into accumulator
// r; the result is ((s0+s1)+(s2+s3)) with its lanes added pairwise.
TEXT ·sum32Rows4NEON(SB), NOSPLIT, $0-44
	MOVD a_base+0(FP), R0
	MOVD lda+24(FP), R6
	LSL  $2, R6, R6
	ADD  R6, R0, R3
	ADD  R6, R3, R4
	ADD  R6, R4, R5
	MOVD n+32(FP), R2
	ZERO4(V0, V1, V2, V3)
	CBZ  R2, reduce

loop:
	VLD1.P 16(R0), [V4.S4]
	VLD1.P 16(R3), [V5.S4]
	VLD1.P 16(R4), [V6.S4]
	VLD1.P 16(R5), [V7.S4]
	FADD_4S(0, 0, 4)
	FADD_4S(1, 1, 5)
	FADD_4S(2, 2, 6)
	FADD_4S(3, 3, 7)
	SUBS   $4, R2, R2
	BNE    loop

reduce:
	REDUCE_S(0)
	FMOVS F0, ret+40(FP)
	RET

// func sum64Rows4NEON(a []float64, lda, n int) float64
// n a multiple of 2; otherwise as sum32Rows4NEON.
TEXT ·sum64Rows4NEON(SB), NOSPLIT, $0-48
	MOVD a_base+0(FP), R0
	MOVD lda+24(FP), R6
	LSL  $3, R6, R6
	ADD  R6, R0, R3
	ADD  R6, R3, R4
	ADD  R6, R4, R5
	MOVD n+32(FP), R2
	ZERO4(V0, V1, V2, V3)
	CBZ  R2, reduce

loop:
	VLD1.P 16(R0), [V4.D2]
	VLD1.P 16(R3), [V5.D2]
	VLD1.P 16(R4), [V6.D2]
	VLD1.P 16(R5), [V7.D2]
	FADD_2D(0, 0, 4)
	FADD_2D(1, 1, 5)
	FADD_2D(2, 2, 6)
	FADD_2D(3, 3, 7)
	SUBS   $2, R2, R2
	BNE    loop

reduce:
	REDUCE_D(0)
	FMOVD F0, ret+40(FP)
	RET
