//go:build gc && !purego

#include "textflag.h"

// NEON GEMM micro-kernels (contract in gemm.go).
//
// Tile choice. AArch64 has 32 128-bit V registers. A full-tile kernel keeps
// MR×NR/lanes accumulators in registers for the whole k loop and needs
// MR/lanes + NR/lanes more for one step of the packed A and B panels. 24
// accumulators plus the panel registers fill the file without spilling:
//
//   float32 8×12: C rows are 3 vectors of 4, 8 rows → V0–V23 (acc(i,j) =
//                 V(3i+j)); A step = 8 floats = V24, V25; B step = 12 floats
//                 = V28–V30. 24 FMLAs per 5 loads (80 bytes).
//   float64 6×8:  C rows are 4 vectors of 2, 6 rows → V0–V23 (acc(i,j) =
//                 V(4i+j)); A step = 6 doubles = V24–V26; B step = 8
//                 doubles = V27–V30. 24 FMLAs per 7 loads (112 bytes).
//
// Both are the register-blocking shapes of the usual ARMv8 BLAS kernels
// (BLIS armv8a uses 8×12 and 6×8), transposed to our row-major C: the
// vectors run along a row of C and B, and each A element is used through
// the by-element form of FMLA, so A is never broadcast by a separate
// instruction. Each accumulator is updated once per k step, giving 24
// independent FMA chains, which covers latency 4 × 2 pipes (Cortex-A76,
// Neoverse N1/V1) with room to spare; a C row of the float64 tile is one
// 64-byte cache line.
//
// Load schedule. Each step first uses the A vector(s) of the lower rows
// against all of B, then reloads them for step p+1; the last A vector is
// used B vector by B vector, each B register reloaded right after its last
// use. So every load is issued at least 7 FMLAs before its first use, which
// hides L1 latency on in-order cores (Cortex-A53/A55) too. The final step
// has no reloads, so the kernel never reads past the panels.
//
// The Go assembler lacks the by-element FMLA and the vector FADD, so they
// are WORD encodings behind macros named after their mnemonics (operands
// are register numbers or lane indexes; the encodings were checked with
// aarch64-linux-gnu-objdump).

// fmla vd.4s, vn.4s, vm.s[i]
#define FMLA_S(d, n, m, i) WORD $(0x4f801000 | (((i)&1)<<21) | ((m)<<16) | (((i)>>1)<<11) | ((n)<<5) | (d))
// fmla vd.2d, vn.2d, vm.d[i]
#define FMLA_D(d, n, m, i) WORD $(0x4fc01000 | ((m)<<16) | ((i)<<11) | ((n)<<5) | (d))
// fadd vd.4s, vn.4s, vm.4s
#define FADD_4S(d, n, m) WORD $(0x4e20d400 | ((m)<<16) | ((n)<<5) | (d))
// fadd vd.2d, vn.2d, vm.2d
#define FADD_2D(d, n, m) WORD $(0x4e60d400 | ((m)<<16) | ((n)<<5) | (d))

// Prefetch for writing the C row at R5 (its first byte and the one at
// offset off), then step R5 to the next row.
#define PREFETCH_ROW(off) \
	PRFM (R5), PSTL1KEEP; \
	PRFM off(R5), PSTL1KEEP; \
	ADD  R4, R5, R5

// ---- float32 8×12 ----

// Rows r..r+3 of C, vector j, += B register bv × lanes 0..3 of A register av.
#define ROWS4_S(r, j, bv, av) \
	FMLA_S(3*(r)+(j), bv, av, 0); \
	FMLA_S(3*((r)+1)+(j), bv, av, 1); \
	FMLA_S(3*((r)+2)+(j), bv, av, 2); \
	FMLA_S(3*((r)+3)+(j), bv, av, 3)

// One k step with the panels of step p+1 loaded as registers free up.
#define STEP_S_NEXT \
	ROWS4_S(0, 0, 28, 24); \
	ROWS4_S(0, 1, 29, 24); \
	ROWS4_S(0, 2, 30, 24); \
	VLD1.P 16(R1), [V24.S4]; \
	ROWS4_S(4, 0, 28, 25); \
	VLD1.P 16(R2), [V28.S4]; \
	ROWS4_S(4, 1, 29, 25); \
	VLD1.P 16(R2), [V29.S4]; \
	ROWS4_S(4, 2, 30, 25); \
	VLD1.P 16(R2), [V30.S4]; \
	VLD1.P 16(R1), [V25.S4]

// The last k step: no loads.
#define STEP_S_LAST \
	ROWS4_S(0, 0, 28, 24); \
	ROWS4_S(0, 1, 29, 24); \
	ROWS4_S(0, 2, 30, 24); \
	ROWS4_S(4, 0, 28, 25); \
	ROWS4_S(4, 1, 29, 25); \
	ROWS4_S(4, 2, 30, 25)

// C row (pointers R5 for loads, R3 for stores, both advanced by ldc bytes
// in R4) += accumulators V(a)..V(a+2), through t0..t2 (numbers and names).
#define ROW_S(a, t0, t1, t2, T0, T1, T2) \
	VLD1.P (R5)(R4), [T0.S4, T1.S4, T2.S4]; \
	FADD_4S(t0, t0, a); \
	FADD_4S(t1, t1, (a)+1); \
	FADD_4S(t2, t2, (a)+2); \
	VST1.P [T0.S4, T1.S4, T2.S4], (R3)(R4)

// func gemmNEON8x12(k int, a, b, c []float32, ldc int)
TEXT ·gemmNEON8x12(SB), NOSPLIT, $0-88
	MOVD k+0(FP), R0
	MOVD a_base+8(FP), R1
	MOVD b_base+32(FP), R2
	MOVD c_base+56(FP), R3
	MOVD ldc+80(FP), R4
	LSL  $2, R4, R4 // ldc in bytes

	// Start fetching the C tile, which is only touched at the end. A row is
	// 48 bytes, so at most two lines: its first and its 41st byte (PRFM
	// offsets must be multiples of 8).
	MOVD R3, R5
	PREFETCH_ROW(40)
	PREFETCH_ROW(40)
	PREFETCH_ROW(40)
	PREFETCH_ROW(40)
	PREFETCH_ROW(40)
	PREFETCH_ROW(40)
	PREFETCH_ROW(40)
	PREFETCH_ROW(40)

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

	// k ≤ 0 adds the zero sums, as the reference does.
	CMP  $0, R0
	BLE  store

	VLD1.P 32(R1), [V24.S4, V25.S4]
	VLD1.P 48(R2), [V28.S4, V29.S4, V30.S4]
	SUBS   $1, R0, R0 // steps that load the next one
	BEQ    last

loop:
	STEP_S_NEXT
	SUBS $1, R0, R0
	BNE  loop

last:
	STEP_S_LAST

store:
	MOVD R3, R5
	ROW_S(0, 24, 25, 26, V24, V25, V26)
	ROW_S(3, 27, 28, 29, V27, V28, V29)
	ROW_S(6, 24, 25, 26, V24, V25, V26)
	ROW_S(9, 27, 28, 29, V27, V28, V29)
	ROW_S(12, 24, 25, 26, V24, V25, V26)
	ROW_S(15, 27, 28, 29, V27, V28, V29)
	ROW_S(18, 24, 25, 26, V24, V25, V26)
	ROW_S(21, 27, 28, 29, V27, V28, V29)
	RET

// ---- float64 6×8 ----

// Rows r, r+1 of C, vector j, += B register bv × lanes 0, 1 of A register av.
#define ROWS2_D(r, j, bv, av) \
	FMLA_D(4*(r)+(j), bv, av, 0); \
	FMLA_D(4*((r)+1)+(j), bv, av, 1)

// The loads use offsets from R1 and R2, which advance once per step: a
// post-indexed load is two micro-ops on Neoverse N1 and V2, and seven of
// them made the step dispatch-bound on V2.
#define STEP_D_NEXT \
	ROWS2_D(0, 0, 27, 24); \
	ROWS2_D(0, 1, 28, 24); \
	ROWS2_D(0, 2, 29, 24); \
	ROWS2_D(0, 3, 30, 24); \
	VLD1   (R1), [V24.D2]; \
	ROWS2_D(2, 0, 27, 25); \
	ROWS2_D(2, 1, 28, 25); \
	ROWS2_D(2, 2, 29, 25); \
	ROWS2_D(2, 3, 30, 25); \
	FMOVQ  16(R1), F25; \
	ROWS2_D(4, 0, 27, 26); \
	VLD1   (R2), [V27.D2]; \
	ROWS2_D(4, 1, 28, 26); \
	FMOVQ  16(R2), F28; \
	ROWS2_D(4, 2, 29, 26); \
	FMOVQ  32(R2), F29; \
	ROWS2_D(4, 3, 30, 26); \
	FMOVQ  48(R2), F30; \
	FMOVQ  32(R1), F26; \
	ADD    $48, R1, R1; \
	ADD    $64, R2, R2

#define STEP_D_LAST \
	ROWS2_D(0, 0, 27, 24); \
	ROWS2_D(0, 1, 28, 24); \
	ROWS2_D(0, 2, 29, 24); \
	ROWS2_D(0, 3, 30, 24); \
	ROWS2_D(2, 0, 27, 25); \
	ROWS2_D(2, 1, 28, 25); \
	ROWS2_D(2, 2, 29, 25); \
	ROWS2_D(2, 3, 30, 25); \
	ROWS2_D(4, 0, 27, 26); \
	ROWS2_D(4, 1, 28, 26); \
	ROWS2_D(4, 2, 29, 26); \
	ROWS2_D(4, 3, 30, 26)

#define ROW_D(a, t0, t1, t2, t3, T0, T1, T2, T3) \
	VLD1.P (R5)(R4), [T0.D2, T1.D2, T2.D2, T3.D2]; \
	FADD_2D(t0, t0, a); \
	FADD_2D(t1, t1, (a)+1); \
	FADD_2D(t2, t2, (a)+2); \
	FADD_2D(t3, t3, (a)+3); \
	VST1.P [T0.D2, T1.D2, T2.D2, T3.D2], (R3)(R4)

// func gemmNEON6x8(k int, a, b, c []float64, ldc int)
TEXT ·gemmNEON6x8(SB), NOSPLIT, $0-88
	MOVD k+0(FP), R0
	MOVD a_base+8(FP), R1
	MOVD b_base+32(FP), R2
	MOVD c_base+56(FP), R3
	MOVD ldc+80(FP), R4
	LSL  $3, R4, R4 // ldc in bytes

	// Start fetching the C tile: a row is one 64-byte line, or two.
	MOVD R3, R5
	PREFETCH_ROW(56)
	PREFETCH_ROW(56)
	PREFETCH_ROW(56)
	PREFETCH_ROW(56)
	PREFETCH_ROW(56)
	PREFETCH_ROW(56)

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

	CMP $0, R0
	BLE store

	VLD1.P 48(R1), [V24.D2, V25.D2, V26.D2]
	VLD1.P 64(R2), [V27.D2, V28.D2, V29.D2, V30.D2]
	SUBS   $1, R0, R0
	BEQ    last

loop:
	STEP_D_NEXT
	SUBS $1, R0, R0
	BNE  loop

last:
	STEP_D_LAST

store:
	MOVD R3, R5
	ROW_D(0, 24, 25, 26, 27, V24, V25, V26, V27)
	ROW_D(4, 28, 29, 30, 31, V28, V29, V30, V31)
	ROW_D(8, 24, 25, 26, 27, V24, V25, V26, V27)
	ROW_D(12, 28, 29, 30, 31, V28, V29, V30, V31)
	ROW_D(16, 24, 25, 26, 27, V24, V25, V26, V27)
	ROW_D(20, 28, 29, 30, 31, V28, V29, V30, V31)
	RET

// ---- peak loops ----

// Sixteen independent accumulators (V0–V15) each get one FMLA per
// iteration: enough chains for latency 4 × 4 FMA pipes (Apple, Neoverse V2),
// twice what latency 4 × 2 pipes needs. acc += 0.999999 × 1e-7 stays normal
// and finite for any n.
#define PEAK_BODY(T) \
	VFMLA V16.T, V17.T, V0.T; \
	VFMLA V16.T, V17.T, V1.T; \
	VFMLA V16.T, V17.T, V2.T; \
	VFMLA V16.T, V17.T, V3.T; \
	VFMLA V16.T, V17.T, V4.T; \
	VFMLA V16.T, V17.T, V5.T; \
	VFMLA V16.T, V17.T, V6.T; \
	VFMLA V16.T, V17.T, V7.T; \
	VFMLA V16.T, V17.T, V8.T; \
	VFMLA V16.T, V17.T, V9.T; \
	VFMLA V16.T, V17.T, V10.T; \
	VFMLA V16.T, V17.T, V11.T; \
	VFMLA V16.T, V17.T, V12.T; \
	VFMLA V16.T, V17.T, V13.T; \
	VFMLA V16.T, V17.T, V14.T; \
	VFMLA V16.T, V17.T, V15.T

#define PEAK_INIT(T) \
	VDUP R3, V0.T; \
	VMOV V0.B16, V1.B16; \
	VMOV V0.B16, V2.B16; \
	VMOV V0.B16, V3.B16; \
	VMOV V0.B16, V4.B16; \
	VMOV V0.B16, V5.B16; \
	VMOV V0.B16, V6.B16; \
	VMOV V0.B16, V7.B16; \
	VMOV V0.B16, V8.B16; \
	VMOV V0.B16, V9.B16; \
	VMOV V0.B16, V10.B16; \
	VMOV V0.B16, V11.B16; \
	VMOV V0.B16, V12.B16; \
	VMOV V0.B16, V13.B16; \
	VMOV V0.B16, V14.B16; \
	VMOV V0.B16, V15.B16; \
	VDUP R1, V16.T; \
	VDUP R2, V17.T

// func fmaPeakNEON32Loop(n int)
TEXT ·fmaPeakNEON32Loop(SB), NOSPLIT, $0-8
	MOVD n+0(FP), R0
	CMP  $0, R0
	BLE  done
	MOVD $0x3f7fffef, R1 // 0.999999
	MOVD $0x33d6bf95, R2 // 1e-7
	MOVD $0x3f800000, R3 // 1
	PEAK_INIT(S4)

loop:
	PEAK_BODY(S4)
	SUBS $1, R0, R0
	BNE  loop

done:
	RET

// func fmaPeakNEON64Loop(n int)
TEXT ·fmaPeakNEON64Loop(SB), NOSPLIT, $0-8
	MOVD n+0(FP), R0
	CMP  $0, R0
	BLE  done
	MOVD $0x3feffffde7210be9, R1 // 0.999999
	MOVD $0x3e7ad7f29abcaf48, R2 // 1e-7
	MOVD $0x3ff0000000000000, R3 // 1
	PEAK_INIT(D2)

loop:
	PEAK_BODY(D2)
	SUBS $1, R0, R0
	BNE  loop

done:
	RET

// ---- edge tiles ----
//
// gemmEdgeNEON8x12 and gemmEdgeNEON6x8 add the m×n corner of an edge tile
// to C and touch no other element of C. Their k loops compute only the A
// vectors (groups of 4 float32 rows or 2 float64 rows) and B vectors
// (4 float32 or 2 float64 columns) that hold rows < m and columns < n, with
// the same by-element FMLA in the same increasing p from zero as the full
// kernels, so every sum is bitwise the full kernel's. There is one loop for
// each (row groups, B vectors) pair; each loads the A and B vectors it uses
// at the top of the iteration (stepping over the rest of the panel step),
// so the loops are simpler than the full kernels' and have not been tuned
// (speed was not measured: these kernels were only run under qemu, which
// shows correctness, not speed).
//
// The store walks the m rows: row i's accumulators are moved into the
// lowest registers (the whole block shifted down one row per row stored),
// whole vectors of columns are added to C with vector loads and stores,
// and the last n mod 4 (float32) or n mod 2 (float64) columns one by one
// with scalar ones: the low lane of V0 is added (C + sum, as the full
// kernels add) and V0 rotated down one lane by EXT.

// EDGE_SHIFT3 and EDGE_SHIFT4 move V3…V23 or V4…V23 down to V0: the next
// row of accumulators into the lowest registers.
#define EDGE_SHIFT3 \
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

#define EDGE_SHIFT4 \
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


// func gemmEdgeNEON8x12(k int, a, b, c []float32, ldc, m, n int)
// 1 ≤ m ≤ 8, 1 ≤ n ≤ 12; len(a) ≥ 8k, len(b) ≥ 12k,
// len(c) ≥ (m-1)·ldc + n.
TEXT ·gemmEdgeNEON8x12(SB), NOSPLIT, $0-104
	MOVD k+0(FP), R0
	MOVD a_base+8(FP), R1
	MOVD b_base+32(FP), R2
	MOVD c_base+56(FP), R3
	MOVD ldc+80(FP), R4
	LSL  $2, R4, R4 // ldc in bytes
	MOVD m+88(FP), R5
	MOVD n+96(FP), R6
	MOVD $32, R11   // A step in bytes
	MOVD $48, R10   // B step in bytes

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

	CMP $0, R0
	BLE store
	CMP $4, R5
	BGT rows8
	CMP $4, R6
	BLE e4x4
	CMP $8, R6
	BLE e4x8
	B   e4x12

rows8:
	CMP $4, R6
	BLE e8x4
	CMP $8, R6
	BLE e8x8
	B   e8x12

e4x4:
	VLD1.P (R1)(R11), [V24.S4]
	VLD1.P (R2)(R10), [V28.S4]
	ROWS4_S(0, 0, 28, 24)
	SUBS $1, R0, R0
	BNE  e4x4
	B    store

e4x8:
	VLD1.P (R1)(R11), [V24.S4]
	VLD1.P (R2)(R10), [V28.S4, V29.S4]
	ROWS4_S(0, 0, 28, 24)
	ROWS4_S(0, 1, 29, 24)
	SUBS $1, R0, R0
	BNE  e4x8
	B    store

e4x12:
	VLD1.P (R1)(R11), [V24.S4]
	VLD1.P 48(R2), [V28.S4, V29.S4, V30.S4]
	ROWS4_S(0, 0, 28, 24)
	ROWS4_S(0, 1, 29, 24)
	ROWS4_S(0, 2, 30, 24)
	SUBS $1, R0, R0
	BNE  e4x12
	B    store

e8x4:
	VLD1.P 32(R1), [V24.S4, V25.S4]
	VLD1.P (R2)(R10), [V28.S4]
	ROWS4_S(0, 0, 28, 24)
	ROWS4_S(4, 0, 28, 25)
	SUBS $1, R0, R0
	BNE  e8x4
	B    store

e8x8:
	VLD1.P 32(R1), [V24.S4, V25.S4]
	VLD1.P (R2)(R10), [V28.S4, V29.S4]
	ROWS4_S(0, 0, 28, 24)
	ROWS4_S(0, 1, 29, 24)
	ROWS4_S(4, 0, 28, 25)
	ROWS4_S(4, 1, 29, 25)
	SUBS $1, R0, R0
	BNE  e8x8
	B    store

e8x12:
	VLD1.P 32(R1), [V24.S4, V25.S4]
	VLD1.P 48(R2), [V28.S4, V29.S4, V30.S4]
	ROWS4_S(0, 0, 28, 24)
	ROWS4_S(0, 1, 29, 24)
	ROWS4_S(0, 2, 30, 24)
	ROWS4_S(4, 0, 28, 25)
	ROWS4_S(4, 1, 29, 25)
	ROWS4_S(4, 2, 30, 25)
	SUBS $1, R0, R0
	BNE  e8x12
	B    store

store:
	MOVD R3, R7 // C element pointer
	MOVD R6, R8 // columns left in the row

vec:
	CMP    $4, R8
	BLT    lanes
	VLD1   (R7), [V31.S4]
	FADD_4S(31, 31, 0)
	VST1.P [V31.S4], 16(R7)
	VMOV   V1.B16, V0.B16
	VMOV   V2.B16, V1.B16
	SUB    $4, R8, R8
	B      vec

lanes:
	CBZ     R8, rowdone
	FMOVS   (R7), F31
	FADDS   F0, F31, F31
	FMOVS.P F31, 4(R7)
	VEXT    $4, V0.B16, V0.B16, V0.B16
	SUB     $1, R8, R8
	B       lanes

rowdone:
	SUBS $1, R5, R5
	BEQ  done
	ADD  R4, R3, R3
	EDGE_SHIFT3
	B    store

done:
	RET

// func gemmEdgeNEON6x8(k int, a, b, c []float64, ldc, m, n int)
// 1 ≤ m ≤ 6, 1 ≤ n ≤ 8; len(a) ≥ 6k, len(b) ≥ 8k,
// len(c) ≥ (m-1)·ldc + n.
TEXT ·gemmEdgeNEON6x8(SB), NOSPLIT, $0-104
	MOVD k+0(FP), R0
	MOVD a_base+8(FP), R1
	MOVD b_base+32(FP), R2
	MOVD c_base+56(FP), R3
	MOVD ldc+80(FP), R4
	LSL  $3, R4, R4 // ldc in bytes
	MOVD m+88(FP), R5
	MOVD n+96(FP), R6
	MOVD $48, R11   // A step in bytes
	MOVD $64, R10   // B step in bytes

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

	CMP $0, R0
	BLE store
	CMP $2, R5
	BGT rows4
	CMP $2, R6
	BLE e2x2
	CMP $4, R6
	BLE e2x4
	CMP $6, R6
	BLE e2x6
	B   e2x8

rows4:
	CMP $4, R5
	BGT rows6
	CMP $2, R6
	BLE e4x2
	CMP $4, R6
	BLE e4x4
	CMP $6, R6
	BLE e4x6
	B   e4x8

rows6:
	CMP $2, R6
	BLE e6x2
	CMP $4, R6
	BLE e6x4
	CMP $6, R6
	BLE e6x6
	B   e6x8

e2x2:
	VLD1.P (R1)(R11), [V24.D2]
	VLD1.P (R2)(R10), [V27.D2]
	ROWS2_D(0, 0, 27, 24)
	SUBS $1, R0, R0
	BNE  e2x2
	B    store

e2x4:
	VLD1.P (R1)(R11), [V24.D2]
	VLD1.P (R2)(R10), [V27.D2, V28.D2]
	ROWS2_D(0, 0, 27, 24)
	ROWS2_D(0, 1, 28, 24)
	SUBS $1, R0, R0
	BNE  e2x4
	B    store

e2x6:
	VLD1.P (R1)(R11), [V24.D2]
	VLD1.P (R2)(R10), [V27.D2, V28.D2, V29.D2]
	ROWS2_D(0, 0, 27, 24)
	ROWS2_D(0, 1, 28, 24)
	ROWS2_D(0, 2, 29, 24)
	SUBS $1, R0, R0
	BNE  e2x6
	B    store

e2x8:
	VLD1.P (R1)(R11), [V24.D2]
	VLD1.P 64(R2), [V27.D2, V28.D2, V29.D2, V30.D2]
	ROWS2_D(0, 0, 27, 24)
	ROWS2_D(0, 1, 28, 24)
	ROWS2_D(0, 2, 29, 24)
	ROWS2_D(0, 3, 30, 24)
	SUBS $1, R0, R0
	BNE  e2x8
	B    store

e4x2:
	VLD1.P (R1)(R11), [V24.D2, V25.D2]
	VLD1.P (R2)(R10), [V27.D2]
	ROWS2_D(0, 0, 27, 24)
	ROWS2_D(2, 0, 27, 25)
	SUBS $1, R0, R0
	BNE  e4x2
	B    store

e4x4:
	VLD1.P (R1)(R11), [V24.D2, V25.D2]
	VLD1.P (R2)(R10), [V27.D2, V28.D2]
	ROWS2_D(0, 0, 27, 24)
	ROWS2_D(0, 1, 28, 24)
	ROWS2_D(2, 0, 27, 25)
	ROWS2_D(2, 1, 28, 25)
	SUBS $1, R0, R0
	BNE  e4x4
	B    store

e4x6:
	VLD1.P (R1)(R11), [V24.D2, V25.D2]
	VLD1.P (R2)(R10), [V27.D2, V28.D2, V29.D2]
	ROWS2_D(0, 0, 27, 24)
	ROWS2_D(0, 1, 28, 24)
	ROWS2_D(0, 2, 29, 24)
	ROWS2_D(2, 0, 27, 25)
	ROWS2_D(2, 1, 28, 25)
	ROWS2_D(2, 2, 29, 25)
	SUBS $1, R0, R0
	BNE  e4x6
	B    store

e4x8:
	VLD1.P (R1)(R11), [V24.D2, V25.D2]
	VLD1.P 64(R2), [V27.D2, V28.D2, V29.D2, V30.D2]
	ROWS2_D(0, 0, 27, 24)
	ROWS2_D(0, 1, 28, 24)
	ROWS2_D(0, 2, 29, 24)
	ROWS2_D(0, 3, 30, 24)
	ROWS2_D(2, 0, 27, 25)
	ROWS2_D(2, 1, 28, 25)
	ROWS2_D(2, 2, 29, 25)
	ROWS2_D(2, 3, 30, 25)
	SUBS $1, R0, R0
	BNE  e4x8
	B    store

e6x2:
	VLD1.P 48(R1), [V24.D2, V25.D2, V26.D2]
	VLD1.P (R2)(R10), [V27.D2]
	ROWS2_D(0, 0, 27, 24)
	ROWS2_D(2, 0, 27, 25)
	ROWS2_D(4, 0, 27, 26)
	SUBS $1, R0, R0
	BNE  e6x2
	B    store

e6x4:
	VLD1.P 48(R1), [V24.D2, V25.D2, V26.D2]
	VLD1.P (R2)(R10), [V27.D2, V28.D2]
	ROWS2_D(0, 0, 27, 24)
	ROWS2_D(0, 1, 28, 24)
	ROWS2_D(2, 0, 27, 25)
	ROWS2_D(2, 1, 28, 25)
	ROWS2_D(4, 0, 27, 26)
	ROWS2_D(4, 1, 28, 26)
	SUBS $1, R0, R0
	BNE  e6x4
	B    store

e6x6:
	VLD1.P 48(R1), [V24.D2, V25.D2, V26.D2]
	VLD1.P (R2)(R10), [V27.D2, V28.D2, V29.D2]
	ROWS2_D(0, 0, 27, 24)
	ROWS2_D(0, 1, 28, 24)
	ROWS2_D(0, 2, 29, 24)
	ROWS2_D(2, 0, 27, 25)
	ROWS2_D(2, 1, 28, 25)
	ROWS2_D(2, 2, 29, 25)
	ROWS2_D(4, 0, 27, 26)
	ROWS2_D(4, 1, 28, 26)
	ROWS2_D(4, 2, 29, 26)
	SUBS $1, R0, R0
	BNE  e6x6
	B    store

e6x8:
	VLD1.P 48(R1), [V24.D2, V25.D2, V26.D2]
	VLD1.P 64(R2), [V27.D2, V28.D2, V29.D2, V30.D2]
	ROWS2_D(0, 0, 27, 24)
	ROWS2_D(0, 1, 28, 24)
	ROWS2_D(0, 2, 29, 24)
	ROWS2_D(0, 3, 30, 24)
	ROWS2_D(2, 0, 27, 25)
	ROWS2_D(2, 1, 28, 25)
	ROWS2_D(2, 2, 29, 25)
	ROWS2_D(2, 3, 30, 25)
	ROWS2_D(4, 0, 27, 26)
	ROWS2_D(4, 1, 28, 26)
	ROWS2_D(4, 2, 29, 26)
	ROWS2_D(4, 3, 30, 26)
	SUBS $1, R0, R0
	BNE  e6x8
	B    store

store:
	MOVD R3, R7 // C element pointer
	MOVD R6, R8 // columns left in the row

vec:
	CMP    $2, R8
	BLT    lanes
	VLD1   (R7), [V31.D2]
	FADD_2D(31, 31, 0)
	VST1.P [V31.D2], 16(R7)
	VMOV   V1.B16, V0.B16
	VMOV   V2.B16, V1.B16
	VMOV   V3.B16, V2.B16
	SUB    $2, R8, R8
	B      vec

lanes:
	CBZ   R8, rowdone
	FMOVD (R7), F31
	FADDD F0, F31, F31
	FMOVD F31, (R7)

rowdone:
	SUBS $1, R5, R5
	BEQ  done
	ADD  R4, R3, R3
	EDGE_SHIFT4
	B    store

done:
	RET

// ---- with beta ----

// The beta kernels (contract in gemmbeta.go) are the kernels above with an
// epilogue that multiplies each C vector by beta (V31) as it loads it,
// the product rounded, and then adds the sums: bitwise what scaling C by
// beta and then running the plain kernel gives, with C read and written
// once.

// fmul vd.4s, vn.4s, vm.4s and fmul vd.2d, vn.2d, vm.2d
#define FMUL_4S(d, n, m) WORD $(0x6e20dc00 | ((m)<<16) | ((n)<<5) | (d))
#define FMUL_2D(d, n, m) WORD $(0x6e60dc00 | ((m)<<16) | ((n)<<5) | (d))

#define ROW_S_BETA(a, t0, t1, t2, T0, T1, T2) \
	VLD1.P (R5)(R4), [T0.S4, T1.S4, T2.S4]; \
	FMUL_4S(t0, t0, 31); \
	FMUL_4S(t1, t1, 31); \
	FMUL_4S(t2, t2, 31); \
	FADD_4S(t0, t0, a); \
	FADD_4S(t1, t1, (a)+1); \
	FADD_4S(t2, t2, (a)+2); \
	VST1.P [T0.S4, T1.S4, T2.S4], (R3)(R4)

#define ROW_D_BETA(a, t0, t1, t2, t3, T0, T1, T2, T3) \
	VLD1.P (R5)(R4), [T0.D2, T1.D2, T2.D2, T3.D2]; \
	FMUL_2D(t0, t0, 31); \
	FMUL_2D(t1, t1, 31); \
	FMUL_2D(t2, t2, 31); \
	FMUL_2D(t3, t3, 31); \
	FADD_2D(t0, t0, a); \
	FADD_2D(t1, t1, (a)+1); \
	FADD_2D(t2, t2, (a)+2); \
	FADD_2D(t3, t3, (a)+3); \
	VST1.P [T0.D2, T1.D2, T2.D2, T3.D2], (R3)(R4)

// func gemmBetaNEON8x12(k int, a, b, c []float32, ldc int, beta float32)
TEXT ·gemmBetaNEON8x12(SB), NOSPLIT, $0-92
	MOVD k+0(FP), R0
	MOVD a_base+8(FP), R1
	MOVD b_base+32(FP), R2
	MOVD c_base+56(FP), R3
	MOVD ldc+80(FP), R4
	LSL  $2, R4, R4 // ldc in bytes

	// Start fetching the C tile, which is only touched at the end. A row is
	// 48 bytes, so at most two lines: its first and its 41st byte (PRFM
	// offsets must be multiples of 8).
	MOVD R3, R5
	PREFETCH_ROW(40)
	PREFETCH_ROW(40)
	PREFETCH_ROW(40)
	PREFETCH_ROW(40)
	PREFETCH_ROW(40)
	PREFETCH_ROW(40)
	PREFETCH_ROW(40)
	PREFETCH_ROW(40)

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

	// k ≤ 0 adds the zero sums, as the reference does.
	CMP  $0, R0
	BLE  store

	VLD1.P 32(R1), [V24.S4, V25.S4]
	VLD1.P 48(R2), [V28.S4, V29.S4, V30.S4]
	SUBS   $1, R0, R0 // steps that load the next one
	BEQ    last

loop:
	STEP_S_NEXT
	SUBS $1, R0, R0
	BNE  loop

last:
	STEP_S_LAST

store:
	FMOVS beta+88(FP), F31
	VDUP  V31.S[0], V31.S4
	MOVD R3, R5
	ROW_S_BETA(0, 24, 25, 26, V24, V25, V26)
	ROW_S_BETA(3, 27, 28, 29, V27, V28, V29)
	ROW_S_BETA(6, 24, 25, 26, V24, V25, V26)
	ROW_S_BETA(9, 27, 28, 29, V27, V28, V29)
	ROW_S_BETA(12, 24, 25, 26, V24, V25, V26)
	ROW_S_BETA(15, 27, 28, 29, V27, V28, V29)
	ROW_S_BETA(18, 24, 25, 26, V24, V25, V26)
	ROW_S_BETA(21, 27, 28, 29, V27, V28, V29)
	RET

// func gemmBetaNEON6x8(k int, a, b, c []float64, ldc int, beta float64)
TEXT ·gemmBetaNEON6x8(SB), NOSPLIT, $0-96
	MOVD k+0(FP), R0
	MOVD a_base+8(FP), R1
	MOVD b_base+32(FP), R2
	MOVD c_base+56(FP), R3
	MOVD ldc+80(FP), R4
	LSL  $3, R4, R4 // ldc in bytes

	// Start fetching the C tile: a row is one 64-byte line, or two.
	MOVD R3, R5
	PREFETCH_ROW(56)
	PREFETCH_ROW(56)
	PREFETCH_ROW(56)
	PREFETCH_ROW(56)
	PREFETCH_ROW(56)
	PREFETCH_ROW(56)

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

	CMP $0, R0
	BLE store

	VLD1.P 48(R1), [V24.D2, V25.D2, V26.D2]
	VLD1.P 64(R2), [V27.D2, V28.D2, V29.D2, V30.D2]
	SUBS   $1, R0, R0
	BEQ    last

loop:
	STEP_D_NEXT
	SUBS $1, R0, R0
	BNE  loop

last:
	STEP_D_LAST

store:
	FMOVD beta+88(FP), F31
	VDUP  V31.D[0], V31.D2
	MOVD R3, R5
	ROW_D_BETA(0, 24, 25, 26, 27, V24, V25, V26, V27)
	ROW_D_BETA(4, 24, 25, 26, 27, V24, V25, V26, V27)
	ROW_D_BETA(8, 24, 25, 26, 27, V24, V25, V26, V27)
	ROW_D_BETA(12, 24, 25, 26, 27, V24, V25, V26, V27)
	ROW_D_BETA(16, 24, 25, 26, 27, V24, V25, V26, V27)
	ROW_D_BETA(20, 24, 25, 26, 27, V24, V25, V26, V27)
	RET
