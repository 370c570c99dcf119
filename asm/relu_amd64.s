//go:build gc && !purego

#include "textflag.h"

// ReLU and its derivative mask on AVX-512F and AVX2. Each kernel takes
// slices whose length is a multiple of one vector (16 or 8 float32, 8 or 4
// float64), runs a loop of four vectors and then one vector at a time; the
// Go wrappers in relu_amd64.go handle the shorter tail.
//
// ReLU keeps x bit for bit where x > 0 or x is NaN and gives +0 elsewhere,
// so −0 becomes +0 and a NaN keeps its sign and payload. It is never
// max+add, because adding +0 would quiet a signalling NaN: AVX2 masks x
// with a compare ("not x ≤ 0", predicate NLE_UQ = 0x16); AVX-512 uses one
// VFIXUPIMM per vector (a compare into a mask register and a masked move
// would be two operations, the compare on port 5 only). The derivative
// mask selects g where x > 0 (GT_OQ = 0x1e: a NaN x gives false) and +0
// elsewhere.

// RELU512 applies ReLU to one zmm of x at off(SI), storing with st to
// off(DI): fix (VFIXUPIMMPS or VFIXUPIMMPD) classifies each element and
// replaces it as the table in Z30 says (see RELUTABLE).
#define RELU512(fix, mov, st, off, z) \
	mov off(SI), z; \
	fix $0, Z30, z, z; \
	st  z, off(DI)

// RELUTABLE is the VFIXUPIMM table for ReLU, one 4-bit response per input
// class: QNaN, SNaN, +1, +Inf and positive values keep the input bit for
// bit (response 1), ±0, −Inf and negative values become +0 (response 8).
// From the lowest nibble: QNaN 1, SNaN 1, zero 8, +1 1, −Inf 8, +Inf 1,
// negative 8, positive 1. (DAZ is off in Go, so subnormals are values.)
#define RELUTABLE $0x18181811

// GRAD512 selects one zmm of g at off(BX) where x at off(SI) is positive.
#define GRAD512(cmp, mov, movz, off, z) \
	mov  off(SI), z; \
	cmp  $0x1e, Z31, z, K1; \
	movz off(BX), K1, z; \
	mov  z, off(DI)

// RELU256 is RELU512 for a ymm; Y15 holds zeros.
#define RELU256(cmp, and, mov, st, off, y, m) \
	mov off(SI), y; \
	cmp $0x16, Y15, y, m; \
	and y, m, m; \
	st  m, off(DI)

// GRAD256 is GRAD512 for a ymm.
#define GRAD256(cmp, and, mov, off, y) \
	mov off(SI), y; \
	cmp $0x1e, Y15, y, y; \
	and off(BX), y, y; \
	mov y, off(DI)

// RELUBODY512 is the whole AVX-512 ReLU loop over CX elements from SI to DI
// (the TEXT loads them from its arguments); lsh is log2 of the element
// size, st the store (VMOVUPS or VMOVNTPS, …) and fence SFENCE after
// non-temporal stores (else a second VZEROUPPER).
#define RELUBODY512(fix, bcast, mov, st, lsh, fence) \
	SHLQ    $lsh, CX; \
	JZ      done; \
	MOVQ    RELUTABLE, AX; \
	bcast   AX, Z30; \
	CMPQ    CX, $256; \
	JB      one; \
loop4: \
	RELU512(fix, mov, st, 0, Z0); \
	RELU512(fix, mov, st, 64, Z1); \
	RELU512(fix, mov, st, 128, Z2); \
	RELU512(fix, mov, st, 192, Z3); \
	ADDQ    $256, SI; \
	ADDQ    $256, DI; \
	SUBQ    $256, CX; \
	CMPQ    CX, $256; \
	JAE     loop4; \
	TESTQ   CX, CX; \
	JZ      end; \
one: \
	RELU512(fix, mov, st, 0, Z0); \
	ADDQ    $64, SI; \
	ADDQ    $64, DI; \
	SUBQ    $64, CX; \
	JNZ     one; \
end: \
	fence; \
	VZEROUPPER; \
done: \
	RET

// GRADBODY512 is the whole AVX-512 derivative-mask loop over CX elements:
// x from SI, g from BX, dst to DI.
#define GRADBODY512(cmp, mov, movz, lsh) \
	SHLQ    $lsh, CX; \
	JZ      done; \
	VPXORD  Z31, Z31, Z31; \
	CMPQ    CX, $256; \
	JB      one; \
loop4: \
	GRAD512(cmp, mov, movz, 0, Z0); \
	GRAD512(cmp, mov, movz, 64, Z1); \
	GRAD512(cmp, mov, movz, 128, Z2); \
	GRAD512(cmp, mov, movz, 192, Z3); \
	ADDQ    $256, SI; \
	ADDQ    $256, BX; \
	ADDQ    $256, DI; \
	SUBQ    $256, CX; \
	CMPQ    CX, $256; \
	JAE     loop4; \
	TESTQ   CX, CX; \
	JZ      end; \
one: \
	GRAD512(cmp, mov, movz, 0, Z0); \
	ADDQ    $64, SI; \
	ADDQ    $64, BX; \
	ADDQ    $64, DI; \
	SUBQ    $64, CX; \
	JNZ     one; \
end: \
	VZEROUPPER; \
done: \
	RET

// RELUBODY256 is the whole AVX2 ReLU loop.
#define RELUBODY256(cmp, and, mov, lsh) \
	SHLQ    $lsh, CX; \
	JZ      done; \
	VXORPS  Y15, Y15, Y15; \
	CMPQ    CX, $128; \
	JB      one; \
loop4: \
	RELU256(cmp, and, mov, mov, 0, Y0, Y4); \
	RELU256(cmp, and, mov, mov, 32, Y1, Y5); \
	RELU256(cmp, and, mov, mov, 64, Y2, Y6); \
	RELU256(cmp, and, mov, mov, 96, Y3, Y7); \
	ADDQ    $128, SI; \
	ADDQ    $128, DI; \
	SUBQ    $128, CX; \
	CMPQ    CX, $128; \
	JAE     loop4; \
	TESTQ   CX, CX; \
	JZ      end; \
one: \
	RELU256(cmp, and, mov, mov, 0, Y0, Y4); \
	ADDQ    $32, SI; \
	ADDQ    $32, DI; \
	SUBQ    $32, CX; \
	JNZ     one; \
end: \
	VZEROUPPER; \
done: \
	RET

// RELUNTBODY256 is RELUBODY256 with non-temporal stores; dst is 32-byte
// aligned.
#define RELUNTBODY256(cmp, and, mov, st, lsh) \
	SHLQ    $lsh, CX; \
	JZ      done; \
	VXORPS  Y15, Y15, Y15; \
	CMPQ    CX, $128; \
	JB      one; \
loop4: \
	RELU256(cmp, and, mov, st, 0, Y0, Y4); \
	RELU256(cmp, and, mov, st, 32, Y1, Y5); \
	RELU256(cmp, and, mov, st, 64, Y2, Y6); \
	RELU256(cmp, and, mov, st, 96, Y3, Y7); \
	ADDQ    $128, SI; \
	ADDQ    $128, DI; \
	SUBQ    $128, CX; \
	CMPQ    CX, $128; \
	JAE     loop4; \
	TESTQ   CX, CX; \
	JZ      end; \
one: \
	RELU256(cmp, and, mov, st, 0, Y0, Y4); \
	ADDQ    $32, SI; \
	ADDQ    $32, DI; \
	SUBQ    $32, CX; \
	JNZ     one; \
end: \
	SFENCE; \
	VZEROUPPER; \
done: \
	RET

// GRADBODY256 is the whole AVX2 derivative-mask loop.
#define GRADBODY256(cmp, and, mov, lsh) \
	SHLQ    $lsh, CX; \
	JZ      done; \
	VXORPS  Y15, Y15, Y15; \
	CMPQ    CX, $128; \
	JB      one; \
loop4: \
	GRAD256(cmp, and, mov, 0, Y0); \
	GRAD256(cmp, and, mov, 32, Y1); \
	GRAD256(cmp, and, mov, 64, Y2); \
	GRAD256(cmp, and, mov, 96, Y3); \
	ADDQ    $128, SI; \
	ADDQ    $128, BX; \
	ADDQ    $128, DI; \
	SUBQ    $128, CX; \
	CMPQ    CX, $128; \
	JAE     loop4; \
	TESTQ   CX, CX; \
	JZ      end; \
one: \
	GRAD256(cmp, and, mov, 0, Y0); \
	ADDQ    $32, SI; \
	ADDQ    $32, BX; \
	ADDQ    $32, DI; \
	SUBQ    $32, CX; \
	JNZ     one; \
end: \
	VZEROUPPER; \
done: \
	RET

// func reluAVX512F32(dst, x []float32)
// Requires: AVX512F. len(x) is a multiple of 16, len(dst) ≥ len(x).
TEXT ·reluAVX512F32(SB), NOSPLIT, $0-48
	MOVQ    dst_base+0(FP), DI
	MOVQ    x_base+24(FP), SI
	MOVQ    x_len+32(FP), CX
	RELUBODY512(VFIXUPIMMPS, VPBROADCASTD, VMOVUPS, VMOVUPS, 2, VZEROUPPER)

// func reluAVX512F64(dst, x []float64)
// Requires: AVX512F. len(x) is a multiple of 8.
TEXT ·reluAVX512F64(SB), NOSPLIT, $0-48
	MOVQ    dst_base+0(FP), DI
	MOVQ    x_base+24(FP), SI
	MOVQ    x_len+32(FP), CX
	RELUBODY512(VFIXUPIMMPD, VPBROADCASTQ, VMOVUPD, VMOVUPD, 3, VZEROUPPER)

// func reluNTAVX512F32(dst, x []float32)
// reluAVX512F32 with non-temporal stores, for large out-of-place arrays.
// Requires: AVX512F. len(x) is a multiple of 16; dst is 64-byte aligned.
TEXT ·reluNTAVX512F32(SB), NOSPLIT, $0-48
	MOVQ    dst_base+0(FP), DI
	MOVQ    x_base+24(FP), SI
	MOVQ    x_len+32(FP), CX
	RELUBODY512(VFIXUPIMMPS, VPBROADCASTD, VMOVUPS, VMOVNTPS, 2, SFENCE)

// func reluNTAVX512F64(dst, x []float64)
// Requires: AVX512F. len(x) is a multiple of 8; dst is 64-byte aligned.
TEXT ·reluNTAVX512F64(SB), NOSPLIT, $0-48
	MOVQ    dst_base+0(FP), DI
	MOVQ    x_base+24(FP), SI
	MOVQ    x_len+32(FP), CX
	RELUBODY512(VFIXUPIMMPD, VPBROADCASTQ, VMOVUPD, VMOVNTPD, 3, SFENCE)

// func reluGradAVX512F32(dst, g, x []float32)
// Requires: AVX512F. len(x) is a multiple of 16; g and dst are as long.
TEXT ·reluGradAVX512F32(SB), NOSPLIT, $0-72
	MOVQ    dst_base+0(FP), DI
	MOVQ    g_base+24(FP), BX
	MOVQ    x_base+48(FP), SI
	MOVQ    x_len+56(FP), CX
	GRADBODY512(VCMPPS, VMOVUPS, VMOVUPS.Z, 2)

// func reluGradAVX512F64(dst, g, x []float64)
// Requires: AVX512F. len(x) is a multiple of 8; g and dst are as long.
TEXT ·reluGradAVX512F64(SB), NOSPLIT, $0-72
	MOVQ    dst_base+0(FP), DI
	MOVQ    g_base+24(FP), BX
	MOVQ    x_base+48(FP), SI
	MOVQ    x_len+56(FP), CX
	GRADBODY512(VCMPPD, VMOVUPD, VMOVUPD.Z, 3)

// func reluAVX2F32(dst, x []float32)
// Requires: AVX. len(x) is a multiple of 8.
TEXT ·reluAVX2F32(SB), NOSPLIT, $0-48
	MOVQ    dst_base+0(FP), DI
	MOVQ    x_base+24(FP), SI
	MOVQ    x_len+32(FP), CX
	RELUBODY256(VCMPPS, VANDPS, VMOVUPS, 2)

// func reluAVX2F64(dst, x []float64)
// Requires: AVX. len(x) is a multiple of 4.
TEXT ·reluAVX2F64(SB), NOSPLIT, $0-48
	MOVQ    dst_base+0(FP), DI
	MOVQ    x_base+24(FP), SI
	MOVQ    x_len+32(FP), CX
	RELUBODY256(VCMPPD, VANDPD, VMOVUPD, 3)

// func reluNTAVX2F32(dst, x []float32)
// Requires: AVX. len(x) is a multiple of 8; dst is 32-byte aligned.
TEXT ·reluNTAVX2F32(SB), NOSPLIT, $0-48
	MOVQ    dst_base+0(FP), DI
	MOVQ    x_base+24(FP), SI
	MOVQ    x_len+32(FP), CX
	RELUNTBODY256(VCMPPS, VANDPS, VMOVUPS, VMOVNTPS, 2)

// func reluNTAVX2F64(dst, x []float64)
// Requires: AVX. len(x) is a multiple of 4; dst is 32-byte aligned.
TEXT ·reluNTAVX2F64(SB), NOSPLIT, $0-48
	MOVQ    dst_base+0(FP), DI
	MOVQ    x_base+24(FP), SI
	MOVQ    x_len+32(FP), CX
	RELUNTBODY256(VCMPPD, VANDPD, VMOVUPD, VMOVNTPD, 3)

// func reluGradAVX2F32(dst, g, x []float32)
// Requires: AVX. len(x) is a multiple of 8; g and dst are as long.
TEXT ·reluGradAVX2F32(SB), NOSPLIT, $0-72
	MOVQ    dst_base+0(FP), DI
	MOVQ    g_base+24(FP), BX
	MOVQ    x_base+48(FP), SI
	MOVQ    x_len+56(FP), CX
	GRADBODY256(VCMPPS, VANDPS, VMOVUPS, 2)

// func reluGradAVX2F64(dst, g, x []float64)
// Requires: AVX. len(x) is a multiple of 4; g and dst are as long.
TEXT ·reluGradAVX2F64(SB), NOSPLIT, $0-72
	MOVQ    dst_base+0(FP), DI
	MOVQ    g_base+24(FP), BX
	MOVQ    x_base+48(FP), SI
	MOVQ    x_len+56(FP), CX
	GRADBODY256(VCMPPD, VANDPD, VMOVUPD, 3)

