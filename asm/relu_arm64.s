//go:build gc && !purego

#include "textflag.h"

// The Go assembler has no floating-point vector compare or max, so those
// are WORD encodings behind macros named after their mnemonics (operands
// are register numbers; the encodings were checked with
// aarch64-linux-gnu-objdump).

// fmax vd.4s, vn.4s, vm.4s
#define FMAX_4S(d, n, m) WORD $(0x4e20f400 | (m)<<16 | (n)<<5 | (d))
// fmax vd.2d, vn.2d, vm.2d
#define FMAX_2D(d, n, m) WORD $(0x4e60f400 | (m)<<16 | (n)<<5 | (d))
// fcmgt vd.4s, vn.4s, #0.0
#define FCMGTZ_4S(d, n) WORD $(0x4ea0c800 | (n)<<5 | (d))
// fcmgt vd.2d, vn.2d, #0.0
#define FCMGTZ_2D(d, n) WORD $(0x4ee0c800 | (n)<<5 | (d))

// FMAX with +0 is Go's max(x, 0) on arm64 bit for bit (the compiler emits
// the scalar FMAX for it): NaN in, the same NaN quieted out; max(−0, +0) is
// +0.

// func reluNEONBlocks32(dst, x []float32)
// len(x) is a multiple of 16; 16 floats (four Q registers) per iteration.
TEXT ·reluNEONBlocks32(SB), NOSPLIT, $0-48
	MOVD dst_base+0(FP), R0
	MOVD x_base+24(FP), R1
	MOVD x_len+32(FP), R2
	LSR  $4, R2, R2
	CBZ  R2, done
	VEOR V31.B16, V31.B16, V31.B16

loop:
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	FMAX_4S(0, 0, 31)
	FMAX_4S(1, 1, 31)
	FMAX_4S(2, 2, 31)
	FMAX_4S(3, 3, 31)
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUBS   $1, R2, R2
	BNE    loop

done:
	RET

// func reluNEONBlocks64(dst, x []float64)
// len(x) is a multiple of 8; 8 doubles (four Q registers) per iteration.
TEXT ·reluNEONBlocks64(SB), NOSPLIT, $0-48
	MOVD dst_base+0(FP), R0
	MOVD x_base+24(FP), R1
	MOVD x_len+32(FP), R2
	LSR  $3, R2, R2
	CBZ  R2, done
	VEOR V31.B16, V31.B16, V31.B16

loop:
	VLD1.P 64(R1), [V0.D2, V1.D2, V2.D2, V3.D2]
	FMAX_2D(0, 0, 31)
	FMAX_2D(1, 1, 31)
	FMAX_2D(2, 2, 31)
	FMAX_2D(3, 3, 31)
	VST1.P [V0.D2, V1.D2, V2.D2, V3.D2], 64(R0)
	SUBS   $1, R2, R2
	BNE    loop

done:
	RET

// The derivative mask: m = (x > 0) as all-ones or all-zeros lanes (false
// for NaN), dst = g AND m, so g's bits pass unchanged and every other lane
// is +0.

// func reluGradNEONBlocks32(dst, g, x []float32)
// len(x) is a multiple of 16.
TEXT ·reluGradNEONBlocks32(SB), NOSPLIT, $0-72
	MOVD dst_base+0(FP), R0
	MOVD g_base+24(FP), R1
	MOVD x_base+48(FP), R2
	MOVD x_len+56(FP), R3
	LSR  $4, R3, R3
	CBZ  R3, done

loop:
	VLD1.P 64(R2), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R1), [V4.S4, V5.S4, V6.S4, V7.S4]
	FCMGTZ_4S(0, 0)
	FCMGTZ_4S(1, 1)
	FCMGTZ_4S(2, 2)
	FCMGTZ_4S(3, 3)
	VAND   V4.B16, V0.B16, V0.B16
	VAND   V5.B16, V1.B16, V1.B16
	VAND   V6.B16, V2.B16, V2.B16
	VAND   V7.B16, V3.B16, V3.B16
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUBS   $1, R3, R3
	BNE    loop

done:
	RET

// func reluGradNEONBlocks64(dst, g, x []float64)
// len(x) is a multiple of 8.
TEXT ·reluGradNEONBlocks64(SB), NOSPLIT, $0-72
	MOVD dst_base+0(FP), R0
	MOVD g_base+24(FP), R1
	MOVD x_base+48(FP), R2
	MOVD x_len+56(FP), R3
	LSR  $3, R3, R3
	CBZ  R3, done

loop:
	VLD1.P 64(R2), [V0.D2, V1.D2, V2.D2, V3.D2]
	VLD1.P 64(R1), [V4.D2, V5.D2, V6.D2, V7.D2]
	FCMGTZ_2D(0, 0)
	FCMGTZ_2D(1, 1)
	FCMGTZ_2D(2, 2)
	FCMGTZ_2D(3, 3)
	VAND   V4.B16, V0.B16, V0.B16
	VAND   V5.B16, V1.B16, V1.B16
	VAND   V6.B16, V2.B16, V2.B16
	VAND   V7.B16, V3.B16, V3.B16
	VST1.P [V0.D2, V1.D2, V2.D2, V3.D2], 64(R0)
	SUBS   $1, R3, R3
	BNE    loop

done:
	RET
