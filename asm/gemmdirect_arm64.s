//go:build gc && !purego

#include "textflag.h"

// NEON direct GEMM kernels (contract in gemmdirect.go): one tile of
// C = alpha·op(A)·B + beta·C read from the operands as stored, on the tiles
// of the packed kernels (gemm_arm64.s): float32 8×12 with the accumulator
// of row i, columns 4j…4j+3 in V(3i+j), float64 6×8 with row i, columns
// 2j, 2j+1 in V(4i+j). Speed has not been measured: these kernels were
// only run under qemu, which shows correctness, not speed.
//
// Each k step gathers the column A(0…m−1, p) into lanes (rows 4g…4g+3 of
// float32 in V24+g, rows 2g, 2g+1 of float64 in V24+g) from one pointer
// per row, each advanced by ps: the first lane of a register by a scalar
// FMOV load, which clears the other lanes and so starts a new dependency
// chain every step, the others by lane loads. Rows at and past m read row
// m−1 again (their sums are never stored), so nothing outside A's m rows
// is read. Row p of B is loaded as whole vectors; when n is not a multiple
// of the vector, the last vector is loaded from column n−4 (float32) or
// n−2 (float64), overlapping the one before it, and one narrower than a
// vector (n < 4, or n = 1 for float64) by scalar and lane loads of its n
// columns. So no element outside the m×n corner of B is read either. The
// k loop, one for each number of row groups and kind of B row, adds the
// products with by-element FMLA in increasing p from zero, as the Go twin
// does with math.FMA.
//
// The store walks the m rows as the edge kernels do (the accumulator block
// shifted down one row per row stored). Each row loads the C vectors it
// needs (from the same overlapping or narrow addresses as B) before it
// stores any, so an overlapped column is written twice with the same
// value. With beta = 0 (or −0) C is not read and the row is alpha·sum by
// FMUL; otherwise it is FMLA(beta·C, alpha, sum): beta·C rounded, then one
// fused multiply-add. For beta = 1 that is the twin's fma(alpha, s, C),
// since 1·C = C exactly (NaN payloads aside).
//
// The Go assembler lacks the by-element FMLA and the vector FMUL, so they
// are WORD encodings behind macros named after their mnemonics (operands
// are register numbers or lane indexes; encodings checked with
// aarch64-linux-gnu-objdump).

// fmla vd.4s, vn.4s, vm.s[i] and fmla vd.2d, vn.2d, vm.d[i]
#define FMLA_S(d, n, m, i) WORD $(0x4f801000 | (((i)&1)<<21) | ((m)<<16) | (((i)>>1)<<11) | ((n)<<5) | (d))
#define FMLA_D(d, n, m, i) WORD $(0x4fc01000 | ((m)<<16) | ((i)<<11) | ((n)<<5) | (d))
// fmul vd.4s, vn.4s, vm.4s and fmul vd.2d, vn.2d, vm.2d
#define FMUL_4S(d, n, m) WORD $(0x6e20dc00 | (m)<<16 | (n)<<5 | (d))
#define FMUL_2D(d, n, m) WORD $(0x6e60dc00 | (m)<<16 | (n)<<5 | (d))

// SHIFT_ROWS3 and SHIFT_ROWS4 move V3…V23 or V4…V23 down to V0.
#define SHIFT_ROWS3 \
	VMOV V3.B16, V0.B16; \
	VMOV V4.B16, V1.B16; \
	VMOV V5.B16, V2.B16; \
	VMOV V6.B16, V3.B16; \
	VMOV V7.B16, V4.B16; \
	VMOV V8.B16, V5.B16; \
	VMOV V9.B16, V6.B16; \
	VMOV V10.B16, V7.B16; \
	VMOV V11.B16, V8.B16; \
	VMOV V12.B16, V9.B16; \
	VMOV V13.B16, V10.B16; \
	VMOV V14.B16, V11.B16; \
	VMOV V15.B16, V12.B16; \
	VMOV V16.B16, V13.B16; \
	VMOV V17.B16, V14.B16; \
	VMOV V18.B16, V15.B16; \
	VMOV V19.B16, V16.B16; \
	VMOV V20.B16, V17.B16; \
	VMOV V21.B16, V18.B16; \
	VMOV V22.B16, V19.B16; \
	VMOV V23.B16, V20.B16

#define SHIFT_ROWS4 \
	VMOV V4.B16, V0.B16; \
	VMOV V5.B16, V1.B16; \
	VMOV V6.B16, V2.B16; \
	VMOV V7.B16, V3.B16; \
	VMOV V8.B16, V4.B16; \
	VMOV V9.B16, V5.B16; \
	VMOV V10.B16, V6.B16; \
	VMOV V11.B16, V7.B16; \
	VMOV V12.B16, V8.B16; \
	VMOV V13.B16, V9.B16; \
	VMOV V14.B16, V10.B16; \
	VMOV V15.B16, V11.B16; \
	VMOV V16.B16, V12.B16; \
	VMOV V17.B16, V13.B16; \
	VMOV V18.B16, V14.B16; \
	VMOV V19.B16, V15.B16; \
	VMOV V20.B16, V16.B16; \
	VMOV V21.B16, V17.B16; \
	VMOV V22.B16, V18.B16; \
	VMOV V23.B16, V19.B16

// func gemmDirectNEON8x12(k, m, n int, alpha float32, a []float32, rs, ps int, b []float32, ldb int, beta float32, c []float32, ldc int)
// 1 ≤ k, 1 ≤ m ≤ 8, 1 ≤ n ≤ 12; the wrapper has checked that a, b and c
// hold every element the tile uses.
TEXT ·gemmDirectNEON8x12(SB), NOSPLIT, $0-144
	MOVD k+0(FP), R0
	MOVD m+8(FP), R15
	MOVD n+16(FP), R16
	MOVD a_base+32(FP), R4
	MOVD rs+56(FP), R13
	LSL  $2, R13, R13 // rs in bytes
	MOVD ps+64(FP), R3
	LSL  $2, R3, R3   // ps in bytes
	MOVD b_base+72(FP), R1
	MOVD ldb+96(FP), R2
	LSL  $2, R2, R2   // ldb in bytes

	// Row pointers R4…R11: row i, or row m−1 for i ≥ m.
	ADD  R13, R4, R14
	CMP  $1, R15
	CSEL GT, R14, R4, R5
	ADD  R13, R5, R14
	CMP  $2, R15
	CSEL GT, R14, R5, R6
	ADD  R13, R6, R14
	CMP  $3, R15
	CSEL GT, R14, R6, R7
	ADD  R13, R7, R14
	CMP  $4, R15
	CSEL GT, R14, R7, R8
	ADD  R13, R8, R14
	CMP  $5, R15
	CSEL GT, R14, R8, R9
	ADD  R13, R9, R14
	CMP  $6, R15
	CSEL GT, R14, R9, R10
	ADD  R13, R10, R14
	CMP  $7, R15
	CSEL GT, R14, R10, R11

	// R12 points at the last B vector of row p: column n−4 when n ≥ 4.
	SUB  $4, R16, R12
	CMP  $0, R12
	CSEL LT, ZR, R12, R12
	LSL  $2, R12, R12
	ADD  R1, R12, R12

	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	VEOR V4.B16, V4.B16, V4.B16
	VEOR V5.B16, V5.B16, V5.B16
	VEOR V6.B16, V6.B16, V6.B16
	VEOR V7.B16, V7.B16, V7.B16
	VEOR V8.B16, V8.B16, V8.B16
	VEOR V9.B16, V9.B16, V9.B16
	VEOR V10.B16, V10.B16, V10.B16
	VEOR V11.B16, V11.B16, V11.B16
	VEOR V12.B16, V12.B16, V12.B16
	VEOR V13.B16, V13.B16, V13.B16
	VEOR V14.B16, V14.B16, V14.B16
	VEOR V15.B16, V15.B16, V15.B16
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16
	VEOR V20.B16, V20.B16, V20.B16
	VEOR V21.B16, V21.B16, V21.B16
	VEOR V22.B16, V22.B16, V22.B16
	VEOR V23.B16, V23.B16, V23.B16

	CMP  $4, R15
	BLE  rows1
	B    rows2

rows1:
	CMP  $1, R16
	BEQ  k1n1
	CMP  $2, R16
	BEQ  k1n2
	CMP  $3, R16
	BEQ  k1n3
	CMP  $4, R16
	BLE  k1v1
	CMP  $8, R16
	BLE  k1v2
	B    k1v3

rows2:
	CMP  $1, R16
	BEQ  k2n1
	CMP  $2, R16
	BEQ  k2n2
	CMP  $3, R16
	BEQ  k2n3
	CMP  $4, R16
	BLE  k2v1
	CMP  $8, R16
	BLE  k2v2
	B    k2v3

k1n1:
	FMOVS  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.S[1]
	VLD1.P (R6)(R3), V24.S[2]
	VLD1.P (R7)(R3), V24.S[3]
	FMOVS  (R1), F26
	ADD    R2, R1, R1
	FMLA_S(0, 26, 24, 0)
	FMLA_S(3, 26, 24, 1)
	FMLA_S(6, 26, 24, 2)
	FMLA_S(9, 26, 24, 3)
	SUBS   $1, R0, R0
	BNE    k1n1
	B      store

k1n2:
	FMOVS  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.S[1]
	VLD1.P (R6)(R3), V24.S[2]
	VLD1.P (R7)(R3), V24.S[3]
	FMOVD  (R1), F26
	ADD    R2, R1, R1
	FMLA_S(0, 26, 24, 0)
	FMLA_S(3, 26, 24, 1)
	FMLA_S(6, 26, 24, 2)
	FMLA_S(9, 26, 24, 3)
	SUBS   $1, R0, R0
	BNE    k1n2
	B      store

k1n3:
	FMOVS  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.S[1]
	VLD1.P (R6)(R3), V24.S[2]
	VLD1.P (R7)(R3), V24.S[3]
	FMOVD  (R1), F26
	ADD    $8, R1, R14
	VLD1   (R14), V26.S[2]
	ADD    R2, R1, R1
	FMLA_S(0, 26, 24, 0)
	FMLA_S(3, 26, 24, 1)
	FMLA_S(6, 26, 24, 2)
	FMLA_S(9, 26, 24, 3)
	SUBS   $1, R0, R0
	BNE    k1n3
	B      store

k1v1:
	FMOVS  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.S[1]
	VLD1.P (R6)(R3), V24.S[2]
	VLD1.P (R7)(R3), V24.S[3]
	VLD1.P (R1)(R2), [V26.S4]
	FMLA_S(0, 26, 24, 0)
	FMLA_S(3, 26, 24, 1)
	FMLA_S(6, 26, 24, 2)
	FMLA_S(9, 26, 24, 3)
	SUBS   $1, R0, R0
	BNE    k1v1
	B      store

k1v2:
	FMOVS  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.S[1]
	VLD1.P (R6)(R3), V24.S[2]
	VLD1.P (R7)(R3), V24.S[3]
	VLD1   (R1), [V26.S4]
	VLD1.P (R12)(R2), [V27.S4]
	ADD    R2, R1, R1
	FMLA_S(0, 26, 24, 0)
	FMLA_S(1, 27, 24, 0)
	FMLA_S(3, 26, 24, 1)
	FMLA_S(4, 27, 24, 1)
	FMLA_S(6, 26, 24, 2)
	FMLA_S(7, 27, 24, 2)
	FMLA_S(9, 26, 24, 3)
	FMLA_S(10, 27, 24, 3)
	SUBS   $1, R0, R0
	BNE    k1v2
	B      store

k1v3:
	FMOVS  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.S[1]
	VLD1.P (R6)(R3), V24.S[2]
	VLD1.P (R7)(R3), V24.S[3]
	VLD1   (R1), [V26.S4, V27.S4]
	VLD1.P (R12)(R2), [V28.S4]
	ADD    R2, R1, R1
	FMLA_S(0, 26, 24, 0)
	FMLA_S(1, 27, 24, 0)
	FMLA_S(2, 28, 24, 0)
	FMLA_S(3, 26, 24, 1)
	FMLA_S(4, 27, 24, 1)
	FMLA_S(5, 28, 24, 1)
	FMLA_S(6, 26, 24, 2)
	FMLA_S(7, 27, 24, 2)
	FMLA_S(8, 28, 24, 2)
	FMLA_S(9, 26, 24, 3)
	FMLA_S(10, 27, 24, 3)
	FMLA_S(11, 28, 24, 3)
	SUBS   $1, R0, R0
	BNE    k1v3
	B      store

k2n1:
	FMOVS  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.S[1]
	VLD1.P (R6)(R3), V24.S[2]
	VLD1.P (R7)(R3), V24.S[3]
	FMOVS  (R8), F25
	ADD    R3, R8, R8
	VLD1.P (R9)(R3), V25.S[1]
	VLD1.P (R10)(R3), V25.S[2]
	VLD1.P (R11)(R3), V25.S[3]
	FMOVS  (R1), F26
	ADD    R2, R1, R1
	FMLA_S(0, 26, 24, 0)
	FMLA_S(3, 26, 24, 1)
	FMLA_S(6, 26, 24, 2)
	FMLA_S(9, 26, 24, 3)
	FMLA_S(12, 26, 25, 0)
	FMLA_S(15, 26, 25, 1)
	FMLA_S(18, 26, 25, 2)
	FMLA_S(21, 26, 25, 3)
	SUBS   $1, R0, R0
	BNE    k2n1
	B      store

k2n2:
	FMOVS  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.S[1]
	VLD1.P (R6)(R3), V24.S[2]
	VLD1.P (R7)(R3), V24.S[3]
	FMOVS  (R8), F25
	ADD    R3, R8, R8
	VLD1.P (R9)(R3), V25.S[1]
	VLD1.P (R10)(R3), V25.S[2]
	VLD1.P (R11)(R3), V25.S[3]
	FMOVD  (R1), F26
	ADD    R2, R1, R1
	FMLA_S(0, 26, 24, 0)
	FMLA_S(3, 26, 24, 1)
	FMLA_S(6, 26, 24, 2)
	FMLA_S(9, 26, 24, 3)
	FMLA_S(12, 26, 25, 0)
	FMLA_S(15, 26, 25, 1)
	FMLA_S(18, 26, 25, 2)
	FMLA_S(21, 26, 25, 3)
	SUBS   $1, R0, R0
	BNE    k2n2
	B      store

k2n3:
	FMOVS  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.S[1]
	VLD1.P (R6)(R3), V24.S[2]
	VLD1.P (R7)(R3), V24.S[3]
	FMOVS  (R8), F25
	ADD    R3, R8, R8
	VLD1.P (R9)(R3), V25.S[1]
	VLD1.P (R10)(R3), V25.S[2]
	VLD1.P (R11)(R3), V25.S[3]
	FMOVD  (R1), F26
	ADD    $8, R1, R14
	VLD1   (R14), V26.S[2]
	ADD    R2, R1, R1
	FMLA_S(0, 26, 24, 0)
	FMLA_S(3, 26, 24, 1)
	FMLA_S(6, 26, 24, 2)
	FMLA_S(9, 26, 24, 3)
	FMLA_S(12, 26, 25, 0)
	FMLA_S(15, 26, 25, 1)
	FMLA_S(18, 26, 25, 2)
	FMLA_S(21, 26, 25, 3)
	SUBS   $1, R0, R0
	BNE    k2n3
	B      store

k2v1:
	FMOVS  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.S[1]
	VLD1.P (R6)(R3), V24.S[2]
	VLD1.P (R7)(R3), V24.S[3]
	FMOVS  (R8), F25
	ADD    R3, R8, R8
	VLD1.P (R9)(R3), V25.S[1]
	VLD1.P (R10)(R3), V25.S[2]
	VLD1.P (R11)(R3), V25.S[3]
	VLD1.P (R1)(R2), [V26.S4]
	FMLA_S(0, 26, 24, 0)
	FMLA_S(3, 26, 24, 1)
	FMLA_S(6, 26, 24, 2)
	FMLA_S(9, 26, 24, 3)
	FMLA_S(12, 26, 25, 0)
	FMLA_S(15, 26, 25, 1)
	FMLA_S(18, 26, 25, 2)
	FMLA_S(21, 26, 25, 3)
	SUBS   $1, R0, R0
	BNE    k2v1
	B      store

k2v2:
	FMOVS  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.S[1]
	VLD1.P (R6)(R3), V24.S[2]
	VLD1.P (R7)(R3), V24.S[3]
	FMOVS  (R8), F25
	ADD    R3, R8, R8
	VLD1.P (R9)(R3), V25.S[1]
	VLD1.P (R10)(R3), V25.S[2]
	VLD1.P (R11)(R3), V25.S[3]
	VLD1   (R1), [V26.S4]
	VLD1.P (R12)(R2), [V27.S4]
	ADD    R2, R1, R1
	FMLA_S(0, 26, 24, 0)
	FMLA_S(1, 27, 24, 0)
	FMLA_S(3, 26, 24, 1)
	FMLA_S(4, 27, 24, 1)
	FMLA_S(6, 26, 24, 2)
	FMLA_S(7, 27, 24, 2)
	FMLA_S(9, 26, 24, 3)
	FMLA_S(10, 27, 24, 3)
	FMLA_S(12, 26, 25, 0)
	FMLA_S(13, 27, 25, 0)
	FMLA_S(15, 26, 25, 1)
	FMLA_S(16, 27, 25, 1)
	FMLA_S(18, 26, 25, 2)
	FMLA_S(19, 27, 25, 2)
	FMLA_S(21, 26, 25, 3)
	FMLA_S(22, 27, 25, 3)
	SUBS   $1, R0, R0
	BNE    k2v2
	B      store

k2v3:
	FMOVS  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.S[1]
	VLD1.P (R6)(R3), V24.S[2]
	VLD1.P (R7)(R3), V24.S[3]
	FMOVS  (R8), F25
	ADD    R3, R8, R8
	VLD1.P (R9)(R3), V25.S[1]
	VLD1.P (R10)(R3), V25.S[2]
	VLD1.P (R11)(R3), V25.S[3]
	VLD1   (R1), [V26.S4, V27.S4]
	VLD1.P (R12)(R2), [V28.S4]
	ADD    R2, R1, R1
	FMLA_S(0, 26, 24, 0)
	FMLA_S(1, 27, 24, 0)
	FMLA_S(2, 28, 24, 0)
	FMLA_S(3, 26, 24, 1)
	FMLA_S(4, 27, 24, 1)
	FMLA_S(5, 28, 24, 1)
	FMLA_S(6, 26, 24, 2)
	FMLA_S(7, 27, 24, 2)
	FMLA_S(8, 28, 24, 2)
	FMLA_S(9, 26, 24, 3)
	FMLA_S(10, 27, 24, 3)
	FMLA_S(11, 28, 24, 3)
	FMLA_S(12, 26, 25, 0)
	FMLA_S(13, 27, 25, 0)
	FMLA_S(14, 28, 25, 0)
	FMLA_S(15, 26, 25, 1)
	FMLA_S(16, 27, 25, 1)
	FMLA_S(17, 28, 25, 1)
	FMLA_S(18, 26, 25, 2)
	FMLA_S(19, 27, 25, 2)
	FMLA_S(20, 28, 25, 2)
	FMLA_S(21, 26, 25, 3)
	FMLA_S(22, 27, 25, 3)
	FMLA_S(23, 28, 25, 3)
	SUBS   $1, R0, R0
	BNE    k2v3
	B      store

store:
	FMOVS   alpha+24(FP), F30
	VDUP    V30.S[0], V30.S4
	FMOVS   beta+104(FP), F31
	VDUP    V31.S[0], V31.S4
	MOVD    c_base+112(FP), R1
	MOVD    ldc+136(FP), R2
	LSL     $2, R2, R2 // ldc in bytes
	// R12 - R1 is the byte offset of the last vector, as for B.
	SUB     $4, R16, R12
	CMP     $0, R12
	CSEL    LT, ZR, R12, R12
	LSL     $2, R12, R12
	ADD     R1, R12, R12
	FCMPS   $(0.0), F31
	BEQ     zero

beta:
	CMP  $1, R16
	BEQ  betan1
	CMP  $2, R16
	BEQ  betan2
	CMP  $3, R16
	BEQ  betan3
	CMP  $4, R16
	BLE  betav1
	CMP  $8, R16
	BLE  betav2
	B    betav3

betan1:
	FMOVS  (R1), F24
	FMUL_4S(24, 24, 31)
	VFMLA  V30.S4, V0.S4, V24.S4
	FMOVS  F24, (R1)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS3
	B      betan1

betan2:
	FMOVD  (R1), F24
	FMUL_4S(24, 24, 31)
	VFMLA  V30.S4, V0.S4, V24.S4
	FMOVD  F24, (R1)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS3
	B      betan2

betan3:
	FMOVD  (R1), F24
	ADD    $8, R1, R14
	VLD1   (R14), V24.S[2]
	FMUL_4S(24, 24, 31)
	VFMLA  V30.S4, V0.S4, V24.S4
	FMOVD  F24, (R1)
	ADD    $8, R1, R14
	VST1   V24.S[2], (R14)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS3
	B      betan3

betav1:
	VLD1   (R1), [V24.S4]
	FMUL_4S(24, 24, 31)
	VFMLA  V30.S4, V0.S4, V24.S4
	VST1   [V24.S4], (R1)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS3
	B      betav1

betav2:
	VLD1   (R1), [V24.S4]
	VLD1   (R12), [V25.S4]
	FMUL_4S(24, 24, 31)
	VFMLA  V30.S4, V0.S4, V24.S4
	FMUL_4S(25, 25, 31)
	VFMLA  V30.S4, V1.S4, V25.S4
	VST1   [V24.S4], (R1)
	VST1   [V25.S4], (R12)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS3
	B      betav2

betav3:
	VLD1   (R1), [V24.S4, V25.S4]
	VLD1   (R12), [V26.S4]
	FMUL_4S(24, 24, 31)
	VFMLA  V30.S4, V0.S4, V24.S4
	FMUL_4S(25, 25, 31)
	VFMLA  V30.S4, V1.S4, V25.S4
	FMUL_4S(26, 26, 31)
	VFMLA  V30.S4, V2.S4, V26.S4
	VST1   [V24.S4, V25.S4], (R1)
	VST1   [V26.S4], (R12)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS3
	B      betav3
zero:
	CMP  $1, R16
	BEQ  zeron1
	CMP  $2, R16
	BEQ  zeron2
	CMP  $3, R16
	BEQ  zeron3
	CMP  $4, R16
	BLE  zerov1
	CMP  $8, R16
	BLE  zerov2
	B    zerov3

zeron1:
	FMUL_4S(24, 0, 30)
	FMOVS  F24, (R1)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS3
	B      zeron1

zeron2:
	FMUL_4S(24, 0, 30)
	FMOVD  F24, (R1)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS3
	B      zeron2

zeron3:
	FMUL_4S(24, 0, 30)
	FMOVD  F24, (R1)
	ADD    $8, R1, R14
	VST1   V24.S[2], (R14)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS3
	B      zeron3

zerov1:
	FMUL_4S(24, 0, 30)
	VST1   [V24.S4], (R1)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS3
	B      zerov1

zerov2:
	FMUL_4S(24, 0, 30)
	FMUL_4S(25, 1, 30)
	VST1   [V24.S4], (R1)
	VST1   [V25.S4], (R12)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS3
	B      zerov2

zerov3:
	FMUL_4S(24, 0, 30)
	FMUL_4S(25, 1, 30)
	FMUL_4S(26, 2, 30)
	VST1   [V24.S4, V25.S4], (R1)
	VST1   [V26.S4], (R12)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS3
	B      zerov3

done:
	RET

// func gemmDirectNEON6x8(k, m, n int, alpha float64, a []float64, rs, ps int, b []float64, ldb int, beta float64, c []float64, ldc int)
// 1 ≤ k, 1 ≤ m ≤ 6, 1 ≤ n ≤ 8; the wrapper has checked that a, b and c
// hold every element the tile uses.
TEXT ·gemmDirectNEON6x8(SB), NOSPLIT, $0-144
	MOVD k+0(FP), R0
	MOVD m+8(FP), R15
	MOVD n+16(FP), R16
	MOVD a_base+32(FP), R4
	MOVD rs+56(FP), R13
	LSL  $3, R13, R13 // rs in bytes
	MOVD ps+64(FP), R3
	LSL  $3, R3, R3   // ps in bytes
	MOVD b_base+72(FP), R1
	MOVD ldb+96(FP), R2
	LSL  $3, R2, R2   // ldb in bytes

	// Row pointers R4…R9: row i, or row m−1 for i ≥ m.
	ADD  R13, R4, R14
	CMP  $1, R15
	CSEL GT, R14, R4, R5
	ADD  R13, R5, R14
	CMP  $2, R15
	CSEL GT, R14, R5, R6
	ADD  R13, R6, R14
	CMP  $3, R15
	CSEL GT, R14, R6, R7
	ADD  R13, R7, R14
	CMP  $4, R15
	CSEL GT, R14, R7, R8
	ADD  R13, R8, R14
	CMP  $5, R15
	CSEL GT, R14, R8, R9

	// R12 points at the last B vector of row p: column n−2 when n ≥ 2.
	SUB  $2, R16, R12
	CMP  $0, R12
	CSEL LT, ZR, R12, R12
	LSL  $3, R12, R12
	ADD  R1, R12, R12

	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	VEOR V4.B16, V4.B16, V4.B16
	VEOR V5.B16, V5.B16, V5.B16
	VEOR V6.B16, V6.B16, V6.B16
	VEOR V7.B16, V7.B16, V7.B16
	VEOR V8.B16, V8.B16, V8.B16
	VEOR V9.B16, V9.B16, V9.B16
	VEOR V10.B16, V10.B16, V10.B16
	VEOR V11.B16, V11.B16, V11.B16
	VEOR V12.B16, V12.B16, V12.B16
	VEOR V13.B16, V13.B16, V13.B16
	VEOR V14.B16, V14.B16, V14.B16
	VEOR V15.B16, V15.B16, V15.B16
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16
	VEOR V20.B16, V20.B16, V20.B16
	VEOR V21.B16, V21.B16, V21.B16
	VEOR V22.B16, V22.B16, V22.B16
	VEOR V23.B16, V23.B16, V23.B16

	CMP  $2, R15
	BLE  rows1
	CMP  $4, R15
	BLE  rows2
	B    rows3

rows1:
	CMP  $1, R16
	BEQ  k1n1
	CMP  $2, R16
	BLE  k1v1
	CMP  $4, R16
	BLE  k1v2
	CMP  $6, R16
	BLE  k1v3
	B    k1v4

rows2:
	CMP  $1, R16
	BEQ  k2n1
	CMP  $2, R16
	BLE  k2v1
	CMP  $4, R16
	BLE  k2v2
	CMP  $6, R16
	BLE  k2v3
	B    k2v4

rows3:
	CMP  $1, R16
	BEQ  k3n1
	CMP  $2, R16
	BLE  k3v1
	CMP  $4, R16
	BLE  k3v2
	CMP  $6, R16
	BLE  k3v3
	B    k3v4

k1n1:
	FMOVD  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.D[1]
	FMOVD  (R1), F27
	ADD    R2, R1, R1
	FMLA_D(0, 27, 24, 0)
	FMLA_D(4, 27, 24, 1)
	SUBS   $1, R0, R0
	BNE    k1n1
	B      store

k1v1:
	FMOVD  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.D[1]
	VLD1.P (R1)(R2), [V27.D2]
	FMLA_D(0, 27, 24, 0)
	FMLA_D(4, 27, 24, 1)
	SUBS   $1, R0, R0
	BNE    k1v1
	B      store

k1v2:
	FMOVD  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.D[1]
	VLD1   (R1), [V27.D2]
	VLD1.P (R12)(R2), [V28.D2]
	ADD    R2, R1, R1
	FMLA_D(0, 27, 24, 0)
	FMLA_D(1, 28, 24, 0)
	FMLA_D(4, 27, 24, 1)
	FMLA_D(5, 28, 24, 1)
	SUBS   $1, R0, R0
	BNE    k1v2
	B      store

k1v3:
	FMOVD  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.D[1]
	VLD1   (R1), [V27.D2, V28.D2]
	VLD1.P (R12)(R2), [V29.D2]
	ADD    R2, R1, R1
	FMLA_D(0, 27, 24, 0)
	FMLA_D(1, 28, 24, 0)
	FMLA_D(2, 29, 24, 0)
	FMLA_D(4, 27, 24, 1)
	FMLA_D(5, 28, 24, 1)
	FMLA_D(6, 29, 24, 1)
	SUBS   $1, R0, R0
	BNE    k1v3
	B      store

k1v4:
	FMOVD  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.D[1]
	VLD1   (R1), [V27.D2, V28.D2, V29.D2]
	VLD1.P (R12)(R2), [V30.D2]
	ADD    R2, R1, R1
	FMLA_D(0, 27, 24, 0)
	FMLA_D(1, 28, 24, 0)
	FMLA_D(2, 29, 24, 0)
	FMLA_D(3, 30, 24, 0)
	FMLA_D(4, 27, 24, 1)
	FMLA_D(5, 28, 24, 1)
	FMLA_D(6, 29, 24, 1)
	FMLA_D(7, 30, 24, 1)
	SUBS   $1, R0, R0
	BNE    k1v4
	B      store

k2n1:
	FMOVD  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.D[1]
	FMOVD  (R6), F25
	ADD    R3, R6, R6
	VLD1.P (R7)(R3), V25.D[1]
	FMOVD  (R1), F27
	ADD    R2, R1, R1
	FMLA_D(0, 27, 24, 0)
	FMLA_D(4, 27, 24, 1)
	FMLA_D(8, 27, 25, 0)
	FMLA_D(12, 27, 25, 1)
	SUBS   $1, R0, R0
	BNE    k2n1
	B      store

k2v1:
	FMOVD  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.D[1]
	FMOVD  (R6), F25
	ADD    R3, R6, R6
	VLD1.P (R7)(R3), V25.D[1]
	VLD1.P (R1)(R2), [V27.D2]
	FMLA_D(0, 27, 24, 0)
	FMLA_D(4, 27, 24, 1)
	FMLA_D(8, 27, 25, 0)
	FMLA_D(12, 27, 25, 1)
	SUBS   $1, R0, R0
	BNE    k2v1
	B      store

k2v2:
	FMOVD  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.D[1]
	FMOVD  (R6), F25
	ADD    R3, R6, R6
	VLD1.P (R7)(R3), V25.D[1]
	VLD1   (R1), [V27.D2]
	VLD1.P (R12)(R2), [V28.D2]
	ADD    R2, R1, R1
	FMLA_D(0, 27, 24, 0)
	FMLA_D(1, 28, 24, 0)
	FMLA_D(4, 27, 24, 1)
	FMLA_D(5, 28, 24, 1)
	FMLA_D(8, 27, 25, 0)
	FMLA_D(9, 28, 25, 0)
	FMLA_D(12, 27, 25, 1)
	FMLA_D(13, 28, 25, 1)
	SUBS   $1, R0, R0
	BNE    k2v2
	B      store

k2v3:
	FMOVD  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.D[1]
	FMOVD  (R6), F25
	ADD    R3, R6, R6
	VLD1.P (R7)(R3), V25.D[1]
	VLD1   (R1), [V27.D2, V28.D2]
	VLD1.P (R12)(R2), [V29.D2]
	ADD    R2, R1, R1
	FMLA_D(0, 27, 24, 0)
	FMLA_D(1, 28, 24, 0)
	FMLA_D(2, 29, 24, 0)
	FMLA_D(4, 27, 24, 1)
	FMLA_D(5, 28, 24, 1)
	FMLA_D(6, 29, 24, 1)
	FMLA_D(8, 27, 25, 0)
	FMLA_D(9, 28, 25, 0)
	FMLA_D(10, 29, 25, 0)
	FMLA_D(12, 27, 25, 1)
	FMLA_D(13, 28, 25, 1)
	FMLA_D(14, 29, 25, 1)
	SUBS   $1, R0, R0
	BNE    k2v3
	B      store

k2v4:
	FMOVD  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.D[1]
	FMOVD  (R6), F25
	ADD    R3, R6, R6
	VLD1.P (R7)(R3), V25.D[1]
	VLD1   (R1), [V27.D2, V28.D2, V29.D2]
	VLD1.P (R12)(R2), [V30.D2]
	ADD    R2, R1, R1
	FMLA_D(0, 27, 24, 0)
	FMLA_D(1, 28, 24, 0)
	FMLA_D(2, 29, 24, 0)
	FMLA_D(3, 30, 24, 0)
	FMLA_D(4, 27, 24, 1)
	FMLA_D(5, 28, 24, 1)
	FMLA_D(6, 29, 24, 1)
	FMLA_D(7, 30, 24, 1)
	FMLA_D(8, 27, 25, 0)
	FMLA_D(9, 28, 25, 0)
	FMLA_D(10, 29, 25, 0)
	FMLA_D(11, 30, 25, 0)
	FMLA_D(12, 27, 25, 1)
	FMLA_D(13, 28, 25, 1)
	FMLA_D(14, 29, 25, 1)
	FMLA_D(15, 30, 25, 1)
	SUBS   $1, R0, R0
	BNE    k2v4
	B      store

k3n1:
	FMOVD  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.D[1]
	FMOVD  (R6), F25
	ADD    R3, R6, R6
	VLD1.P (R7)(R3), V25.D[1]
	FMOVD  (R8), F26
	ADD    R3, R8, R8
	VLD1.P (R9)(R3), V26.D[1]
	FMOVD  (R1), F27
	ADD    R2, R1, R1
	FMLA_D(0, 27, 24, 0)
	FMLA_D(4, 27, 24, 1)
	FMLA_D(8, 27, 25, 0)
	FMLA_D(12, 27, 25, 1)
	FMLA_D(16, 27, 26, 0)
	FMLA_D(20, 27, 26, 1)
	SUBS   $1, R0, R0
	BNE    k3n1
	B      store

k3v1:
	FMOVD  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.D[1]
	FMOVD  (R6), F25
	ADD    R3, R6, R6
	VLD1.P (R7)(R3), V25.D[1]
	FMOVD  (R8), F26
	ADD    R3, R8, R8
	VLD1.P (R9)(R3), V26.D[1]
	VLD1.P (R1)(R2), [V27.D2]
	FMLA_D(0, 27, 24, 0)
	FMLA_D(4, 27, 24, 1)
	FMLA_D(8, 27, 25, 0)
	FMLA_D(12, 27, 25, 1)
	FMLA_D(16, 27, 26, 0)
	FMLA_D(20, 27, 26, 1)
	SUBS   $1, R0, R0
	BNE    k3v1
	B      store

k3v2:
	FMOVD  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.D[1]
	FMOVD  (R6), F25
	ADD    R3, R6, R6
	VLD1.P (R7)(R3), V25.D[1]
	FMOVD  (R8), F26
	ADD    R3, R8, R8
	VLD1.P (R9)(R3), V26.D[1]
	VLD1   (R1), [V27.D2]
	VLD1.P (R12)(R2), [V28.D2]
	ADD    R2, R1, R1
	FMLA_D(0, 27, 24, 0)
	FMLA_D(1, 28, 24, 0)
	FMLA_D(4, 27, 24, 1)
	FMLA_D(5, 28, 24, 1)
	FMLA_D(8, 27, 25, 0)
	FMLA_D(9, 28, 25, 0)
	FMLA_D(12, 27, 25, 1)
	FMLA_D(13, 28, 25, 1)
	FMLA_D(16, 27, 26, 0)
	FMLA_D(17, 28, 26, 0)
	FMLA_D(20, 27, 26, 1)
	FMLA_D(21, 28, 26, 1)
	SUBS   $1, R0, R0
	BNE    k3v2
	B      store

k3v3:
	FMOVD  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.D[1]
	FMOVD  (R6), F25
	ADD    R3, R6, R6
	VLD1.P (R7)(R3), V25.D[1]
	FMOVD  (R8), F26
	ADD    R3, R8, R8
	VLD1.P (R9)(R3), V26.D[1]
	VLD1   (R1), [V27.D2, V28.D2]
	VLD1.P (R12)(R2), [V29.D2]
	ADD    R2, R1, R1
	FMLA_D(0, 27, 24, 0)
	FMLA_D(1, 28, 24, 0)
	FMLA_D(2, 29, 24, 0)
	FMLA_D(4, 27, 24, 1)
	FMLA_D(5, 28, 24, 1)
	FMLA_D(6, 29, 24, 1)
	FMLA_D(8, 27, 25, 0)
	FMLA_D(9, 28, 25, 0)
	FMLA_D(10, 29, 25, 0)
	FMLA_D(12, 27, 25, 1)
	FMLA_D(13, 28, 25, 1)
	FMLA_D(14, 29, 25, 1)
	FMLA_D(16, 27, 26, 0)
	FMLA_D(17, 28, 26, 0)
	FMLA_D(18, 29, 26, 0)
	FMLA_D(20, 27, 26, 1)
	FMLA_D(21, 28, 26, 1)
	FMLA_D(22, 29, 26, 1)
	SUBS   $1, R0, R0
	BNE    k3v3
	B      store

k3v4:
	FMOVD  (R4), F24
	ADD    R3, R4, R4
	VLD1.P (R5)(R3), V24.D[1]
	FMOVD  (R6), F25
	ADD    R3, R6, R6
	VLD1.P (R7)(R3), V25.D[1]
	FMOVD  (R8), F26
	ADD    R3, R8, R8
	VLD1.P (R9)(R3), V26.D[1]
	VLD1   (R1), [V27.D2, V28.D2, V29.D2]
	VLD1.P (R12)(R2), [V30.D2]
	ADD    R2, R1, R1
	FMLA_D(0, 27, 24, 0)
	FMLA_D(1, 28, 24, 0)
	FMLA_D(2, 29, 24, 0)
	FMLA_D(3, 30, 24, 0)
	FMLA_D(4, 27, 24, 1)
	FMLA_D(5, 28, 24, 1)
	FMLA_D(6, 29, 24, 1)
	FMLA_D(7, 30, 24, 1)
	FMLA_D(8, 27, 25, 0)
	FMLA_D(9, 28, 25, 0)
	FMLA_D(10, 29, 25, 0)
	FMLA_D(11, 30, 25, 0)
	FMLA_D(12, 27, 25, 1)
	FMLA_D(13, 28, 25, 1)
	FMLA_D(14, 29, 25, 1)
	FMLA_D(15, 30, 25, 1)
	FMLA_D(16, 27, 26, 0)
	FMLA_D(17, 28, 26, 0)
	FMLA_D(18, 29, 26, 0)
	FMLA_D(19, 30, 26, 0)
	FMLA_D(20, 27, 26, 1)
	FMLA_D(21, 28, 26, 1)
	FMLA_D(22, 29, 26, 1)
	FMLA_D(23, 30, 26, 1)
	SUBS   $1, R0, R0
	BNE    k3v4
	B      store

store:
	FMOVD   alpha+24(FP), F30
	VDUP    V30.D[0], V30.D2
	FMOVD   beta+104(FP), F31
	VDUP    V31.D[0], V31.D2
	MOVD    c_base+112(FP), R1
	MOVD    ldc+136(FP), R2
	LSL     $3, R2, R2 // ldc in bytes
	// R12 - R1 is the byte offset of the last vector, as for B.
	SUB     $2, R16, R12
	CMP     $0, R12
	CSEL    LT, ZR, R12, R12
	LSL     $3, R12, R12
	ADD     R1, R12, R12
	FCMPD   $(0.0), F31
	BEQ     zero

beta:
	CMP  $1, R16
	BEQ  betan1
	CMP  $2, R16
	BLE  betav1
	CMP  $4, R16
	BLE  betav2
	CMP  $6, R16
	BLE  betav3
	B    betav4

betan1:
	FMOVD  (R1), F24
	FMUL_2D(24, 24, 31)
	VFMLA  V30.D2, V0.D2, V24.D2
	FMOVD  F24, (R1)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS4
	B      betan1

betav1:
	VLD1   (R1), [V24.D2]
	FMUL_2D(24, 24, 31)
	VFMLA  V30.D2, V0.D2, V24.D2
	VST1   [V24.D2], (R1)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS4
	B      betav1

betav2:
	VLD1   (R1), [V24.D2]
	VLD1   (R12), [V25.D2]
	FMUL_2D(24, 24, 31)
	VFMLA  V30.D2, V0.D2, V24.D2
	FMUL_2D(25, 25, 31)
	VFMLA  V30.D2, V1.D2, V25.D2
	VST1   [V24.D2], (R1)
	VST1   [V25.D2], (R12)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS4
	B      betav2

betav3:
	VLD1   (R1), [V24.D2, V25.D2]
	VLD1   (R12), [V26.D2]
	FMUL_2D(24, 24, 31)
	VFMLA  V30.D2, V0.D2, V24.D2
	FMUL_2D(25, 25, 31)
	VFMLA  V30.D2, V1.D2, V25.D2
	FMUL_2D(26, 26, 31)
	VFMLA  V30.D2, V2.D2, V26.D2
	VST1   [V24.D2, V25.D2], (R1)
	VST1   [V26.D2], (R12)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS4
	B      betav3

betav4:
	VLD1   (R1), [V24.D2, V25.D2, V26.D2]
	VLD1   (R12), [V27.D2]
	FMUL_2D(24, 24, 31)
	VFMLA  V30.D2, V0.D2, V24.D2
	FMUL_2D(25, 25, 31)
	VFMLA  V30.D2, V1.D2, V25.D2
	FMUL_2D(26, 26, 31)
	VFMLA  V30.D2, V2.D2, V26.D2
	FMUL_2D(27, 27, 31)
	VFMLA  V30.D2, V3.D2, V27.D2
	VST1   [V24.D2, V25.D2, V26.D2], (R1)
	VST1   [V27.D2], (R12)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS4
	B      betav4
zero:
	CMP  $1, R16
	BEQ  zeron1
	CMP  $2, R16
	BLE  zerov1
	CMP  $4, R16
	BLE  zerov2
	CMP  $6, R16
	BLE  zerov3
	B    zerov4

zeron1:
	FMUL_2D(24, 0, 30)
	FMOVD  F24, (R1)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS4
	B      zeron1

zerov1:
	FMUL_2D(24, 0, 30)
	VST1   [V24.D2], (R1)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS4
	B      zerov1

zerov2:
	FMUL_2D(24, 0, 30)
	FMUL_2D(25, 1, 30)
	VST1   [V24.D2], (R1)
	VST1   [V25.D2], (R12)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS4
	B      zerov2

zerov3:
	FMUL_2D(24, 0, 30)
	FMUL_2D(25, 1, 30)
	FMUL_2D(26, 2, 30)
	VST1   [V24.D2, V25.D2], (R1)
	VST1   [V26.D2], (R12)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS4
	B      zerov3

zerov4:
	FMUL_2D(24, 0, 30)
	FMUL_2D(25, 1, 30)
	FMUL_2D(26, 2, 30)
	FMUL_2D(27, 3, 30)
	VST1   [V24.D2, V25.D2, V26.D2], (R1)
	VST1   [V27.D2], (R12)
	SUBS   $1, R15, R15
	BEQ    done
	ADD    R2, R1, R1
	ADD    R2, R12, R12
	SHIFT_ROWS4
	B      zerov4

done:
	RET
