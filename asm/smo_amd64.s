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
DATA smoconst<>+72(SB)/8, $0xfff0000000000000
DATA smoconst<>+80(SB)/8, $0x7ff0000000000000
GLOBL smoconst<>(SB), RODATA|NOPTR, $88

// LANEPICK(v, ix, v2, ix2, t0, t1, t2) sets each lane of v and ix to that of
// v2 and ix2 where v2 > v, or v2 = v and ix2 > ix (int64). Clobbers t0–t2.
#define LANEPICK(v, ix, v2, ix2, t0, t1, t2) \
	VCMPPD    $0x1e, v, v2, t0 \
	VCMPPD    $0x00, v, v2, t1 \
	VPCMPGTQ  ix, ix2, t2      \
	VPAND     t1, t2, t1       \
	VPOR      t0, t1, t0       \
	VBLENDVPD t0, v2, v, v     \
	VBLENDVPD t0, ix2, ix, ix

// LANEMAX(v, ix, t0, t1, t2, s0, s1) leaves in lane 0 of v and ix the
// largest v over the four lanes and, among equal ones, the largest ix.
// Clobbers t0–t2, s0 and s1.
#define LANEMAX(v, ix, t0, t1, t2, s0, s1) \
	VPERM2F128 $0x01, v, v, s0       \
	VPERM2F128 $0x01, ix, ix, s1     \
	LANEPICK(v, ix, s0, s1, t0, t1, t2) \
	VPERMILPD  $0x05, v, s0          \
	VPERMILPD  $0x05, ix, s1         \
	LANEPICK(v, ix, s0, s1, t0, t1, t2)

// func smoSelectAVX2(g, sgn, lowPen, diag, ki []float64, gmax, qii, shift float64, i int) (pos float64, j int, gmin float64)
// len(g) is a positive multiple of 4. Per lane: Y8 the largest b²/q among
// the candidates (≥, so the last wins), Y7 its index (−1: none), Y6 the
// least v; then the lanes are reduced, ties to the larger index.
TEXT ·smoSelectAVX2(SB), NOSPLIT, $0-176
	MOVQ         g_base+0(FP), AX
	MOVQ         g_len+8(FP), DI
	MOVQ         sgn_base+24(FP), BX
	MOVQ         lowPen_base+48(FP), CX
	MOVQ         diag_base+72(FP), DX
	MOVQ         ki_base+96(FP), SI
	VBROADCASTSD gmax+120(FP), Y15
	VBROADCASTSD qii+128(FP), Y14
	VBROADCASTSD shift+136(FP), Y13
	VBROADCASTSD smoconst<>+64(SB), Y12
	VPBROADCASTQ i+144(FP), Y11
	VMOVDQU      smoconst<>+0(SB), Y10
	VMOVDQU      smoconst<>+32(SB), Y9
	VBROADCASTSD smoconst<>+72(SB), Y8
	VPCMPEQQ     Y7, Y7, Y7
	VBROADCASTSD smoconst<>+80(SB), Y6
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

	LANEMAX(Y8, Y7, Y0, Y1, Y2, Y3, Y4)
	VPERM2F128 $0x01, Y6, Y6, Y0
	VMINPD     Y0, Y6, Y6
	VPERMILPD  $0x05, Y6, Y0
	VMINPD     Y0, Y6, Y6
	VMOVSD     X8, pos+152(FP)
	VMOVQ      X7, AX
	MOVQ       AX, j+160(FP)
	VMOVSD     X6, gmin+168(FP)
	VZEROUPPER
	RET

// func smoUpdateAVX2(g, sgn, upPen, ki, kj []float64, d float64) (vmax float64, next int)
// len(g) is a positive multiple of 4. Per lane: Y8 the largest v (≥, so
// the last wins), Y7 its index; then the lanes are reduced, ties to the
// larger index.
TEXT ·smoUpdateAVX2(SB), NOSPLIT, $0-144
	MOVQ         g_base+0(FP), AX
	MOVQ         g_len+8(FP), DI
	MOVQ         sgn_base+24(FP), BX
	MOVQ         upPen_base+48(FP), CX
	MOVQ         ki_base+72(FP), SI
	MOVQ         kj_base+96(FP), DX
	VBROADCASTSD d+120(FP), Y15
	VMOVDQU      smoconst<>+0(SB), Y10
	VMOVDQU      smoconst<>+32(SB), Y9
	VBROADCASTSD smoconst<>+72(SB), Y8
	VPCMPEQQ     Y7, Y7, Y7
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

	LANEMAX(Y8, Y7, Y0, Y1, Y2, Y3, Y4)
	VMOVSD X8, vmax+128(FP)
	VMOVQ  X7, AX
	MOVQ   AX, next+136(FP)
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
