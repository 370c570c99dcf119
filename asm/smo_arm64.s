//go:build gc && !purego

#include "textflag.h"

// The SMO passes and AxpyUnfused64 on NEON, two float64 lanes per vector,
// with the operations of the Go twins (smo_generic.go) in their order and
// none fused. Each takes a length that is a positive multiple of 2; the Go
// wrappers (smo_arm64.go) reduce the two lanes and finish the tail.
//
// Speed has not been measured: these kernels were only run under qemu,
// which shows correctness, not speed.
//
// The Go assembler lacks the vector floating-point arithmetic and
// compares, so they are WORD encodings behind macros named after their
// mnemonics (operands are register numbers; the encodings were checked with
// aarch64-linux-gnu-objdump).

// fadd, fsub, fmul, fdiv, fmin vd.2d, vn.2d, vm.2d
#define FADD_2D(d, n, m) WORD $(0x4e60d400 | (m)<<16 | (n)<<5 | (d))
#define FSUB_2D(d, n, m) WORD $(0x4ee0d400 | (m)<<16 | (n)<<5 | (d))
#define FMUL_2D(d, n, m) WORD $(0x6e60dc00 | (m)<<16 | (n)<<5 | (d))
#define FDIV_2D(d, n, m) WORD $(0x6e60fc00 | (m)<<16 | (n)<<5 | (d))
#define FMIN_2D(d, n, m) WORD $(0x4ee0f400 | (m)<<16 | (n)<<5 | (d))
// fcmge vd.2d, vn.2d, vm.2d (vn ≥ vm); fcmgt vd.2d, vn.2d, #0.0; fcmle vd.2d, vn.2d, #0.0
#define FCMGE_2D(d, n, m) WORD $(0x6e60e400 | (m)<<16 | (n)<<5 | (d))
#define FCMGT0_2D(d, n) WORD $(0x4ee0c800 | (n)<<5 | (d))
#define FCMLE0_2D(d, n) WORD $(0x6ee0d800 | (n)<<5 | (d))
// bic vd.16b, vn.16b, vm.16b: vn AND NOT vm
#define BIC_16B(d, n, m) WORD $(0x4e601c00 | (m)<<16 | (n)<<5 | (d))

// LANES sets V26 to the indices {0, 1}, V25 to the step {2, 2} and V23 to
// {−1, −1} (all ones).
#define LANES \
	VEOR  V26.B16, V26.B16, V26.B16; \
	MOVD  $1, R6;                    \
	VMOV  R6, V26.D[1];              \
	MOVD  $2, R6;                    \
	VDUP  R6, V25.D2;                \
	VCMEQ V23.D2, V23.D2, V23.D2

// func smoSelectNEON(g, sgn, lowPen, diag, ki []float64, gmax, qii, shift float64, i int, out *smoLanes2)
TEXT ·smoSelectNEON(SB), NOSPLIT, $0-160
	MOVD g_base+0(FP), R0
	MOVD g_len+8(FP), R5
	MOVD sgn_base+24(FP), R1
	MOVD lowPen_base+48(FP), R2
	MOVD diag_base+72(FP), R3
	MOVD ki_base+96(FP), R4
	MOVD gmax+120(FP), R6
	VDUP R6, V31.D2
	MOVD qii+128(FP), R6
	VDUP R6, V30.D2
	MOVD shift+136(FP), R6
	VDUP R6, V29.D2
	MOVD $0x3d719799812dea11, R6 // 1e-12
	VDUP R6, V28.D2
	MOVD i+144(FP), R6
	VDUP R6, V27.D2
	MOVD $0xfff0000000000000, R6 // −Inf
	VDUP R6, V24.D2
	MOVD $0x7ff0000000000000, R6 // +Inf
	VDUP R6, V22.D2
	LANES

selloop:
	VLD1.P 16(R1), [V0.D2]
	VLD1.P 16(R0), [V1.D2]
	FMUL_2D(0, 0, 1)                // sgn·g
	VLD1.P 16(R2), [V1.D2]
	FSUB_2D(1, 1, 0)                // v = lowPen − sgn·g
	FMIN_2D(22, 22, 1)              // gmin
	FSUB_2D(2, 31, 1)               // b = gmax − v
	FCMGT0_2D(3, 2)                 // b > 0
	VCMEQ  V27.D2, V26.D2, V4.D2    // t = i
	BIC_16B(3, 3, 4)                // b > 0 and t ≠ i
	VLD1.P 16(R3), [V0.D2]
	FADD_2D(0, 30, 0)               // qii + diag
	FADD_2D(0, 0, 29)               // + shift
	VLD1.P 16(R4), [V1.D2]
	FADD_2D(1, 1, 1)                // 2·ki
	FSUB_2D(0, 0, 1)                // q
	FCMLE0_2D(1, 0)                 // q ≤ 0
	VBIT   V1.B16, V28.B16, V0.B16  // q ≤ 0 ? τ : q
	FMUL_2D(2, 2, 2)
	FDIV_2D(2, 2, 0)                // b²/q
	FCMGE_2D(1, 2, 24)              // b²/q ≥ best
	VAND   V3.B16, V1.B16, V1.B16
	VBIT   V1.B16, V2.B16, V24.B16
	VBIT   V1.B16, V26.B16, V23.B16
	VADD   V25.D2, V26.D2, V26.D2
	SUBS   $2, R5, R5
	BNE    selloop

	MOVD out+152(FP), R7
	VST1.P [V24.D2], 16(R7)
	VST1.P [V23.D2], 16(R7)
	VST1   [V22.D2], (R7)
	RET

// func smoUpdateNEON(g, sgn, upPen, ki, kj []float64, d float64, out *smoLanes2)
TEXT ·smoUpdateNEON(SB), NOSPLIT, $0-136
	MOVD g_base+0(FP), R0
	MOVD g_len+8(FP), R5
	MOVD sgn_base+24(FP), R1
	MOVD upPen_base+48(FP), R2
	MOVD ki_base+72(FP), R3
	MOVD kj_base+96(FP), R4
	MOVD d+120(FP), R6
	VDUP R6, V31.D2
	MOVD $0xfff0000000000000, R6 // −Inf
	VDUP R6, V24.D2
	LANES

updloop:
	VLD1.P 16(R1), [V0.D2]
	FMUL_2D(2, 0, 31)               // sgn·d
	VLD1.P 16(R3), [V1.D2]
	VLD1.P 16(R4), [V3.D2]
	FSUB_2D(1, 1, 3)                // ki − kj
	FMUL_2D(2, 2, 1)
	VLD1   (R0), [V3.D2]
	FADD_2D(3, 3, 2)                // g + (sgn·d)·(ki − kj)
	VST1.P [V3.D2], 16(R0)
	FMUL_2D(1, 0, 3)                // sgn·g
	VLD1.P 16(R2), [V4.D2]
	FSUB_2D(4, 4, 1)                // v = upPen − sgn·g
	FCMGE_2D(5, 4, 24)              // v ≥ best
	VBIT   V5.B16, V4.B16, V24.B16
	VBIT   V5.B16, V26.B16, V23.B16
	VADD   V25.D2, V26.D2, V26.D2
	SUBS   $2, R5, R5
	BNE    updloop

	MOVD out+128(FP), R7
	VST1.P [V24.D2], 16(R7)
	VST1   [V23.D2], (R7)
	RET

// func axpyUnfusedNEON(alpha float64, x, y []float64)
TEXT ·axpyUnfusedNEON(SB), NOSPLIT, $0-56
	MOVD alpha+0(FP), R6
	VDUP R6, V31.D2
	MOVD x_base+8(FP), R0
	MOVD x_len+16(FP), R2
	MOVD y_base+32(FP), R1
	CMP  $8, R2
	BLT  axone

axfour:
	VLD1.P 64(R0), [V0.D2, V1.D2, V2.D2, V3.D2]
	VLD1   (R1), [V4.D2, V5.D2, V6.D2, V7.D2]
	FMUL_2D(0, 0, 31)
	FMUL_2D(1, 1, 31)
	FMUL_2D(2, 2, 31)
	FMUL_2D(3, 3, 31)
	FADD_2D(4, 4, 0)
	FADD_2D(5, 5, 1)
	FADD_2D(6, 6, 2)
	FADD_2D(7, 7, 3)
	VST1.P [V4.D2, V5.D2, V6.D2, V7.D2], 64(R1)
	SUB    $8, R2, R2
	CMP    $8, R2
	BGE    axfour

axone:
	CBZ    R2, axdone
	VLD1.P 16(R0), [V0.D2]
	VLD1   (R1), [V4.D2]
	FMUL_2D(0, 0, 31)
	FADD_2D(4, 4, 0)
	VST1.P [V4.D2], 16(R1)
	SUB    $2, R2, R2
	B      axone

axdone:
	RET
