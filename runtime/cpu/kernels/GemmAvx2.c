/*===- GemmAvx2.c - The AVX2/FMA micro-kernel (x86-64 only) ----------------===*
 *
 * A 6 x 16 tile: 12 ymm accumulators, two ymm rows of B per k step and one
 * broadcast A value at a time (15 of the 16 ymm registers). Compiled with
 * -mavx2 -mfma; called only when the CPU has them (see Gemm.c).
 *
 *===----------------------------------------------------------------------===*/

#include "Gemm.h"
#include "GemmKernels.h"

#include <immintrin.h>

enum { MR = 6, NR = 16 };

#define FMA_ROW(r)                                                             \
  do {                                                                         \
    __m256 av = _mm256_broadcast_ss(a + (r));                                  \
    c##r##0 = _mm256_fmadd_ps(av, b0, c##r##0);                                \
    c##r##1 = _mm256_fmadd_ps(av, b1, c##r##1);                                \
  } while (0)

#define SAVE_ROW(r)                                                            \
  do {                                                                         \
    _mm256_storeu_ps(tile[r], c##r##0);                                        \
    _mm256_storeu_ps(tile[r] + 8, c##r##1);                                    \
  } while (0)

static void avx2_6x16(size_t kc, const float *a, const float *b, float *c,
                      ptrdiff_t ldc, size_t mr, size_t nr, float alpha,
                      float beta) {
  __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00,
         c21 = c00, c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00,
         c51 = c00;
#pragma GCC unroll 4
  for (size_t p = 0; p < kc; ++p) {
    __m256 b0 = _mm256_loadu_ps(b);
    __m256 b1 = _mm256_loadu_ps(b + 8);
    FMA_ROW(0);
    FMA_ROW(1);
    FMA_ROW(2);
    FMA_ROW(3);
    FMA_ROW(4);
    FMA_ROW(5);
    a += MR;
    b += NR;
  }
  __m256 valpha = _mm256_set1_ps(alpha), vbeta = _mm256_set1_ps(beta);
  if (mr == MR && nr == NR) {
#define STORE_FULL(r)                                                          \
  do {                                                                         \
    float *row = c + (ptrdiff_t)(r)*ldc;                                       \
    __m256 v0 = _mm256_mul_ps(valpha, c##r##0);                                \
    __m256 v1 = _mm256_mul_ps(valpha, c##r##1);                                \
    if (beta != 0.0f) {                                                        \
      v0 = _mm256_fmadd_ps(vbeta, _mm256_loadu_ps(row), v0);                   \
      v1 = _mm256_fmadd_ps(vbeta, _mm256_loadu_ps(row + 8), v1);               \
    }                                                                          \
    _mm256_storeu_ps(row, v0);                                                 \
    _mm256_storeu_ps(row + 8, v1);                                             \
  } while (0)
    STORE_FULL(0);
    STORE_FULL(1);
    STORE_FULL(2);
    STORE_FULL(3);
    STORE_FULL(4);
    STORE_FULL(5);
    return;
  }
  /* A partial tile goes through memory. */
  float tile[MR][NR];
  SAVE_ROW(0);
  SAVE_ROW(1);
  SAVE_ROW(2);
  SAVE_ROW(3);
  SAVE_ROW(4);
  SAVE_ROW(5);
  for (size_t r = 0; r < mr; ++r) {
    float *row = c + (ptrdiff_t)r * ldc;
    for (size_t j = 0; j < nr; ++j)
      row[j] = beta == 0.0f ? alpha * tile[r][j]
                            : alpha * tile[r][j] + beta * row[j];
  }
}

const onnxc_sgemm_variant onnxc_sgemm_avx2_variant = {
    ONNXC_SGEMM_ISA_AVX2, MR, NR, 48, 256, 1024, avx2_6x16};
