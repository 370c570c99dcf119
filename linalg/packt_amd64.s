//go:build gc && !purego

#include "textflag.h"

// PFDIST is how far ahead, in bytes, each row is prefetched.
#define PFDIST 256

// func packTGatherAVX512F32(dst, src []float32, kb int, idx *[48]int32)
// Requires: AVX512F. dst[p*48+j] = src[idx[j]+p] for p < kb, j < 48.
TEXT ·packTGatherAVX512F32(SB), NOSPLIT, $0-64
	MOVQ      dst_base+0(FP), DI
	MOVQ      src_base+24(FP), SI
	MOVQ      kb+48(FP), CX
	MOVQ      idx+56(FP), AX
	TESTQ     CX, CX
	JZ        done32
	VMOVDQU32 (AX), Z0
	VMOVDQU32 64(AX), Z1
	VMOVDQU32 128(AX), Z2
	XORQ      BX, BX

loop32:
	// Each row's next cache lines are needed once every 16 rows of the
	// sliver: prefetch three rows' lines per row, PFDIST bytes ahead, so that
	// all 48 are in flight whatever the hardware prefetchers track.
	MOVLQSX    (AX)(BX*1), R9
	PREFETCHT0 PFDIST(SI)(R9*4)
	MOVLQSX    4(AX)(BX*1), R9
	PREFETCHT0 PFDIST(SI)(R9*4)
	MOVLQSX    8(AX)(BX*1), R9
	PREFETCHT0 PFDIST(SI)(R9*4)
	ADDQ       $12, BX
	CMPQ       BX, $192
	JNE        gather32
	XORQ       BX, BX

gather32:
	KXNORW     K1, K1, K1
	KXNORW     K2, K2, K2
	KXNORW     K3, K3, K3
	VGATHERDPS (SI)(Z0*4), K1, Z3
	VGATHERDPS (SI)(Z1*4), K2, Z4
	VGATHERDPS (SI)(Z2*4), K3, Z5
	VMOVUPS    Z3, (DI)
	VMOVUPS    Z4, 64(DI)
	VMOVUPS    Z5, 128(DI)
	ADDQ       $4, SI
	ADDQ       $192, DI
	DECQ       CX
	JNZ        loop32
	VZEROUPPER

done32:
	RET

// func packTGatherAVX512F64(dst, src []float64, kb int, idx *[24]int32)
// Requires: AVX512F. dst[p*24+j] = src[idx[j]+p] for p < kb, j < 24.
TEXT ·packTGatherAVX512F64(SB), NOSPLIT, $0-64
	MOVQ      dst_base+0(FP), DI
	MOVQ      src_base+24(FP), SI
	MOVQ      kb+48(FP), CX
	MOVQ      idx+56(FP), AX
	TESTQ     CX, CX
	JZ        done64
	VMOVDQU32 (AX), Y0
	VMOVDQU32 32(AX), Y1
	VMOVDQU32 64(AX), Y2
	XORQ      BX, BX

loop64:
	// As above: the 24 rows' next lines are needed once every 8 rows of
	// the sliver, three rows per row prefetched.
	MOVLQSX    (AX)(BX*1), R9
	PREFETCHT0 PFDIST(SI)(R9*8)
	MOVLQSX    4(AX)(BX*1), R9
	PREFETCHT0 PFDIST(SI)(R9*8)
	MOVLQSX    8(AX)(BX*1), R9
	PREFETCHT0 PFDIST(SI)(R9*8)
	ADDQ       $12, BX
	CMPQ       BX, $96
	JNE        gather64
	XORQ       BX, BX

gather64:
	KXNORW     K1, K1, K1
	KXNORW     K2, K2, K2
	KXNORW     K3, K3, K3
	VGATHERDPD (SI)(Y0*8), K1, Z3
	VGATHERDPD (SI)(Y1*8), K2, Z4
	VGATHERDPD (SI)(Y2*8), K3, Z5
	VMOVUPD    Z3, (DI)
	VMOVUPD    Z4, 64(DI)
	VMOVUPD    Z5, 128(DI)
	ADDQ       $8, SI
	ADDQ       $192, DI
	DECQ       CX
	JNZ        loop64
	VZEROUPPER

done64:
	RET
