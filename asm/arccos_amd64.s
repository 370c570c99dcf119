//go:build gc && !purego

#include "textflag.h"

// Constants of the arc-cosine kernels (see arccos_generic.go), each stored
// four times (32 bytes) so that AVX2 can use them as memory operands; the
// AVX-512 kernels broadcast the first copy.
#define AC_C11 0
#define AC_C10 32
#define AC_C9 64
#define AC_C8 96
#define AC_C7 128
#define AC_C6 160
#define AC_C5 192
#define AC_C4 224
#define AC_C3 256
#define AC_C2 288
#define AC_C1 320
#define AC_C0 352
#define AC_ONE 384
#define AC_HALF 416
#define AC_EIGHT 448
#define AC_MONE 480
#define AC_PIO2HI 512
#define AC_PIO2LO 544
#define AC_SIGN 576
#define AC_ABS 608
#define AC_MTWO 640
#define AC_INV2PI 672
#define AC_SNAP 704
DATA acosconst<>+0(SB)/8, $0x3d8d6834b524f423
DATA acosconst<>+8(SB)/8, $0x3d8d6834b524f423
DATA acosconst<>+16(SB)/8, $0x3d8d6834b524f423
DATA acosconst<>+24(SB)/8, $0x3d8d6834b524f423
DATA acosconst<>+32(SB)/8, $0x3dbca55b60cb350b
DATA acosconst<>+40(SB)/8, $0x3dbca55b60cb350b
DATA acosconst<>+48(SB)/8, $0x3dbca55b60cb350b
DATA acosconst<>+56(SB)/8, $0x3dbca55b60cb350b
DATA acosconst<>+64(SB)/8, $0x3deb6c969ff65cb7
DATA acosconst<>+72(SB)/8, $0x3deb6c969ff65cb7
DATA acosconst<>+80(SB)/8, $0x3deb6c969ff65cb7
DATA acosconst<>+88(SB)/8, $0x3deb6c969ff65cb7
DATA acosconst<>+96(SB)/8, $0x3e1c051f2b82ad70
DATA acosconst<>+104(SB)/8, $0x3e1c051f2b82ad70
DATA acosconst<>+112(SB)/8, $0x3e1c051f2b82ad70
DATA acosconst<>+120(SB)/8, $0x3e1c051f2b82ad70
DATA acosconst<>+128(SB)/8, $0x3e4d21bf519f433b
DATA acosconst<>+136(SB)/8, $0x3e4d21bf519f433b
DATA acosconst<>+144(SB)/8, $0x3e4d21bf519f433b
DATA acosconst<>+152(SB)/8, $0x3e4d21bf519f433b
DATA acosconst<>+160(SB)/8, $0x3e7eefbbc2674dd0
DATA acosconst<>+168(SB)/8, $0x3e7eefbbc2674dd0
DATA acosconst<>+176(SB)/8, $0x3e7eefbbc2674dd0
DATA acosconst<>+184(SB)/8, $0x3e7eefbbc2674dd0
DATA acosconst<>+192(SB)/8, $0x3eb0e70f747ba66d
DATA acosconst<>+200(SB)/8, $0x3eb0e70f747ba66d
DATA acosconst<>+208(SB)/8, $0x3eb0e70f747ba66d
DATA acosconst<>+216(SB)/8, $0x3eb0e70f747ba66d
DATA acosconst<>+224(SB)/8, $0x3ee3316d9a7bc2dc
DATA acosconst<>+232(SB)/8, $0x3ee3316d9a7bc2dc
DATA acosconst<>+240(SB)/8, $0x3ee3316d9a7bc2dc
DATA acosconst<>+248(SB)/8, $0x3ee3316d9a7bc2dc
DATA acosconst<>+256(SB)/8, $0x3f1702d48c62640f
DATA acosconst<>+264(SB)/8, $0x3f1702d48c62640f
DATA acosconst<>+272(SB)/8, $0x3f1702d48c62640f
DATA acosconst<>+280(SB)/8, $0x3f1702d48c62640f
DATA acosconst<>+288(SB)/8, $0x3f4df7ed1247b2b9
DATA acosconst<>+296(SB)/8, $0x3f4df7ed1247b2b9
DATA acosconst<>+304(SB)/8, $0x3f4df7ed1247b2b9
DATA acosconst<>+312(SB)/8, $0x3f4df7ed1247b2b9
DATA acosconst<>+320(SB)/8, $0x3f8678fec81fcf3d
DATA acosconst<>+328(SB)/8, $0x3f8678fec81fcf3d
DATA acosconst<>+336(SB)/8, $0x3f8678fec81fcf3d
DATA acosconst<>+344(SB)/8, $0x3f8678fec81fcf3d
DATA acosconst<>+352(SB)/8, $0x3fc6a1887fac5ab1
DATA acosconst<>+360(SB)/8, $0x3fc6a1887fac5ab1
DATA acosconst<>+368(SB)/8, $0x3fc6a1887fac5ab1
DATA acosconst<>+376(SB)/8, $0x3fc6a1887fac5ab1
DATA acosconst<>+384(SB)/8, $0x3ff0000000000000
DATA acosconst<>+392(SB)/8, $0x3ff0000000000000
DATA acosconst<>+400(SB)/8, $0x3ff0000000000000
DATA acosconst<>+408(SB)/8, $0x3ff0000000000000
DATA acosconst<>+416(SB)/8, $0x3fe0000000000000
DATA acosconst<>+424(SB)/8, $0x3fe0000000000000
DATA acosconst<>+432(SB)/8, $0x3fe0000000000000
DATA acosconst<>+440(SB)/8, $0x3fe0000000000000
DATA acosconst<>+448(SB)/8, $0x4020000000000000
DATA acosconst<>+456(SB)/8, $0x4020000000000000
DATA acosconst<>+464(SB)/8, $0x4020000000000000
DATA acosconst<>+472(SB)/8, $0x4020000000000000
DATA acosconst<>+480(SB)/8, $0xbff0000000000000
DATA acosconst<>+488(SB)/8, $0xbff0000000000000
DATA acosconst<>+496(SB)/8, $0xbff0000000000000
DATA acosconst<>+504(SB)/8, $0xbff0000000000000
DATA acosconst<>+512(SB)/8, $0x3ff921fb54442d18
DATA acosconst<>+520(SB)/8, $0x3ff921fb54442d18
DATA acosconst<>+528(SB)/8, $0x3ff921fb54442d18
DATA acosconst<>+536(SB)/8, $0x3ff921fb54442d18
DATA acosconst<>+544(SB)/8, $0x3c91a62633145c07
DATA acosconst<>+552(SB)/8, $0x3c91a62633145c07
DATA acosconst<>+560(SB)/8, $0x3c91a62633145c07
DATA acosconst<>+568(SB)/8, $0x3c91a62633145c07
DATA acosconst<>+576(SB)/8, $0x8000000000000000
DATA acosconst<>+584(SB)/8, $0x8000000000000000
DATA acosconst<>+592(SB)/8, $0x8000000000000000
DATA acosconst<>+600(SB)/8, $0x8000000000000000
DATA acosconst<>+608(SB)/8, $0x7fffffffffffffff
DATA acosconst<>+616(SB)/8, $0x7fffffffffffffff
DATA acosconst<>+624(SB)/8, $0x7fffffffffffffff
DATA acosconst<>+632(SB)/8, $0x7fffffffffffffff
DATA acosconst<>+640(SB)/8, $0xc000000000000000
DATA acosconst<>+648(SB)/8, $0xc000000000000000
DATA acosconst<>+656(SB)/8, $0xc000000000000000
DATA acosconst<>+664(SB)/8, $0xc000000000000000
DATA acosconst<>+672(SB)/8, $0x3fc45f306dc9c883
DATA acosconst<>+680(SB)/8, $0x3fc45f306dc9c883
DATA acosconst<>+688(SB)/8, $0x3fc45f306dc9c883
DATA acosconst<>+696(SB)/8, $0x3fc45f306dc9c883
DATA acosconst<>+704(SB)/8, $0x3feffffffffffff7
DATA acosconst<>+712(SB)/8, $0x3feffffffffffff7
DATA acosconst<>+720(SB)/8, $0x3feffffffffffff7
DATA acosconst<>+728(SB)/8, $0x3feffffffffffff7
GLOBL acosconst<>(SB), RODATA|NOPTR, $736

#define K(off) acosconst<>+off(SB)

// ACOS_AVX2 sets Y0 = acos(Y0) for Y0 in [−1, 1] by the formula of
// arccos_generic.go, operation for operation. Clobbers Y1–Y8.
#define ACOS_AVX2 \
	VANDPD      K(AC_ABS), Y0, Y1   \
	VANDPD      K(AC_SIGN), Y0, Y2  \
	VORPD       K(AC_ONE), Y2, Y2   \
	VCMPPD      $0x1e, K(AC_HALF), Y1, Y3 \
	VMULPD      Y1, Y1, Y4          \
	VMOVUPD     K(AC_ONE), Y5       \
	VSUBPD      Y1, Y5, Y5          \
	VMULPD      K(AC_HALF), Y5, Y5  \
	VBLENDVPD   Y3, Y5, Y4, Y4      \
	VSQRTPD     Y4, Y5              \
	VBLENDVPD   Y3, Y5, Y1, Y5      \
	VMOVUPD     K(AC_EIGHT), Y6     \
	VFMADD213PD K(AC_MONE), Y4, Y6  \
	VMOVUPD     K(AC_C11), Y7       \
	VFMADD213PD K(AC_C10), Y6, Y7   \
	VFMADD213PD K(AC_C9), Y6, Y7    \
	VFMADD213PD K(AC_C8), Y6, Y7    \
	VFMADD213PD K(AC_C7), Y6, Y7    \
	VFMADD213PD K(AC_C6), Y6, Y7    \
	VFMADD213PD K(AC_C5), Y6, Y7    \
	VFMADD213PD K(AC_C4), Y6, Y7    \
	VFMADD213PD K(AC_C3), Y6, Y7    \
	VFMADD213PD K(AC_C2), Y6, Y7    \
	VFMADD213PD K(AC_C1), Y6, Y7    \
	VFMADD213PD K(AC_C0), Y6, Y7    \
	VMULPD      Y4, Y5, Y8          \
	VFMADD213PD Y5, Y8, Y7          \
	VMOVUPD     K(AC_ONE), Y1       \
	VSUBPD      Y2, Y1, Y4          \
	VBLENDVPD   Y3, Y4, Y1, Y4      \
	VMULPD      K(AC_MTWO), Y2, Y5  \
	VBLENDVPD   Y3, Y5, Y2, Y5      \
	VMULPD      K(AC_PIO2LO), Y4, Y6 \
	VFMSUB213PD Y6, Y7, Y5          \
	VMULPD      K(AC_PIO2HI), Y4, Y0 \
	VSUBPD      Y5, Y0, Y0          // C − (m·p − Clo)

// func acos64AVX2Blocks(dst, x []float64)
// Requires: AVX2, FMA3. len(x) is a multiple of 4.
TEXT ·acos64AVX2Blocks(SB), NOSPLIT, $0-48
	MOVQ    dst_base+0(FP), DI
	MOVQ    x_base+24(FP), SI
	MOVQ    x_len+32(FP), CX
	SHRQ    $2, CX
	JZ      done
	VMOVUPD K(AC_MONE), Y9
	VMOVUPD K(AC_ONE), Y10

loop:
	VMOVUPD (SI), Y0
	VMAXPD  Y0, Y9, Y0  // = vmaxpd y0, y9, y0: x is the 2nd source, so NaN x wins
	VMINPD  Y0, Y10, Y0
	ACOS_AVX2
	VMOVUPD Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     loop
	VZEROUPPER

done:
	RET

// LAYER_AVX2 takes ρ unclamped in Y0 (Y9 = −1, Y10 = 1, Y11 = ni,
// Y13 = sw2, Y14 = sb2, R8 → nj) and leaves Σ' = sw2·K + sb2 in Y2 and K̇
// in Y3, as arcCosPair does. Clobbers Y0–Y8 and Y15 (ρ).
#define LAYER_AVX2 \
	VMAXPD       Y0, Y9, Y0          \
	VMINPD       Y0, Y10, Y0         \
	VANDPD       K(AC_ABS), Y0, Y1   \
	VCMPPD       $0x1e, K(AC_SNAP), Y1, Y2 \
	VANDPD       K(AC_SIGN), Y0, Y3  \
	VORPD        Y10, Y3, Y3         \
	VBLENDVPD    Y2, Y3, Y0, Y0      \
	VMOVAPD      Y0, Y15             \
	VXORPD       K(AC_SIGN), Y0, Y0  \
	ACOS_AVX2                        \
	VMOVAPD      Y10, Y1             \
	VFNMADD231PD Y15, Y15, Y1        \
	VSQRTPD      Y1, Y1              \
	VFMADD231PD  Y15, Y0, Y1         \
	VMULPD       (R8), Y11, Y2       \
	VMULPD       K(AC_INV2PI), Y2, Y2 \
	VMULPD       Y1, Y2, Y2          \
	VXORPD       Y4, Y4, Y4          \
	VMAXPD       Y4, Y2, Y2          \
	VMULPD       K(AC_INV2PI), Y0, Y3 \
	VFMADD213PD  Y14, Y13, Y2

// In LAYER_AVX2, step by step: clamp ρ to [−1, 1] (x is the 2nd source of
// max/min); snap |ρ| within 8 ulp of 1 to ±1; φ = acos(−ρ) = π − θ;
// sin θ = √(1 − ρ²); K = max((ni·nj)/(2π)·(φ·ρ + sin θ), +0);
// K̇ = φ/(2π); Σ' = sw2·K + sb2.

// func arcCosLayer64AVX2Blocks(sig, ntk []float64, ni, invi float64, nj, invj []float64, sw2, sb2 float64)
// Requires: AVX2, FMA3. len(sig) is a multiple of 4; the other slices are
// at least as long.
TEXT ·arcCosLayer64AVX2Blocks(SB), NOSPLIT, $0-128
	MOVQ         sig_base+0(FP), SI
	MOVQ         sig_len+8(FP), CX
	MOVQ         ntk_base+24(FP), DI
	MOVQ         nj_base+64(FP), R8
	MOVQ         invj_base+88(FP), R9
	SHRQ         $2, CX
	JZ           ldone
	VMOVUPD      K(AC_MONE), Y9
	VMOVUPD      K(AC_ONE), Y10
	VBROADCASTSD ni+48(FP), Y11
	VBROADCASTSD invi+56(FP), Y12
	VBROADCASTSD sw2+112(FP), Y13
	VBROADCASTSD sb2+120(FP), Y14

lloop:
	VMULPD      (R9), Y12, Y0       // invi·invj
	VMULPD      (SI), Y0, Y0        // ρ = sig·(invi·invj)
	LAYER_AVX2
	VMULPD      (DI), Y3, Y3        // ntk·K̇
	VFMADD213PD Y2, Y13, Y3         // ntk' = sw2·ntk·K̇ + Σ'
	VMOVUPD     Y2, (SI)
	VMOVUPD     Y3, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DI
	ADDQ        $32, R8
	ADDQ        $32, R9
	DECQ        CX
	JNZ         lloop
	VZEROUPPER

ldone:
	RET

// func arcCosFirst64AVX2Blocks(sig, ntk, g []float64, a, b, ni, invi float64, nj, invj []float64, sw2, sb2 float64)
// Requires: AVX2, FMA3. len(g) is a multiple of 4; the other slices are at
// least as long.
TEXT ·arcCosFirst64AVX2Blocks(SB), NOSPLIT, $0-168
	MOVQ         sig_base+0(FP), SI
	MOVQ         ntk_base+24(FP), DI
	MOVQ         g_base+48(FP), R10
	MOVQ         g_len+56(FP), CX
	MOVQ         nj_base+104(FP), R8
	MOVQ         invj_base+128(FP), R9
	SHRQ         $2, CX
	JZ           fdone
	VMOVUPD      K(AC_MONE), Y9
	VMOVUPD      K(AC_ONE), Y10
	VBROADCASTSD ni+88(FP), Y11
	VBROADCASTSD invi+96(FP), Y12
	VBROADCASTSD sw2+152(FP), Y13
	VBROADCASTSD sb2+160(FP), Y14

floop:
	VBROADCASTSD a+72(FP), Y1
	VBROADCASTSD b+80(FP), Y2
	VMOVUPD      (R10), Y0
	VFMADD213PD  Y2, Y1, Y0         // Σ = a·g + b
	VMULPD       (R9), Y12, Y1      // invi·invj
	VMULPD       Y1, Y0, Y0         // ρ
	LAYER_AVX2
	VBROADCASTSD a+72(FP), Y5
	VBROADCASTSD b+80(FP), Y6
	VMOVUPD      (R10), Y4
	VFMADD213PD  Y6, Y5, Y4         // Θ = a·g + b
	VMULPD       Y4, Y3, Y3         // Θ·K̇
	VFMADD213PD  Y2, Y13, Y3        // ntk' = sw2·Θ·K̇ + Σ'
	VMOVUPD      Y2, (SI)
	VMOVUPD      Y3, (DI)
	ADDQ         $32, SI
	ADDQ         $32, DI
	ADDQ         $32, R8
	ADDQ         $32, R9
	ADDQ         $32, R10
	DECQ         CX
	JNZ          floop
	VZEROUPPER

fdone:
	RET

// ACOS_AVX512 sets Z0 = acos(Z0) for Z0 in [−1, 1], as ACOS_AVX2. It needs
// the constants loaded by AVX512_CONSTS and clobbers Z1–Z8 and K1.
#define ACOS_AVX512 \
	VPANDQ           Z24, Z0, Z1        \
	VPANDQ           Z23, Z0, Z2        \
	VPORQ            Z20, Z2, Z2        \
	VCMPPD           $0x1e, Z21, Z1, K1 \
	VMULPD           Z1, Z1, Z4         \
	VSUBPD           Z1, Z20, Z5        \
	VMULPD           Z21, Z5, K1, Z4    \
	VMOVAPD          Z1, Z5             \
	VSQRTPD          Z4, K1, Z5         \
	VMOVAPD          Z27, Z6            \
	VFMADD213PD      Z22, Z4, Z6        \
	VBROADCASTSD     K(AC_C11), Z7      \
	VFMADD213PD.BCST K(AC_C10), Z6, Z7  \
	VFMADD213PD.BCST K(AC_C9), Z6, Z7   \
	VFMADD213PD.BCST K(AC_C8), Z6, Z7   \
	VFMADD213PD.BCST K(AC_C7), Z6, Z7   \
	VFMADD213PD.BCST K(AC_C6), Z6, Z7   \
	VFMADD213PD.BCST K(AC_C5), Z6, Z7   \
	VFMADD213PD.BCST K(AC_C4), Z6, Z7   \
	VFMADD213PD.BCST K(AC_C3), Z6, Z7   \
	VFMADD213PD.BCST K(AC_C2), Z6, Z7   \
	VFMADD213PD.BCST K(AC_C1), Z6, Z7   \
	VFMADD213PD.BCST K(AC_C0), Z6, Z7   \
	VMULPD           Z4, Z5, Z8         \
	VFMADD213PD      Z5, Z8, Z7         \
	VMOVAPD          Z20, Z4            \
	VSUBPD           Z2, Z20, K1, Z4    \
	VMOVAPD          Z2, Z5             \
	VMULPD           Z25, Z2, K1, Z5    \
	VMULPD           Z29, Z4, Z6        \
	VFMSUB213PD      Z6, Z7, Z5         \
	VMULPD           Z28, Z4, Z0        \
	VSUBPD           Z5, Z0, Z0

// AVX512_CONSTS loads the constants of ACOS_AVX512 into Z20–Z29.
#define AVX512_CONSTS \
	VBROADCASTSD K(AC_ONE), Z20    \
	VBROADCASTSD K(AC_HALF), Z21   \
	VBROADCASTSD K(AC_MONE), Z22   \
	VBROADCASTSD K(AC_SIGN), Z23   \
	VBROADCASTSD K(AC_ABS), Z24    \
	VBROADCASTSD K(AC_MTWO), Z25   \
	VBROADCASTSD K(AC_INV2PI), Z26 \
	VBROADCASTSD K(AC_EIGHT), Z27  \
	VBROADCASTSD K(AC_PIO2HI), Z28 \
	VBROADCASTSD K(AC_PIO2LO), Z29

// func acos64AVX512Blocks(dst, x []float64)
// Requires: AVX512F. len(x) is a multiple of 8.
TEXT ·acos64AVX512Blocks(SB), NOSPLIT, $0-48
	MOVQ    dst_base+0(FP), DI
	MOVQ    x_base+24(FP), SI
	MOVQ    x_len+32(FP), CX
	SHRQ    $3, CX
	JZ      zdone
	AVX512_CONSTS

zloop:
	VMOVUPD (SI), Z0
	VMAXPD  Z0, Z22, Z0 // x is the 2nd source: NaN x wins
	VMINPD  Z0, Z20, Z0
	ACOS_AVX512
	VMOVUPD Z0, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     zloop
	VZEROUPPER

zdone:
	RET

// LAYER_AVX512 is LAYER_AVX2 on Z registers: ρ unclamped in Z0 (constants
// in Z20–Z29, Z16 = ni, Z18 = sw2, Z19 = sb2, R8 → nj); leaves Σ' in Z2 and
// K̇ in Z3. Clobbers Z0–Z8, Z15, K1 and K2.
#define LAYER_AVX512 \
	VMAXPD       Z0, Z22, Z0        \
	VMINPD       Z0, Z20, Z0        \
	VPANDQ       Z24, Z0, Z1        \
	VBROADCASTSD K(AC_SNAP), Z2     \
	VCMPPD       $0x1e, Z2, Z1, K2  \
	VPANDQ       Z23, Z0, Z3        \
	VPORQ        Z20, Z3, Z3        \
	VMOVAPD      Z3, K2, Z0         \
	VMOVAPD      Z0, Z15            \
	VPXORQ       Z23, Z0, Z0        \
	ACOS_AVX512                     \
	VMOVAPD      Z20, Z1            \
	VFNMADD231PD Z15, Z15, Z1       \
	VSQRTPD      Z1, Z1             \
	VFMADD231PD  Z15, Z0, Z1        \
	VMULPD       (R8), Z16, Z2      \
	VMULPD       Z26, Z2, Z2        \
	VMULPD       Z1, Z2, Z2         \
	VPXORQ       Z4, Z4, Z4         \
	VMAXPD       Z4, Z2, Z2         \
	VMULPD       Z26, Z0, Z3        \
	VFMADD213PD  Z19, Z18, Z2

// func arcCosLayer64AVX512Blocks(sig, ntk []float64, ni, invi float64, nj, invj []float64, sw2, sb2 float64)
// Requires: AVX512F. len(sig) is a multiple of 8; the other slices are at
// least as long.
TEXT ·arcCosLayer64AVX512Blocks(SB), NOSPLIT, $0-128
	MOVQ         sig_base+0(FP), SI
	MOVQ         sig_len+8(FP), CX
	MOVQ         ntk_base+24(FP), DI
	MOVQ         nj_base+64(FP), R8
	MOVQ         invj_base+88(FP), R9
	SHRQ         $3, CX
	JZ           zldone
	AVX512_CONSTS
	VBROADCASTSD ni+48(FP), Z16
	VBROADCASTSD invi+56(FP), Z17
	VBROADCASTSD sw2+112(FP), Z18
	VBROADCASTSD sb2+120(FP), Z19

zlloop:
	VMULPD      (R9), Z17, Z0      // invi·invj
	VMULPD      (SI), Z0, Z0       // ρ
	LAYER_AVX512
	VMULPD      (DI), Z3, Z3       // ntk·K̇
	VFMADD213PD Z2, Z18, Z3        // ntk'
	VMOVUPD     Z2, (SI)
	VMOVUPD     Z3, (DI)
	ADDQ        $64, SI
	ADDQ        $64, DI
	ADDQ        $64, R8
	ADDQ        $64, R9
	DECQ        CX
	JNZ         zlloop
	VZEROUPPER

zldone:
	RET

// func arcCosFirst64AVX512Blocks(sig, ntk, g []float64, a, b, ni, invi float64, nj, invj []float64, sw2, sb2 float64)
// Requires: AVX512F. len(g) is a multiple of 8; the other slices are at
// least as long.
TEXT ·arcCosFirst64AVX512Blocks(SB), NOSPLIT, $0-168
	MOVQ         sig_base+0(FP), SI
	MOVQ         ntk_base+24(FP), DI
	MOVQ         g_base+48(FP), R10
	MOVQ         g_len+56(FP), CX
	MOVQ         nj_base+104(FP), R8
	MOVQ         invj_base+128(FP), R9
	SHRQ         $3, CX
	JZ           zfdone
	AVX512_CONSTS
	VBROADCASTSD ni+88(FP), Z16
	VBROADCASTSD invi+96(FP), Z17
	VBROADCASTSD sw2+152(FP), Z18
	VBROADCASTSD sb2+160(FP), Z19
	VBROADCASTSD a+72(FP), Z30
	VBROADCASTSD b+80(FP), Z31

zfloop:
	VMOVUPD     (R10), Z9
	VFMADD213PD Z31, Z30, Z9       // Σ = Θ = a·g + b
	VMULPD      (R9), Z17, Z0      // invi·invj
	VMULPD      Z0, Z9, Z0         // ρ
	LAYER_AVX512
	VMULPD      Z9, Z3, Z3         // Θ·K̇
	VFMADD213PD Z2, Z18, Z3        // ntk'
	VMOVUPD     Z2, (SI)
	VMOVUPD     Z3, (DI)
	ADDQ        $64, SI
	ADDQ        $64, DI
	ADDQ        $64, R8
	ADDQ        $64, R9
	ADDQ        $64, R10
	DECQ        CX
	JNZ         zfloop
	VZEROUPPER

zfdone:
	RET
