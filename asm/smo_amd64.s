//go:build gc && !purego

#include "textflag.h"

// Lane indices 0–3 and the step 4 between groups, as int64; τ = 1e-12,
// the curvature a non-positive q_t is given (smo_generic.go).
DATA smoconst<>+0(SB)/8, $0
DATA smoconst<>+8(SB)/8, $1
DATA smoconst<>+16(SB)/8, $2
DATA smoconst<>+24(SB)/8, $3
DATA smoconst<>+32(SB)/8, $4
DATA smoconst<>+40(SB)/8, $4
DATA smoconst<>+48(SB)/8, $4
DATA smoconst<>+56(SB)/8, $4
DATA smoconst<>+64(SB)/8, $1e-12
GLOBL smoconst<>(SB), RODATA|NOPTR, $72

// func smoSelectAVX2(g, sgn, lowPen, diag, ki []float64, gmax, qii, shift float64, i int, out *smoLanes)
// len(g) is a positive multiple of 4. Per lane: Y8 the largest b²/q among
// the candidates (≥, so the last wins), Y7 its index, Y6 the least v.
TEXT ·smoSelectAVX2(SB), NOSPLIT, $0-160
	MOVQ         g_base+0(FP), AX
	MOVQ         g_len+8(FP), DI
	MOVQ         sgn_base+24(FP), BX
	MOVQ         lowPen_base+48(FP), CX
	MOVQ         diag_base+72(FP), DX
	MOVQ         ki_base+96(FP), SI
	MOVQ         out+152(FP), R9
	VBROADCASTSD gmax+120(FP), Y15
	VBROADCASTSD qii+128(FP), Y14
	VBROADCASTSD shift+136(FP), Y13
	VBROADCASTSD smoconst<>+64(SB), Y12
	VPBROADCASTQ i+144(FP), Y11
	VMOVDQU      smoconst<>+0(SB), Y10
	VMOVDQU      smoconst<>+32(SB), Y9
	VMOVUPD      0(R9), Y8
	VMOVDQU      32(R9), Y7
	VMOVUPD      64(R9), Y6
	VXORPD       Y5, Y5, Y5
	XORQ         R8, R8

selloop:
	VMOVUPD   (BX)(R8*1), Y0
	VMULPD    (AX)(R8*1), Y0, Y0 // sgn·g
	VMOVUPD   (CX)(R8*1), Y1
	VSUBPD    Y0, Y1, Y1         // v = lowPen − sgn·g
	VMINPD    Y1, Y6, Y6         // gmin
	VSUBPD    Y1, Y15, Y2        // b = gmax − v
	VCMPPD    $0x1e, Y5, Y2, Y3  // b > 0
	VPCMPEQQ  Y11, Y10, Y4       // t = i
	VPANDN    Y3, Y4, Y3         // b > 0 and t ≠ i
	VADDPD    (DX)(R8*1), Y14, Y0 // qii + diag
	VADDPD    Y13, Y0, Y0        // + shift
	VMOVUPD   (SI)(R8*1), Y1
	VADDPD    Y1, Y1, Y1         // 2·ki
	VSUBPD    Y1, Y0, Y0         // q
	VCMPPD    $0x12, Y5, Y0, Y1  // q ≤ 0
	VBLENDVPD Y1, Y12, Y0, Y0    // q ≤ 0 ? τ : q
	VMULPD    Y2, Y2, Y2
	VDIVPD    Y0, Y2, Y2         // b²/q
	VCMPPD    $0x1d, Y8, Y2, Y1  // b²/q ≥ best
	VANDPD    Y3, Y1, Y1
	VBLENDVPD Y1, Y2, Y8, Y8
	VBLENDVPD Y1, Y10, Y7, Y7
	VPADDQ    Y9, Y10, Y10
	ADDQ      $32, R8
	SUBQ      $4, DI
	JNZ       selloop

	VMOVUPD Y8, 0(R9)
	VMOVDQU Y7, 32(R9)
	VMOVUPD Y6, 64(R9)
	VZEROUPPER
	RET

// func smoUpdateAVX2(g, sgn, upPen, ki, kj []float64, d float64, out *smoLanes)
// len(g) is a positive multiple of 4. Per lane: Y8 the largest v (≥, so
// the last wins), Y7 its index.
TEXT ·smoUpdateAVX2(SB), NOSPLIT, $0-136
	MOVQ         g_base+0(FP), AX
	MOVQ         g_len+8(FP), DI
	MOVQ         sgn_base+24(FP), BX
	MOVQ         upPen_base+48(FP), CX
	MOVQ         ki_base+72(FP), SI
	MOVQ         kj_base+96(FP), DX
	MOVQ         out+128(FP), R9
	VBROADCASTSD d+120(FP), Y15
	VMOVDQU      smoconst<>+0(SB), Y10
	VMOVDQU      smoconst<>+32(SB), Y9
	VMOVUPD      0(R9), Y8
	VMOVDQU      32(R9), Y7
	XORQ         R8, R8

updloop:
	VMULPD    (BX)(R8*1), Y15, Y0 // sgn·d
	VMOVUPD   (SI)(R8*1), Y1
	VSUBPD    (DX)(R8*1), Y1, Y1  // ki − kj
	VMULPD    Y1, Y0, Y0
	VADDPD    (AX)(R8*1), Y0, Y0  // g + (sgn·d)·(ki − kj)
	VMOVUPD   Y0, (AX)(R8*1)
	VMULPD    (BX)(R8*1), Y0, Y1  // sgn·g
	VMOVUPD   (CX)(R8*1), Y2
	VSUBPD    Y1, Y2, Y2          // v = upPen − sgn·g
	VCMPPD    $0x1d, Y8, Y2, Y3   // v ≥ best
	VBLENDVPD Y3, Y2, Y8, Y8
	VBLENDVPD Y3, Y10, Y7, Y7
	VPADDQ    Y9, Y10, Y10
	ADDQ      $32, R8
	SUBQ      $4, DI
	JNZ       updloop

	VMOVUPD Y8, 0(R9)
	VMOVDQU Y7, 32(R9)
	VZEROUPPER
	RET

// func axpyUnfusedAVX2(alpha float64, x, y []float64)
// len(x) = len(y), a positive multiple of 4: y += alpha·x with VMULPD then
// VADDPD (two roundings, as the Go twin), 16 elements per iteration while
// they last.
TEXT ·axpyUnfusedAVX2(SB), NOSPLIT, $0-56
	VBROADCASTSD alpha+0(FP), Y15
	MOVQ         x_base+8(FP), SI
	MOVQ         x_len+16(FP), CX
	MOVQ         y_base+32(FP), DI
	CMPQ         CX, $16
	JB           axone

axfour:
	VMULPD  (SI), Y15, Y0
	VMULPD  32(SI), Y15, Y1
	VMULPD  64(SI), Y15, Y2
	VMULPD  96(SI), Y15, Y3
	VADDPD  (DI), Y0, Y0
	VADDPD  32(DI), Y1, Y1
	VADDPD  64(DI), Y2, Y2
	VADDPD  96(DI), Y3, Y3
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ    $128, SI
	ADDQ    $128, DI
	SUBQ    $16, CX
	CMPQ    CX, $16
	JAE     axfour

axone:
	TESTQ   CX, CX
	JZ      axdone
	VMULPD  (SI), Y15, Y0
	VADDPD  (DI), Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $4, CX
	JMP     axone

axdone:
	VZEROUPPER
	RET
