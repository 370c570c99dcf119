//go:build gc && !purego

#include "textflag.h"

// Registers of both kernels: SI walks the rows of src (R9 = lds and
// R10 = 3·lds in bytes), DI the rows of dst (R8 = ldd, BX = 3·ldd in
// bytes), CX counts the blocks and AX is the step of DI per block; Z31
// holds alpha in every element and R14 is zero when alpha is 1.
//
// After each store to a row of dst the kernels prefetch that row's next
// cache line: when the rows of dst are the mirror image of a symmetric
// product's micro-tiles, the tile below writes there next, and its
// stores then find their lines in cache instead of holding up the store
// queue (Gram 12665×784 float32 on 1 thread, Zen 4: Gram/SyrkLower CPU
// time 1.056 → 1.026, medians of 5 interleaved rounds; float64 the same
// within the noise).

// func transpose8AVX512F32(dst []float32, ldd int, src []float32, lds, nb int, alpha float32)
// Requires: AVX512F. dst[j*ldd+i] = alpha·src[i*lds+j] for i < 8,
// j < 16·nb; for alpha = 1 (bits 0x3f800000) it multiplies nothing (R14 =
// 0) and copies bit for bit.
// Row r of the block is loaded into Z(r); per 128-bit lane L the 32-bit
// unpacks of row pairs and the 64-bit unpacks of their results leave rows
// 0–3 of column 4L+q in lane L of Z(16+q) and rows 4–7 in lane L of
// Z(20+q), q < 4; two lane shuffles put the halves of columns q and 4+q
// (8+q and 12+q) side by side in the low and high ymm of Z24 (Z25).
TEXT ·transpose8AVX512F32(SB), NOSPLIT, $0-76
	MOVL         alpha+72(FP), R14
	VBROADCASTSS alpha+72(FP), Z31
	SUBL         $0x3f800000, R14
	MOVQ         dst_base+0(FP), DI
	MOVQ ldd+24(FP), R8
	MOVQ src_base+32(FP), SI
	MOVQ lds+56(FP), R9
	MOVQ nb+64(FP), CX
	SHLQ $2, R8
	SHLQ $2, R9
	LEAQ (R8)(R8*2), BX
	LEAQ (R9)(R9*2), R10
	MOVQ R8, AX
	SHLQ $4, AX          // 16 rows of dst

loop32:
	LEAQ      (SI)(R9*4), R11
	VMOVUPS   (SI), Z0
	VMOVUPS   (SI)(R9*1), Z1
	VMOVUPS   (SI)(R9*2), Z2
	VMOVUPS   (SI)(R10*1), Z3
	VMOVUPS   (R11), Z4
	VMOVUPS   (R11)(R9*1), Z5
	VMOVUPS   (R11)(R9*2), Z6
	VMOVUPS   (R11)(R10*1), Z7
	TESTL     R14, R14
	JZ        unpack32
	VMULPS    Z31, Z0, Z0
	VMULPS    Z31, Z1, Z1
	VMULPS    Z31, Z2, Z2
	VMULPS    Z31, Z3, Z3
	VMULPS    Z31, Z4, Z4
	VMULPS    Z31, Z5, Z5
	VMULPS    Z31, Z6, Z6
	VMULPS    Z31, Z7, Z7

unpack32:
	VUNPCKLPS Z1, Z0, Z8
	VUNPCKHPS Z1, Z0, Z9
	VUNPCKLPS Z3, Z2, Z10
	VUNPCKHPS Z3, Z2, Z11
	VUNPCKLPS Z5, Z4, Z12
	VUNPCKHPS Z5, Z4, Z13
	VUNPCKLPS Z7, Z6, Z14
	VUNPCKHPS Z7, Z6, Z15
	VUNPCKLPD Z10, Z8, Z16
	VUNPCKHPD Z10, Z8, Z17
	VUNPCKLPD Z11, Z9, Z18
	VUNPCKHPD Z11, Z9, Z19
	VUNPCKLPD Z14, Z12, Z20
	VUNPCKHPD Z14, Z12, Z21
	VUNPCKLPD Z15, Z13, Z22
	VUNPCKHPD Z15, Z13, Z23

	// dst rows: q in R12, 4+q in R13, 8+q in DX, 12+q in R11.
	MOVQ DI, R12
	LEAQ (DI)(R8*4), R13
	LEAQ (R13)(R8*4), DX
	LEAQ (DX)(R8*4), R11

	VSHUFF32X4    $0x44, Z20, Z16, Z24
	VSHUFF32X4    $0xD8, Z24, Z24, Z24
	VSHUFF32X4    $0xEE, Z20, Z16, Z25
	VSHUFF32X4    $0xD8, Z25, Z25, Z25
	VMOVUPS       Y24, (R12)
	PREFETCHT0    64(R12)
	VEXTRACTF64X4 $1, Z24, (R13)
	PREFETCHT0    64(R13)
	VMOVUPS       Y25, (DX)
	PREFETCHT0    64(DX)
	VEXTRACTF64X4 $1, Z25, (R11)
	PREFETCHT0    64(R11)

	VSHUFF32X4    $0x44, Z21, Z17, Z24
	VSHUFF32X4    $0xD8, Z24, Z24, Z24
	VSHUFF32X4    $0xEE, Z21, Z17, Z25
	VSHUFF32X4    $0xD8, Z25, Z25, Z25
	VMOVUPS       Y24, (R12)(R8*1)
	PREFETCHT0    64(R12)(R8*1)
	VEXTRACTF64X4 $1, Z24, (R13)(R8*1)
	PREFETCHT0    64(R13)(R8*1)
	VMOVUPS       Y25, (DX)(R8*1)
	PREFETCHT0    64(DX)(R8*1)
	VEXTRACTF64X4 $1, Z25, (R11)(R8*1)
	PREFETCHT0    64(R11)(R8*1)

	VSHUFF32X4    $0x44, Z22, Z18, Z24
	VSHUFF32X4    $0xD8, Z24, Z24, Z24
	VSHUFF32X4    $0xEE, Z22, Z18, Z25
	VSHUFF32X4    $0xD8, Z25, Z25, Z25
	VMOVUPS       Y24, (R12)(R8*2)
	PREFETCHT0    64(R12)(R8*2)
	VEXTRACTF64X4 $1, Z24, (R13)(R8*2)
	PREFETCHT0    64(R13)(R8*2)
	VMOVUPS       Y25, (DX)(R8*2)
	PREFETCHT0    64(DX)(R8*2)
	VEXTRACTF64X4 $1, Z25, (R11)(R8*2)
	PREFETCHT0    64(R11)(R8*2)

	VSHUFF32X4    $0x44, Z23, Z19, Z24
	VSHUFF32X4    $0xD8, Z24, Z24, Z24
	VSHUFF32X4    $0xEE, Z23, Z19, Z25
	VSHUFF32X4    $0xD8, Z25, Z25, Z25
	VMOVUPS       Y24, (R12)(BX*1)
	PREFETCHT0    64(R12)(BX*1)
	VEXTRACTF64X4 $1, Z24, (R13)(BX*1)
	PREFETCHT0    64(R13)(BX*1)
	VMOVUPS       Y25, (DX)(BX*1)
	PREFETCHT0    64(DX)(BX*1)
	VEXTRACTF64X4 $1, Z25, (R11)(BX*1)
	PREFETCHT0    64(R11)(BX*1)

	ADDQ $64, SI
	ADDQ AX, DI
	DECQ CX
	JNZ  loop32
	VZEROUPPER
	RET

// func transpose8AVX512F64(dst []float64, ldd int, src []float64, lds, nb int, alpha float64)
// Requires: AVX512F. dst[j*ldd+i] = alpha·src[i*lds+j] for i < 8,
// j < 8·nb; for alpha = 1 it multiplies nothing (R14 = 0).
// The 64-bit unpacks of row pairs leave rows 2p and 2p+1 of column 2L+q
// in lane L of Z(8+2p+q); two rounds of lane shuffles gather the four
// lanes of each column.
TEXT ·transpose8AVX512F64(SB), NOSPLIT, $0-80
	MOVQ         alpha+72(FP), R14
	VBROADCASTSD alpha+72(FP), Z31
	MOVQ         $0x3ff0000000000000, R13
	SUBQ         R13, R14
	MOVQ         dst_base+0(FP), DI
	MOVQ ldd+24(FP), R8
	MOVQ src_base+32(FP), SI
	MOVQ lds+56(FP), R9
	MOVQ nb+64(FP), CX
	SHLQ $3, R8
	SHLQ $3, R9
	LEAQ (R8)(R8*2), BX
	LEAQ (R9)(R9*2), R10
	MOVQ R8, AX
	SHLQ $3, AX          // 8 rows of dst

loop64:
	LEAQ      (SI)(R9*4), R11
	VMOVUPD   (SI), Z0
	VMOVUPD   (SI)(R9*1), Z1
	VMOVUPD   (SI)(R9*2), Z2
	VMOVUPD   (SI)(R10*1), Z3
	VMOVUPD   (R11), Z4
	VMOVUPD   (R11)(R9*1), Z5
	VMOVUPD   (R11)(R9*2), Z6
	VMOVUPD   (R11)(R10*1), Z7
	TESTQ     R14, R14
	JZ        unpack64
	VMULPD    Z31, Z0, Z0
	VMULPD    Z31, Z1, Z1
	VMULPD    Z31, Z2, Z2
	VMULPD    Z31, Z3, Z3
	VMULPD    Z31, Z4, Z4
	VMULPD    Z31, Z5, Z5
	VMULPD    Z31, Z6, Z6
	VMULPD    Z31, Z7, Z7

unpack64:
	VUNPCKLPD Z1, Z0, Z8
	VUNPCKHPD Z1, Z0, Z9
	VUNPCKLPD Z3, Z2, Z10
	VUNPCKHPD Z3, Z2, Z11
	VUNPCKLPD Z5, Z4, Z12
	VUNPCKHPD Z5, Z4, Z13
	VUNPCKLPD Z7, Z6, Z14
	VUNPCKHPD Z7, Z6, Z15

	// dst rows: c in R12, 4+c in R13.
	MOVQ DI, R12
	LEAQ (DI)(R8*4), R13

	// Even columns 0, 4, 2, 6.
	VSHUFF64X2 $0x88, Z10, Z8, Z16
	VSHUFF64X2 $0xDD, Z10, Z8, Z17
	VSHUFF64X2 $0x88, Z14, Z12, Z18
	VSHUFF64X2 $0xDD, Z14, Z12, Z19
	VSHUFF64X2 $0x88, Z18, Z16, Z20
	VSHUFF64X2 $0xDD, Z18, Z16, Z21
	VSHUFF64X2 $0x88, Z19, Z17, Z22
	VSHUFF64X2 $0xDD, Z19, Z17, Z23
	VMOVUPD    Z20, (R12)
	PREFETCHT0 64(R12)
	VMOVUPD    Z21, (R13)
	PREFETCHT0 64(R13)
	VMOVUPD    Z22, (R12)(R8*2)
	PREFETCHT0 64(R12)(R8*2)
	VMOVUPD    Z23, (R13)(R8*2)
	PREFETCHT0 64(R13)(R8*2)

	// Odd columns 1, 5, 3, 7.
	VSHUFF64X2 $0x88, Z11, Z9, Z16
	VSHUFF64X2 $0xDD, Z11, Z9, Z17
	VSHUFF64X2 $0x88, Z15, Z13, Z18
	VSHUFF64X2 $0xDD, Z15, Z13, Z19
	VSHUFF64X2 $0x88, Z18, Z16, Z20
	VSHUFF64X2 $0xDD, Z18, Z16, Z21
	VSHUFF64X2 $0x88, Z19, Z17, Z22
	VSHUFF64X2 $0xDD, Z19, Z17, Z23
	VMOVUPD    Z20, (R12)(R8*1)
	PREFETCHT0 64(R12)(R8*1)
	VMOVUPD    Z21, (R13)(R8*1)
	PREFETCHT0 64(R13)(R8*1)
	VMOVUPD    Z22, (R12)(BX*1)
	PREFETCHT0 64(R12)(BX*1)
	VMOVUPD    Z23, (R13)(BX*1)
	PREFETCHT0 64(R13)(BX*1)

	ADDQ $64, SI
	ADDQ AX, DI
	DECQ CX
	JNZ  loop64
	VZEROUPPER
	RET
