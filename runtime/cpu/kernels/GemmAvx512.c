/*===- GemmAvx512.c - The AVX-512 micro-kernel (x86-64 only) ---------------===*
 *
 * A 12 x 32 tile: 24 zmm accumulators, two zmm rows of B per k step and the
 * 12 A values as embedded-broadcast FMA operands, so each k step is 2 loads
 * and 24 FMAs. Compiled with -mavx512f -mavx512vl; called only when the CPU
 * has them (see Gemm.c).
 *
 *===----------------------------------------------------------------------===*/

#include "Gemm.h"
#include "GemmKernels.h"

#include <immintrin.h>

enum { MR = 12, NR = 32 };

#define FMA_ROW(r)                                                             \
  do {                                                                         \
    __m512 av = _mm512_set1_ps(a[r]);                                          \
    c##r##0 = _mm512_fmadd_ps(av, b0, c##r##0);                                \
    c##r##1 = _mm512_fmadd_ps(av, b1, c##r##1);                                \
  } while (0)

#define STORE_ROW(r)                                                           \
  do {                                                                         \
    if (r < mr) {                                                              \
      float *row = c + (ptrdiff_t)(r)*ldc;                                     \
      __m512 v0 = _mm512_mul_ps(valpha, c##r##0);                              \
      __m512 v1 = _mm512_mul_ps(valpha, c##r##1);                              \
      if (beta != 0.0f) {                                                      \
        v0 = _mm512_fmadd_ps(vbeta, _mm512_maskz_loadu_ps(m0, row), v0);       \
        v1 = _mm512_fmadd_ps(vbeta, _mm512_maskz_loadu_ps(m1, row + 16), v1);  \
      }                                                                        \
      _mm512_mask_storeu_ps(row, m0, v0);                                      \
      _mm512_mask_storeu_ps(row + 16, m1, v1);                                 \
    }                                                                          \
  } while (0)

static void avx512_12x32(size_t kc, const float *a, const float *b, float *c,
                         ptrdiff_t ldc, size_t mr, size_t nr, float alpha,
                         float beta) {
  __m512 c00 = _mm512_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00,
         c21 = c00, c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00,
         c51 = c00, c60 = c00, c61 = c00, c70 = c00, c71 = c00, c80 = c00,
         c81 = c00, c90 = c00, c91 = c00;
  __m512 c100 = c00, c101 = c00, c110 = c00, c111 = c00;
  /* The C tile is read (beta) and written after the loop: start fetching
   * its 24 lines now so the stores do not wait for them. */
  for (size_t r = 0; r < mr; ++r) {
    _mm_prefetch((const char *)(c + (ptrdiff_t)r * ldc), _MM_HINT_T0);
    _mm_prefetch((const char *)(c + (ptrdiff_t)r * ldc + 16), _MM_HINT_T0);
  }
#pragma GCC unroll 4
  for (size_t p = 0; p < kc; ++p) {
    _mm_prefetch((const char *)(b + 16 * NR), _MM_HINT_T0);
    _mm_prefetch((const char *)(b + 16 * NR + 16), _MM_HINT_T0);
    __m512 b0 = _mm512_loadu_ps(b);
    __m512 b1 = _mm512_loadu_ps(b + 16);
    FMA_ROW(0);
    FMA_ROW(1);
    FMA_ROW(2);
    FMA_ROW(3);
    FMA_ROW(4);
    FMA_ROW(5);
    FMA_ROW(6);
    FMA_ROW(7);
    FMA_ROW(8);
    FMA_ROW(9);
    FMA_ROW(10);
    FMA_ROW(11);
    a += MR;
    b += NR;
  }
  __mmask16 m0 = nr >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << nr) - 1);
  __mmask16 m1 = nr >= 32  ? (__mmask16)0xFFFF
                 : nr > 16 ? (__mmask16)((1u << (nr - 16)) - 1)
                           : (__mmask16)0;
  __m512 valpha = _mm512_set1_ps(alpha), vbeta = _mm512_set1_ps(beta);
  STORE_ROW(0);
  STORE_ROW(1);
  STORE_ROW(2);
  STORE_ROW(3);
  STORE_ROW(4);
  STORE_ROW(5);
  STORE_ROW(6);
  STORE_ROW(7);
  STORE_ROW(8);
  STORE_ROW(9);
  STORE_ROW(10);
  STORE_ROW(11);
}

const onnxc_sgemm_variant onnxc_sgemm_avx512_variant = {
    ONNXC_SGEMM_ISA_AVX512, MR, NR, 48, 256, 1024, avx512_12x32};
