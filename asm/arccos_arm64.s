//go:build gc && !purego

#include "textflag.h"

// The arc-cosine kernels of arccos_generic.go on NEON, two float64 lanes per
// vector, operation for operation (so bit-identical to the Go twin: FMLA
// and FMLS are fused, as math.FMA). The Go assembler has no vector float
// arithmetic besides FMLA/FMLS, so the others are WORD encodings behind
// macros named after their mnemonics (operands are register numbers, .2d
// arrangement; encodings checked with aarch64-linux-gnu-objdump).

// fadd/fsub/fmul/fmax/fmin vd.2d, vn.2d, vm.2d; fcmgt vd = (vn > vm)
#define FADD(d, n, m) WORD $(0x4e60d400 | (m)<<16 | (n)<<5 | (d))
#define FSUB(d, n, m) WORD $(0x4ee0d400 | (m)<<16 | (n)<<5 | (d))
#define FMUL(d, n, m) WORD $(0x6e60dc00 | (m)<<16 | (n)<<5 | (d))
#define FMAX(d, n, m) WORD $(0x4e60f400 | (m)<<16 | (n)<<5 | (d))
#define FMIN(d, n, m) WORD $(0x4ee0f400 | (m)<<16 | (n)<<5 | (d))
#define FCMGT(d, n, m) WORD $(0x6ee0e400 | (m)<<16 | (n)<<5 | (d))
// fmla vd += vn·vm, fmls vd −= vn·vm (fused)
#define FMLA(d, n, m) WORD $(0x4e60cc00 | (m)<<16 | (n)<<5 | (d))
#define FMLS(d, n, m) WORD $(0x4ee0cc00 | (m)<<16 | (n)<<5 | (d))
// bit vd.16b, vn.16b, vm.16b: vd = vm ? vn : vd, bitwise
#define BIT(d, n, m) WORD $(0x6ea01c00 | (m)<<16 | (n)<<5 | (d))
// fsqrt, fabs, fneg vd.2d, vn.2d
#define FSQRT(d, n) WORD $(0x6ee1f800 | (n)<<5 | (d))
#define FABS(d, n) WORD $(0x4ee0f800 | (n)<<5 | (d))
#define FNEG(d, n) WORD $(0x6ee0f800 | (n)<<5 | (d))

// Constants, each stored twice (one Q register): V20 = 1, V21 = 1/2,
// V22 = −1, V23 = sign mask, V24 = pio2Hi, V25 = pio2Lo, V26 = 1/(2π),
// V27 = snapRho, V28 = 8; then the coefficients C11…C0 of P at +144.
DATA acosneon<>+0(SB)/8, $0x3ff0000000000000
DATA acosneon<>+8(SB)/8, $0x3ff0000000000000
DATA acosneon<>+16(SB)/8, $0x3fe0000000000000
DATA acosneon<>+24(SB)/8, $0x3fe0000000000000
DATA acosneon<>+32(SB)/8, $0xbff0000000000000
DATA acosneon<>+40(SB)/8, $0xbff0000000000000
DATA acosneon<>+48(SB)/8, $0x8000000000000000
DATA acosneon<>+56(SB)/8, $0x8000000000000000
DATA acosneon<>+64(SB)/8, $0x3ff921fb54442d18
DATA acosneon<>+72(SB)/8, $0x3ff921fb54442d18
DATA acosneon<>+80(SB)/8, $0x3c91a62633145c07
DATA acosneon<>+88(SB)/8, $0x3c91a62633145c07
DATA acosneon<>+96(SB)/8, $0x3fc45f306dc9c883
DATA acosneon<>+104(SB)/8, $0x3fc45f306dc9c883
DATA acosneon<>+112(SB)/8, $0x3feffffffffffff7
DATA acosneon<>+120(SB)/8, $0x3feffffffffffff7
DATA acosneon<>+128(SB)/8, $0x4020000000000000
DATA acosneon<>+136(SB)/8, $0x4020000000000000
DATA acosneon<>+144(SB)/8, $0x3d8d6834b524f423
DATA acosneon<>+152(SB)/8, $0x3d8d6834b524f423
DATA acosneon<>+160(SB)/8, $0x3dbca55b60cb350b
DATA acosneon<>+168(SB)/8, $0x3dbca55b60cb350b
DATA acosneon<>+176(SB)/8, $0x3deb6c969ff65cb7
DATA acosneon<>+184(SB)/8, $0x3deb6c969ff65cb7
DATA acosneon<>+192(SB)/8, $0x3e1c051f2b82ad70
DATA acosneon<>+200(SB)/8, $0x3e1c051f2b82ad70
DATA acosneon<>+208(SB)/8, $0x3e4d21bf519f433b
DATA acosneon<>+216(SB)/8, $0x3e4d21bf519f433b
DATA acosneon<>+224(SB)/8, $0x3e7eefbbc2674dd0
DATA acosneon<>+232(SB)/8, $0x3e7eefbbc2674dd0
DATA acosneon<>+240(SB)/8, $0x3eb0e70f747ba66d
DATA acosneon<>+248(SB)/8, $0x3eb0e70f747ba66d
DATA acosneon<>+256(SB)/8, $0x3ee3316d9a7bc2dc
DATA acosneon<>+264(SB)/8, $0x3ee3316d9a7bc2dc
DATA acosneon<>+272(SB)/8, $0x3f1702d48c62640f
DATA acosneon<>+280(SB)/8, $0x3f1702d48c62640f
DATA acosneon<>+288(SB)/8, $0x3f4df7ed1247b2b9
DATA acosneon<>+296(SB)/8, $0x3f4df7ed1247b2b9
DATA acosneon<>+304(SB)/8, $0x3f8678fec81fcf3d
DATA acosneon<>+312(SB)/8, $0x3f8678fec81fcf3d
DATA acosneon<>+320(SB)/8, $0x3fc6a1887fac5ab1
DATA acosneon<>+328(SB)/8, $0x3fc6a1887fac5ab1
GLOBL acosneon<>(SB), RODATA|NOPTR, $336

// CONSTS_NEON loads V20–V28.
#define CONSTS_NEON \
	MOVD   $acosneon<>(SB), R11                        \
	VLD1.P 64(R11), [V20.D2, V21.D2, V22.D2, V23.D2] \
	VLD1.P 64(R11), [V24.D2, V25.D2, V26.D2, V27.D2] \
	VLD1   (R11), [V28.D2]

// ACOS_NEON sets V0 = acos(V0) for V0 in [−1, 1] (the formula of
// arccos_generic.go; V1 = a then w, V2 = sign x, V3 = big, V4 = z,
// V6 = t, P by Horner through V16–V19 reloaded from the table, V9 = p =
// asin(w), V5 = k, V7 = m). Clobbers V1–V9, V16–V19 and R11.
#define ACOS_NEON \
	FABS(1, 0)                                        \
	VAND   V23.B16, V0.B16, V2.B16                    \
	VORR   V20.B16, V2.B16, V2.B16                    \
	FCMGT(3, 1, 21)                                   \
	FMUL(4, 1, 1)                                     \
	FSUB(5, 20, 1)                                    \
	FMUL(5, 5, 21)                                    \
	BIT(4, 5, 3)                                      \
	FSQRT(5, 4)                                       \
	BIT(1, 5, 3)                                      \
	VORR   V22.B16, V22.B16, V6.B16                   \
	FMLA(6, 4, 28)                                    \
	MOVD   $acosneon<>+144(SB), R11                   \
	VLD1.P 64(R11), [V16.D2, V17.D2, V18.D2, V19.D2] \
	FMLA(17, 16, 6)                                   \
	FMLA(18, 17, 6)                                   \
	FMLA(19, 18, 6)                                   \
	VORR   V19.B16, V19.B16, V7.B16                   \
	VLD1.P 64(R11), [V16.D2, V17.D2, V18.D2, V19.D2] \
	FMLA(16, 7, 6)                                    \
	FMLA(17, 16, 6)                                   \
	FMLA(18, 17, 6)                                   \
	FMLA(19, 18, 6)                                   \
	VORR   V19.B16, V19.B16, V7.B16                   \
	VLD1   (R11), [V16.D2, V17.D2, V18.D2, V19.D2]    \
	FMLA(16, 7, 6)                                    \
	FMLA(17, 16, 6)                                   \
	FMLA(18, 17, 6)                                   \
	FMLA(19, 18, 6)                                   \
	FMUL(8, 1, 4)                                     \
	VORR   V1.B16, V1.B16, V9.B16                     \
	FMLA(9, 8, 19)                                    \
	FSUB(4, 20, 2)                                    \
	VORR   V20.B16, V20.B16, V5.B16                   \
	BIT(5, 4, 3)                                      \
	FADD(6, 2, 2)                                     \
	FNEG(6, 6)                                        \
	VORR   V2.B16, V2.B16, V7.B16                     \
	BIT(7, 6, 3)                                      \
	FMUL(8, 5, 25)                                    \
	FNEG(8, 8)                                        \
	FMLA(8, 7, 9)                                     \
	FMUL(0, 5, 24)                                    \
	FSUB(0, 0, 8)

// LAYER_NEON takes ρ unclamped in V0 (V10 = ni, V12 = sw2, V13 = sb2,
// R2 → nj, post-incremented) and leaves Σ' = sw2·K + sb2 in V4 and K̇ in
// V3, as arcCosPair does: clamp, snap within 8 ulp of ±1, φ = acos(−ρ),
// sin θ = √(1 − ρ²), K = max((ni·nj)/(2π)·(φ·ρ + sin θ), +0), K̇ = φ/(2π).
// Clobbers V0–V9, V16–V19, V30 (ρ) and R11.
#define LAYER_NEON \
	FMAX(0, 0, 22)                  \
	FMIN(0, 0, 20)                  \
	FABS(1, 0)                      \
	FCMGT(2, 1, 27)                 \
	VAND   V23.B16, V0.B16, V3.B16  \
	VORR   V20.B16, V3.B16, V3.B16  \
	BIT(0, 3, 2)                    \
	VORR   V0.B16, V0.B16, V30.B16  \
	FNEG(0, 0)                      \
	ACOS_NEON                       \
	VORR   V20.B16, V20.B16, V1.B16 \
	FMLS(1, 30, 30)                 \
	FSQRT(1, 1)                     \
	FMLA(1, 0, 30)                  \
	VLD1.P 16(R2), [V2.D2]          \
	FMUL(2, 10, 2)                  \
	FMUL(2, 2, 26)                  \
	FMUL(2, 2, 1)                   \
	VEOR   V3.B16, V3.B16, V3.B16   \
	FMAX(2, 2, 3)                   \
	FMUL(3, 0, 26)                  \
	VORR   V13.B16, V13.B16, V4.B16 \
	FMLA(4, 12, 2)

// func acos64NEONBlocks(dst, x []float64)
// len(x) is a multiple of 2.
TEXT ·acos64NEONBlocks(SB), NOSPLIT, $0-48
	MOVD dst_base+0(FP), R0
	MOVD x_base+24(FP), R1
	MOVD x_len+32(FP), R2
	LSR  $1, R2, R2
	CBZ  R2, adone
	CONSTS_NEON

aloop:
	VLD1.P 16(R1), [V0.D2]
	FMAX(0, 0, 22)
	FMIN(0, 0, 20)
	ACOS_NEON
	VST1.P [V0.D2], 16(R0)
	SUBS   $1, R2, R2
	BNE    aloop

adone:
	RET

// func arcCosLayer64NEONBlocks(sig, ntk []float64, ni, invi float64, nj, invj []float64, sw2, sb2 float64)
// len(sig) is a multiple of 2; the other slices are at least as long.
TEXT ·arcCosLayer64NEONBlocks(SB), NOSPLIT, $0-128
	MOVD sig_base+0(FP), R0
	MOVD sig_len+8(FP), R5
	MOVD ntk_base+24(FP), R1
	MOVD nj_base+64(FP), R2
	MOVD invj_base+88(FP), R3
	LSR  $1, R5, R5
	CBZ  R5, ldone
	CONSTS_NEON
	MOVD ni+48(FP), R6
	VDUP R6, V10.D2
	MOVD invi+56(FP), R6
	VDUP R6, V11.D2
	MOVD sw2+112(FP), R6
	VDUP R6, V12.D2
	MOVD sb2+120(FP), R6
	VDUP R6, V13.D2

lloop:
	VLD1.P 16(R3), [V9.D2]
	FMUL(9, 11, 9)
	VLD1   (R0), [V0.D2]
	FMUL(0, 0, 9)
	LAYER_NEON
	VLD1   (R1), [V5.D2]
	FMUL(5, 5, 3)
	VORR   V4.B16, V4.B16, V6.B16
	FMLA(6, 12, 5)
	VST1.P [V4.D2], 16(R0)
	VST1.P [V6.D2], 16(R1)
	SUBS   $1, R5, R5
	BNE    lloop

ldone:
	RET

// func arcCosFirst64NEONBlocks(sig, ntk, g []float64, a, b, ni, invi float64, nj, invj []float64, sw2, sb2 float64)
// len(g) is a multiple of 2; the other slices are at least as long.
TEXT ·arcCosFirst64NEONBlocks(SB), NOSPLIT, $0-168
	MOVD sig_base+0(FP), R0
	MOVD ntk_base+24(FP), R1
	MOVD g_base+48(FP), R4
	MOVD g_len+56(FP), R5
	MOVD nj_base+104(FP), R2
	MOVD invj_base+128(FP), R3
	LSR  $1, R5, R5
	CBZ  R5, fdone
	CONSTS_NEON
	MOVD a+72(FP), R6
	VDUP R6, V14.D2
	MOVD b+80(FP), R6
	VDUP R6, V15.D2
	MOVD ni+88(FP), R6
	VDUP R6, V10.D2
	MOVD invi+96(FP), R6
	VDUP R6, V11.D2
	MOVD sw2+152(FP), R6
	VDUP R6, V12.D2
	MOVD sb2+160(FP), R6
	VDUP R6, V13.D2

floop:
	VLD1.P 16(R4), [V8.D2]
	VORR   V15.B16, V15.B16, V31.B16
	FMLA(31, 14, 8)
	VLD1.P 16(R3), [V9.D2]
	FMUL(9, 11, 9)
	FMUL(0, 31, 9)
	LAYER_NEON
	FMUL(5, 31, 3)
	VORR   V4.B16, V4.B16, V6.B16
	FMLA(6, 12, 5)
	VST1.P [V4.D2], 16(R0)
	VST1.P [V6.D2], 16(R1)
	SUBS   $1, R5, R5
	BNE    floop

fdone:
	RET
