//go:build gc && !purego

#include "textflag.h"

// Dot products, axpy and sums on AVX-512F and AVX2 (+FMA3). Each kernel
// takes slices whose length is a multiple of one vector of the widest
// operand (8 float64 or 16 float32 on AVX-512, 4 or 8 on AVX2); the Go
// wrappers in dot_amd64.go finish the shorter tail.
//
// Accumulation order (dot and sum): four vector accumulators s0…s3; the
// main loop adds vector 4q+r of the input into s_r, then single vectors
// all go into s0; the result is ((s0+s1)+(s2+s3)) reduced across lanes by
// halving (upper half added to lower half until one lane is left). The
// order depends only on the length, never on alignment or threads.
// axpy is elementwise: y[i] = fma(alpha, x[i], y[i]), one rounding, so it
// matches the Go twin bit for bit.

// REDUCE512PD leaves the sum of the lanes of Z0…Z3 in X0 (float64).
#define REDUCE512PD \
	VADDPD        Z1, Z0, Z0; \
	VADDPD        Z3, Z2, Z2; \
	VADDPD        Z2, Z0, Z0; \
	VEXTRACTF64X4 $1, Z0, Y1; \
	VADDPD        Y1, Y0, Y0; \
	VEXTRACTF128  $1, Y0, X1; \
	VADDPD        X1, X0, X0; \
	VUNPCKHPD     X0, X0, X1; \
	VADDSD        X1, X0, X0

// REDUCE256PD leaves the sum of the lanes of Y0…Y3 in X0 (float64).
#define REDUCE256PD \
	VADDPD       Y1, Y0, Y0; \
	VADDPD       Y3, Y2, Y2; \
	VADDPD       Y2, Y0, Y0; \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPD       X1, X0, X0; \
	VUNPCKHPD    X0, X0, X1; \
	VADDSD       X1, X0, X0

// REDUCE128PS finishes a float32 reduction from X0 (four lanes) to one.
#define REDUCE128PS \
	VMOVHLPS  X0, X0, X1; \
	VADDPS    X1, X0, X0; \
	VMOVSHDUP X0, X1; \
	VADDSS    X1, X0, X0

// REDUCE512PS leaves the sum of the lanes of Z0…Z3 in X0 (float32).
#define REDUCE512PS \
	VADDPS        Z1, Z0, Z0; \
	VADDPS        Z3, Z2, Z2; \
	VADDPS        Z2, Z0, Z0; \
	VEXTRACTF64X4 $1, Z0, Y1; \
	VADDPS        Y1, Y0, Y0; \
	VEXTRACTF128  $1, Y0, X1; \
	VADDPS        X1, X0, X0; \
	REDUCE128PS

// REDUCE256PS leaves the sum of the lanes of Y0…Y3 in X0 (float32).
#define REDUCE256PS \
	VADDPS       Y1, Y0, Y0; \
	VADDPS       Y3, Y2, Y2; \
	VADDPS       Y2, Y0, Y0; \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPS       X1, X0, X0; \
	REDUCE128PS

// func dotF32F64AVX512(a []float32, x []float64) float64
// Requires: AVX512F, AVX. len(a) = len(x), a multiple of 8.
TEXT ·dotF32F64AVX512(SB), NOSPLIT, $0-56
	MOVQ   a_base+0(FP), SI
	MOVQ   a_len+8(FP), CX
	MOVQ   x_base+24(FP), DI
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	CMPQ   CX, $32
	JB     one

loop4:
	VCVTPS2PD   (SI), Z4
	VCVTPS2PD   32(SI), Z5
	VCVTPS2PD   64(SI), Z6
	VCVTPS2PD   96(SI), Z7
	VFMADD231PD (DI), Z4, Z0
	VFMADD231PD 64(DI), Z5, Z1
	VFMADD231PD 128(DI), Z6, Z2
	VFMADD231PD 192(DI), Z7, Z3
	ADDQ        $128, SI
	ADDQ        $256, DI
	SUBQ        $32, CX
	CMPQ        CX, $32
	JAE         loop4

one:
	TESTQ CX, CX
	JZ    reduce

loop1:
	VCVTPS2PD   (SI), Z4
	VFMADD231PD (DI), Z4, Z0
	ADDQ        $32, SI
	ADDQ        $64, DI
	SUBQ        $8, CX
	JNZ         loop1

reduce:
	REDUCE512PD
	VZEROUPPER
	MOVSD X0, ret+48(FP)
	RET

// func dotF32F64AVX2(a []float32, x []float64) float64
// Requires: AVX, FMA3. len(a) = len(x), a multiple of 4.
TEXT ·dotF32F64AVX2(SB), NOSPLIT, $0-56
	MOVQ   a_base+0(FP), SI
	MOVQ   a_len+8(FP), CX
	MOVQ   x_base+24(FP), DI
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	CMPQ   CX, $16
	JB     one

loop4:
	VCVTPS2PD   (SI), Y4
	VCVTPS2PD   16(SI), Y5
	VCVTPS2PD   32(SI), Y6
	VCVTPS2PD   48(SI), Y7
	VFMADD231PD (DI), Y4, Y0
	VFMADD231PD 32(DI), Y5, Y1
	VFMADD231PD 64(DI), Y6, Y2
	VFMADD231PD 96(DI), Y7, Y3
	ADDQ        $64, SI
	ADDQ        $128, DI
	SUBQ        $16, CX
	CMPQ        CX, $16
	JAE         loop4

one:
	TESTQ CX, CX
	JZ    reduce

loop1:
	VCVTPS2PD   (SI), Y4
	VFMADD231PD (DI), Y4, Y0
	ADDQ        $16, SI
	ADDQ        $32, DI
	SUBQ        $4, CX
	JNZ         loop1

reduce:
	REDUCE256PD
	VZEROUPPER
	MOVSD X0, ret+48(FP)
	RET

// func dot64AVX512(a, x []float64) float64
// Requires: AVX512F, AVX. len(a) = len(x), a multiple of 8.
TEXT ·dot64AVX512(SB), NOSPLIT, $0-56
	MOVQ   a_base+0(FP), SI
	MOVQ   a_len+8(FP), CX
	MOVQ   x_base+24(FP), DI
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	CMPQ   CX, $32
	JB     one

loop4:
	VMOVUPD     (SI), Z4
	VMOVUPD     64(SI), Z5
	VMOVUPD     128(SI), Z6
	VMOVUPD     192(SI), Z7
	VFMADD231PD (DI), Z4, Z0
	VFMADD231PD 64(DI), Z5, Z1
	VFMADD231PD 128(DI), Z6, Z2
	VFMADD231PD 192(DI), Z7, Z3
	ADDQ        $256, SI
	ADDQ        $256, DI
	SUBQ        $32, CX
	CMPQ        CX, $32
	JAE         loop4

one:
	TESTQ CX, CX
	JZ    reduce

loop1:
	VMOVUPD     (SI), Z4
	VFMADD231PD (DI), Z4, Z0
	ADDQ        $64, SI
	ADDQ        $64, DI
	SUBQ        $8, CX
	JNZ         loop1

reduce:
	REDUCE512PD
	VZEROUPPER
	MOVSD X0, ret+48(FP)
	RET

// func dot64AVX2(a, x []float64) float64
// Requires: AVX, FMA3. len(a) = len(x), a multiple of 4.
TEXT ·dot64AVX2(SB), NOSPLIT, $0-56
	MOVQ   a_base+0(FP), SI
	MOVQ   a_len+8(FP), CX
	MOVQ   x_base+24(FP), DI
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	CMPQ   CX, $16
	JB     one

loop4:
	VMOVUPD     (SI), Y4
	VMOVUPD     32(SI), Y5
	VMOVUPD     64(SI), Y6
	VMOVUPD     96(SI), Y7
	VFMADD231PD (DI), Y4, Y0
	VFMADD231PD 32(DI), Y5, Y1
	VFMADD231PD 64(DI), Y6, Y2
	VFMADD231PD 96(DI), Y7, Y3
	ADDQ        $128, SI
	ADDQ        $128, DI
	SUBQ        $16, CX
	CMPQ        CX, $16
	JAE         loop4

one:
	TESTQ CX, CX
	JZ    reduce

loop1:
	VMOVUPD     (SI), Y4
	VFMADD231PD (DI), Y4, Y0
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $4, CX
	JNZ         loop1

reduce:
	REDUCE256PD
	VZEROUPPER
	MOVSD X0, ret+48(FP)
	RET

// func dot32AVX512(a, x []float32) float32
// Requires: AVX512F, AVX. len(a) = len(x), a multiple of 16.
TEXT ·dot32AVX512(SB), NOSPLIT, $0-52
	MOVQ   a_base+0(FP), SI
	MOVQ   a_len+8(FP), CX
	MOVQ   x_base+24(FP), DI
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	CMPQ   CX, $64
	JB     one

loop4:
	VMOVUPS     (SI), Z4
	VMOVUPS     64(SI), Z5
	VMOVUPS     128(SI), Z6
	VMOVUPS     192(SI), Z7
	VFMADD231PS (DI), Z4, Z0
	VFMADD231PS 64(DI), Z5, Z1
	VFMADD231PS 128(DI), Z6, Z2
	VFMADD231PS 192(DI), Z7, Z3
	ADDQ        $256, SI
	ADDQ        $256, DI
	SUBQ        $64, CX
	CMPQ        CX, $64
	JAE         loop4

one:
	TESTQ CX, CX
	JZ    reduce

loop1:
	VMOVUPS     (SI), Z4
	VFMADD231PS (DI), Z4, Z0
	ADDQ        $64, SI
	ADDQ        $64, DI
	SUBQ        $16, CX
	JNZ         loop1

reduce:
	REDUCE512PS
	VZEROUPPER
	MOVSS X0, ret+48(FP)
	RET

// func dot32AVX2(a, x []float32) float32
// Requires: AVX, FMA3. len(a) = len(x), a multiple of 8.
TEXT ·dot32AVX2(SB), NOSPLIT, $0-52
	MOVQ   a_base+0(FP), SI
	MOVQ   a_len+8(FP), CX
	MOVQ   x_base+24(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	CMPQ   CX, $32
	JB     one

loop4:
	VMOVUPS     (SI), Y4
	VMOVUPS     32(SI), Y5
	VMOVUPS     64(SI), Y6
	VMOVUPS     96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ        $128, SI
	ADDQ        $128, DI
	SUBQ        $32, CX
	CMPQ        CX, $32
	JAE         loop4

one:
	TESTQ CX, CX
	JZ    reduce

loop1:
	VMOVUPS     (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JNZ         loop1

reduce:
	REDUCE256PS
	VZEROUPPER
	MOVSS X0, ret+48(FP)
	RET

// func sum32AVX512(a []float32) float32
// Requires: AVX512F, AVX. len(a) a multiple of 16.
TEXT ·sum32AVX512(SB), NOSPLIT, $0-28
	MOVQ   a_base+0(FP), SI
	MOVQ   a_len+8(FP), CX
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	CMPQ   CX, $64
	JB     one

loop4:
	VADDPS (SI), Z0, Z0
	VADDPS 64(SI), Z1, Z1
	VADDPS 128(SI), Z2, Z2
	VADDPS 192(SI), Z3, Z3
	ADDQ   $256, SI
	SUBQ   $64, CX
	CMPQ   CX, $64
	JAE    loop4

one:
	TESTQ CX, CX
	JZ    reduce

loop1:
	VADDPS (SI), Z0, Z0
	ADDQ   $64, SI
	SUBQ   $16, CX
	JNZ    loop1

reduce:
	REDUCE512PS
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func sum32AVX2(a []float32) float32
// Requires: AVX. len(a) a multiple of 8.
TEXT ·sum32AVX2(SB), NOSPLIT, $0-28
	MOVQ   a_base+0(FP), SI
	MOVQ   a_len+8(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	CMPQ   CX, $32
	JB     one

loop4:
	VADDPS (SI), Y0, Y0
	VADDPS 32(SI), Y1, Y1
	VADDPS 64(SI), Y2, Y2
	VADDPS 96(SI), Y3, Y3
	ADDQ   $128, SI
	SUBQ   $32, CX
	CMPQ   CX, $32
	JAE    loop4

one:
	TESTQ CX, CX
	JZ    reduce

loop1:
	VADDPS (SI), Y0, Y0
	ADDQ   $32, SI
	SUBQ   $8, CX
	JNZ    loop1

reduce:
	REDUCE256PS
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func sum64AVX512(a []float64) float64
// Requires: AVX512F, AVX. len(a) a multiple of 8.
TEXT ·sum64AVX512(SB), NOSPLIT, $0-32
	MOVQ   a_base+0(FP), SI
	MOVQ   a_len+8(FP), CX
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	CMPQ   CX, $32
	JB     one

loop4:
	VADDPD (SI), Z0, Z0
	VADDPD 64(SI), Z1, Z1
	VADDPD 128(SI), Z2, Z2
	VADDPD 192(SI), Z3, Z3
	ADDQ   $256, SI
	SUBQ   $32, CX
	CMPQ   CX, $32
	JAE    loop4

one:
	TESTQ CX, CX
	JZ    reduce

loop1:
	VADDPD (SI), Z0, Z0
	ADDQ   $64, SI
	SUBQ   $8, CX
	JNZ    loop1

reduce:
	REDUCE512PD
	VZEROUPPER
	MOVSD X0, ret+24(FP)
	RET

// func sum64AVX2(a []float64) float64
// Requires: AVX. len(a) a multiple of 4.
TEXT ·sum64AVX2(SB), NOSPLIT, $0-32
	MOVQ   a_base+0(FP), SI
	MOVQ   a_len+8(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	CMPQ   CX, $16
	JB     one

loop4:
	VADDPD (SI), Y0, Y0
	VADDPD 32(SI), Y1, Y1
	VADDPD 64(SI), Y2, Y2
	VADDPD 96(SI), Y3, Y3
	ADDQ   $128, SI
	SUBQ   $16, CX
	CMPQ   CX, $16
	JAE    loop4

one:
	TESTQ CX, CX
	JZ    reduce

loop1:
	VADDPD (SI), Y0, Y0
	ADDQ   $32, SI
	SUBQ   $4, CX
	JNZ    loop1

reduce:
	REDUCE256PD
	VZEROUPPER
	MOVSD X0, ret+24(FP)
	RET

// func axpy64AVX512(alpha float64, x, y []float64)
// Requires: AVX512F, AVX. len(x) = len(y), a multiple of 8.
TEXT ·axpy64AVX512(SB), NOSPLIT, $0-56
	VBROADCASTSD alpha+0(FP), Z31
	MOVQ         x_base+8(FP), SI
	MOVQ         x_len+16(FP), CX
	MOVQ         y_base+32(FP), DI
	CMPQ         CX, $32
	JB           one

loop4:
	VMOVUPD     (DI), Z0
	VMOVUPD     64(DI), Z1
	VMOVUPD     128(DI), Z2
	VMOVUPD     192(DI), Z3
	VFMADD231PD (SI), Z31, Z0
	VFMADD231PD 64(SI), Z31, Z1
	VFMADD231PD 128(SI), Z31, Z2
	VFMADD231PD 192(SI), Z31, Z3
	VMOVUPD     Z0, (DI)
	VMOVUPD     Z1, 64(DI)
	VMOVUPD     Z2, 128(DI)
	VMOVUPD     Z3, 192(DI)
	ADDQ        $256, SI
	ADDQ        $256, DI
	SUBQ        $32, CX
	CMPQ        CX, $32
	JAE         loop4

one:
	TESTQ CX, CX
	JZ    done

loop1:
	VMOVUPD     (DI), Z0
	VFMADD231PD (SI), Z31, Z0
	VMOVUPD     Z0, (DI)
	ADDQ        $64, SI
	ADDQ        $64, DI
	SUBQ        $8, CX
	JNZ         loop1

done:
	VZEROUPPER
	RET

// func axpy64AVX2(alpha float64, x, y []float64)
// Requires: AVX, FMA3. len(x) = len(y), a multiple of 4.
TEXT ·axpy64AVX2(SB), NOSPLIT, $0-56
	VBROADCASTSD alpha+0(FP), Y15
	MOVQ         x_base+8(FP), SI
	MOVQ         x_len+16(FP), CX
	MOVQ         y_base+32(FP), DI
	CMPQ         CX, $16
	JB           one

loop4:
	VMOVUPD     (DI), Y0
	VMOVUPD     32(DI), Y1
	VMOVUPD     64(DI), Y2
	VMOVUPD     96(DI), Y3
	VFMADD231PD (SI), Y15, Y0
	VFMADD231PD 32(SI), Y15, Y1
	VFMADD231PD 64(SI), Y15, Y2
	VFMADD231PD 96(SI), Y15, Y3
	VMOVUPD     Y0, (DI)
	VMOVUPD     Y1, 32(DI)
	VMOVUPD     Y2, 64(DI)
	VMOVUPD     Y3, 96(DI)
	ADDQ        $128, SI
	ADDQ        $128, DI
	SUBQ        $16, CX
	CMPQ        CX, $16
	JAE         loop4

one:
	TESTQ CX, CX
	JZ    done

loop1:
	VMOVUPD     (DI), Y0
	VFMADD231PD (SI), Y15, Y0
	VMOVUPD     Y0, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $4, CX
	JNZ         loop1

done:
	VZEROUPPER
	RET

// func axpyF32F64AVX512(alpha float64, a []float32, y []float64)
// Requires: AVX512F, AVX. len(a) = len(y), a multiple of 8.
TEXT ·axpyF32F64AVX512(SB), NOSPLIT, $0-56
	VBROADCASTSD alpha+0(FP), Z31
	MOVQ         a_base+8(FP), SI
	MOVQ         a_len+16(FP), CX
	MOVQ         y_base+32(FP), DI
	CMPQ         CX, $32
	JB           one

loop4:
	VCVTPS2PD   (SI), Z4
	VCVTPS2PD   32(SI), Z5
	VCVTPS2PD   64(SI), Z6
	VCVTPS2PD   96(SI), Z7
	VFMADD213PD (DI), Z31, Z4
	VFMADD213PD 64(DI), Z31, Z5
	VFMADD213PD 128(DI), Z31, Z6
	VFMADD213PD 192(DI), Z31, Z7
	VMOVUPD     Z4, (DI)
	VMOVUPD     Z5, 64(DI)
	VMOVUPD     Z6, 128(DI)
	VMOVUPD     Z7, 192(DI)
	ADDQ        $128, SI
	ADDQ        $256, DI
	SUBQ        $32, CX
	CMPQ        CX, $32
	JAE         loop4

one:
	TESTQ CX, CX
	JZ    done

loop1:
	VCVTPS2PD   (SI), Z4
	VFMADD213PD (DI), Z31, Z4
	VMOVUPD     Z4, (DI)
	ADDQ        $32, SI
	ADDQ        $64, DI
	SUBQ        $8, CX
	JNZ         loop1

done:
	VZEROUPPER
	RET

// func axpyF32F64AVX2(alpha float64, a []float32, y []float64)
// Requires: AVX, FMA3. len(a) = len(y), a multiple of 4.
TEXT ·axpyF32F64AVX2(SB), NOSPLIT, $0-56
	VBROADCASTSD alpha+0(FP), Y15
	MOVQ         a_base+8(FP), SI
	MOVQ         a_len+16(FP), CX
	MOVQ         y_base+32(FP), DI
	CMPQ         CX, $16
	JB           one

loop4:
	VCVTPS2PD   (SI), Y4
	VCVTPS2PD   16(SI), Y5
	VCVTPS2PD   32(SI), Y6
	VCVTPS2PD   48(SI), Y7
	VFMADD213PD (DI), Y15, Y4
	VFMADD213PD 32(DI), Y15, Y5
	VFMADD213PD 64(DI), Y15, Y6
	VFMADD213PD 96(DI), Y15, Y7
	VMOVUPD     Y4, (DI)
	VMOVUPD     Y5, 32(DI)
	VMOVUPD     Y6, 64(DI)
	VMOVUPD     Y7, 96(DI)
	ADDQ        $64, SI
	ADDQ        $128, DI
	SUBQ        $16, CX
	CMPQ        CX, $16
	JAE         loop4

one:
	TESTQ CX, CX
	JZ    done

loop1:
	VCVTPS2PD   (SI), Y4
	VFMADD213PD (DI), Y15, Y4
	VMOVUPD     Y4, (DI)
	ADDQ        $16, SI
	ADDQ        $32, DI
	SUBQ        $4, CX
	JNZ         loop1

done:
	VZEROUPPER
	RET

// REDUCEPD leaves the sum of the lanes of z0…z3 in x0 (float64); y0, x0
// and y1, x1 are the lower parts of z0 and z1.
#define REDUCEPD(z0, z1, z2, z3, y0, y1, x0, x1) \
	VADDPD        z1, z0, z0; \
	VADDPD        z3, z2, z2; \
	VADDPD        z2, z0, z0; \
	VEXTRACTF64X4 $1, z0, y1; \
	VADDPD        y1, y0, y0; \
	VEXTRACTF128  $1, y0, x1; \
	VADDPD        x1, x0, x0; \
	VUNPCKHPD     x0, x0, x1; \
	VADDSD        x1, x0, x0

// ROW4F32F64 accumulates 32 elements of the row at off(ptr) into
// accumulators s0…s3 (the same as one loop4 step of dotF32F64AVX512).
#define ROW4F32F64(ptr, s0, s1, s2, s3) \
	VCVTPS2PD   (ptr), Z16; \
	VCVTPS2PD   32(ptr), Z17; \
	VCVTPS2PD   64(ptr), Z18; \
	VCVTPS2PD   96(ptr), Z19; \
	VFMADD231PD (DI), Z16, s0; \
	VFMADD231PD 64(DI), Z17, s1; \
	VFMADD231PD 128(DI), Z18, s2; \
	VFMADD231PD 192(DI), Z19, s3

// ROW1F32F64 accumulates 8 elements of the row at ptr into s0.
#define ROW1F32F64(ptr, s0) \
	VCVTPS2PD   (ptr), Z16; \
	VFMADD231PD (DI), Z16, s0

// func dotRows4F32F64AVX512(a []float32, lda int, x []float64, dst *[4]float64)
// Requires: AVX512F, AVX. len(x) a multiple of 8; rows r < 4 start at
// a[r*lda]. Each row is summed exactly as dotF32F64AVX512 sums it.
TEXT ·dotRows4F32F64AVX512(SB), NOSPLIT, $0-64
	MOVQ   a_base+0(FP), SI
	MOVQ   lda+24(FP), AX
	SHLQ   $2, AX
	LEAQ   (SI)(AX*1), R8
	LEAQ   (R8)(AX*1), R9
	LEAQ   (R9)(AX*1), R10
	MOVQ   x_base+32(FP), DI
	MOVQ   x_len+40(FP), CX
	MOVQ   dst+56(FP), DX
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	VXORPD Z4, Z4, Z4
	VXORPD Z5, Z5, Z5
	VXORPD Z6, Z6, Z6
	VXORPD Z7, Z7, Z7
	VXORPD Z8, Z8, Z8
	VXORPD Z9, Z9, Z9
	VXORPD Z10, Z10, Z10
	VXORPD Z11, Z11, Z11
	VXORPD Z12, Z12, Z12
	VXORPD Z13, Z13, Z13
	VXORPD Z14, Z14, Z14
	VXORPD Z15, Z15, Z15
	CMPQ   CX, $32
	JB     one

loop4:
	ROW4F32F64(SI, Z0, Z1, Z2, Z3)
	ROW4F32F64(R8, Z4, Z5, Z6, Z7)
	ROW4F32F64(R9, Z8, Z9, Z10, Z11)
	ROW4F32F64(R10, Z12, Z13, Z14, Z15)
	ADDQ $128, SI
	ADDQ $128, R8
	ADDQ $128, R9
	ADDQ $128, R10
	ADDQ $256, DI
	SUBQ $32, CX
	CMPQ CX, $32
	JAE  loop4

one:
	TESTQ CX, CX
	JZ    reduce

loop1:
	ROW1F32F64(SI, Z0)
	ROW1F32F64(R8, Z4)
	ROW1F32F64(R9, Z8)
	ROW1F32F64(R10, Z12)
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $64, DI
	SUBQ $8, CX
	JNZ  loop1

reduce:
	REDUCEPD(Z0, Z1, Z2, Z3, Y0, Y1, X0, X1)
	REDUCEPD(Z4, Z5, Z6, Z7, Y4, Y5, X4, X5)
	REDUCEPD(Z8, Z9, Z10, Z11, Y8, Y9, X8, X9)
	REDUCEPD(Z12, Z13, Z14, Z15, Y12, Y13, X12, X13)
	MOVSD X0, (DX)
	MOVSD X4, 8(DX)
	MOVSD X8, 16(DX)
	MOVSD X12, 24(DX)
	VZEROUPPER
	RET

// func sum32Rows4AVX512(a []float32, lda, n int) float32
// Requires: AVX512F, AVX. n a multiple of 16; rows r < 4 start at a[r*lda]. The
// four rows are read side by side, one vector of each per iteration, row r
// into accumulator r; the result is ((s0+s1)+(s2+s3)) reduced by halving.
TEXT ·sum32Rows4AVX512(SB), NOSPLIT, $0-44
	MOVQ  a_base+0(FP), SI
	MOVQ  lda+24(FP), AX
	SHLQ  $2, AX
	LEAQ  (SI)(AX*1), R8
	LEAQ  (R8)(AX*1), R9
	LEAQ  (R9)(AX*1), R10
	MOVQ  n+32(FP), CX
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	TESTQ CX, CX
	JZ    reduce

loop:
	VADDPS (SI), Z0, Z0
	VADDPS (R8), Z1, Z1
	VADDPS (R9), Z2, Z2
	VADDPS (R10), Z3, Z3
	ADDQ $64, SI
	ADDQ $64, R8
	ADDQ $64, R9
	ADDQ $64, R10
	SUBQ $16, CX
	JNZ  loop

reduce:
	REDUCE512PS
	VZEROUPPER
	MOVSS X0, ret+40(FP)
	RET

// func sum32Rows4AVX2(a []float32, lda, n int) float32
// Requires: AVX. n a multiple of 8; rows r < 4 start at a[r*lda]. The
// four rows are read side by side, one vector of each per iteration, row r
// into accumulator r; the result is ((s0+s1)+(s2+s3)) reduced by halving.
TEXT ·sum32Rows4AVX2(SB), NOSPLIT, $0-44
	MOVQ  a_base+0(FP), SI
	MOVQ  lda+24(FP), AX
	SHLQ  $2, AX
	LEAQ  (SI)(AX*1), R8
	LEAQ  (R8)(AX*1), R9
	LEAQ  (R9)(AX*1), R10
	MOVQ  n+32(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	TESTQ CX, CX
	JZ    reduce

loop:
	VADDPS (SI), Y0, Y0
	VADDPS (R8), Y1, Y1
	VADDPS (R9), Y2, Y2
	VADDPS (R10), Y3, Y3
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	SUBQ $8, CX
	JNZ  loop

reduce:
	REDUCE256PS
	VZEROUPPER
	MOVSS X0, ret+40(FP)
	RET

// func sum64Rows4AVX512(a []float64, lda, n int) float64
// Requires: AVX512F, AVX. n a multiple of 8; rows r < 4 start at a[r*lda]. The
// four rows are read side by side, one vector of each per iteration, row r
// into accumulator r; the result is ((s0+s1)+(s2+s3)) reduced by halving.
TEXT ·sum64Rows4AVX512(SB), NOSPLIT, $0-48
	MOVQ  a_base+0(FP), SI
	MOVQ  lda+24(FP), AX
	SHLQ  $3, AX
	LEAQ  (SI)(AX*1), R8
	LEAQ  (R8)(AX*1), R9
	LEAQ  (R9)(AX*1), R10
	MOVQ  n+32(FP), CX
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	TESTQ CX, CX
	JZ    reduce

loop:
	VADDPD (SI), Z0, Z0
	VADDPD (R8), Z1, Z1
	VADDPD (R9), Z2, Z2
	VADDPD (R10), Z3, Z3
	ADDQ $64, SI
	ADDQ $64, R8
	ADDQ $64, R9
	ADDQ $64, R10
	SUBQ $8, CX
	JNZ  loop

reduce:
	REDUCE512PD
	VZEROUPPER
	MOVSD X0, ret+40(FP)
	RET

// func sum64Rows4AVX2(a []float64, lda, n int) float64
// Requires: AVX. n a multiple of 4; rows r < 4 start at a[r*lda]. The
// four rows are read side by side, one vector of each per iteration, row r
// into accumulator r; the result is ((s0+s1)+(s2+s3)) reduced by halving.
TEXT ·sum64Rows4AVX2(SB), NOSPLIT, $0-48
	MOVQ  a_base+0(FP), SI
	MOVQ  lda+24(FP), AX
	SHLQ  $3, AX
	LEAQ  (SI)(AX*1), R8
	LEAQ  (R8)(AX*1), R9
	LEAQ  (R9)(AX*1), R10
	MOVQ  n+32(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	TESTQ CX, CX
	JZ    reduce

loop:
	VADDPD (SI), Y0, Y0
	VADDPD (R8), Y1, Y1
	VADDPD (R9), Y2, Y2
	VADDPD (R10), Y3, Y3
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	SUBQ $4, CX
	JNZ  loop

reduce:
	REDUCE256PD
	VZEROUPPER
	MOVSD X0, ret+40(FP)
	RET

// ROW4F64 accumulates 32 elements of the float64 row at ptr into s0…s3
// (one loop4 step of dot64AVX512).
#define ROW4F64(ptr, s0, s1, s2, s3) \
	VMOVUPD     (ptr), Z16; \
	VMOVUPD     64(ptr), Z17; \
	VMOVUPD     128(ptr), Z18; \
	VMOVUPD     192(ptr), Z19; \
	VFMADD231PD (DI), Z16, s0; \
	VFMADD231PD 64(DI), Z17, s1; \
	VFMADD231PD 128(DI), Z18, s2; \
	VFMADD231PD 192(DI), Z19, s3

// ROW1F64 accumulates 8 elements of the float64 row at ptr into s0.
#define ROW1F64(ptr, s0) \
	VMOVUPD     (ptr), Z16; \
	VFMADD231PD (DI), Z16, s0

// func dotRows4F64AVX512(a []float64, lda int, x []float64, dst *[4]float64)
// Requires: AVX512F, AVX. len(x) a multiple of 8; rows r < 4 start at
// a[r*lda]. Each row is summed exactly as dot64AVX512 sums it.
TEXT ·dotRows4F64AVX512(SB), NOSPLIT, $0-64
	MOVQ   a_base+0(FP), SI
	MOVQ   lda+24(FP), AX
	SHLQ   $3, AX
	LEAQ   (SI)(AX*1), R8
	LEAQ   (R8)(AX*1), R9
	LEAQ   (R9)(AX*1), R10
	MOVQ   x_base+32(FP), DI
	MOVQ   x_len+40(FP), CX
	MOVQ   dst+56(FP), DX
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	VXORPD Z4, Z4, Z4
	VXORPD Z5, Z5, Z5
	VXORPD Z6, Z6, Z6
	VXORPD Z7, Z7, Z7
	VXORPD Z8, Z8, Z8
	VXORPD Z9, Z9, Z9
	VXORPD Z10, Z10, Z10
	VXORPD Z11, Z11, Z11
	VXORPD Z12, Z12, Z12
	VXORPD Z13, Z13, Z13
	VXORPD Z14, Z14, Z14
	VXORPD Z15, Z15, Z15
	CMPQ   CX, $32
	JB     one

loop4:
	ROW4F64(SI, Z0, Z1, Z2, Z3)
	ROW4F64(R8, Z4, Z5, Z6, Z7)
	ROW4F64(R9, Z8, Z9, Z10, Z11)
	ROW4F64(R10, Z12, Z13, Z14, Z15)
	ADDQ $256, SI
	ADDQ $256, R8
	ADDQ $256, R9
	ADDQ $256, R10
	ADDQ $256, DI
	SUBQ $32, CX
	CMPQ CX, $32
	JAE  loop4

one:
	TESTQ CX, CX
	JZ    reduce

loop1:
	ROW1F64(SI, Z0)
	ROW1F64(R8, Z4)
	ROW1F64(R9, Z8)
	ROW1F64(R10, Z12)
	ADDQ $64, SI
	ADDQ $64, R8
	ADDQ $64, R9
	ADDQ $64, R10
	ADDQ $64, DI
	SUBQ $8, CX
	JNZ  loop1

reduce:
	REDUCEPD(Z0, Z1, Z2, Z3, Y0, Y1, X0, X1)
	REDUCEPD(Z4, Z5, Z6, Z7, Y4, Y5, X4, X5)
	REDUCEPD(Z8, Z9, Z10, Z11, Y8, Y9, X8, X9)
	REDUCEPD(Z12, Z13, Z14, Z15, Y12, Y13, X12, X13)
	MOVSD X0, (DX)
	MOVSD X4, 8(DX)
	MOVSD X8, 16(DX)
	MOVSD X12, 24(DX)
	VZEROUPPER
	RET
