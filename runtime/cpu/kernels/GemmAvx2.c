/*===- GemmAvx2.c - The AVX2/FMA micro-kernel (x86-64 only) ----------------===*
 *
 * A 6 x 16 tile: 12 ymm accumulators, two ymm rows of B per k step and one
 * broadcast A value at a time (15 of the 16 ymm registers). Compiled with
 * -mavx2 -mfma; called only when the CPU has them (see Gemm.c).
 *
 *===----------------------------------------------------------------------===*/

#include "Gemm.h"
#include "GemmKernels.h"
#include "GemmPackedLayout.h"

#include <immintrin.h>

enum { MR = 6, NR = ONNXC_SGEMM_AVX2_NR };

#define FMA_ROW(r)                                                             \
  do {                                                                         \
    __m256 av = _mm256_broadcast_ss(a + (r));                                  \
    c##r##0 = _mm256_fmadd_ps(av, b0, c##r##0);                                \
    c##r##1 = _mm256_fmadd_ps(av, b1, c##r##1);                                \
  } while (0)

#define STORE_ROW(r)                                                           \
  do {                                                                         \
    if ((r) < mr) {                                                            \
      float *row = c + (ptrdiff_t)(r)*ldc;                                     \
      __m256 v0 = _mm256_mul_ps(valpha, c##r##0);                              \
      __m256 v1 = _mm256_mul_ps(valpha, c##r##1);                              \
      if (nr == NR) {                                                          \
        if (beta != 0.0f) {                                                    \
          v0 = _mm256_fmadd_ps(vbeta, _mm256_loadu_ps(row), v0);               \
          v1 = _mm256_fmadd_ps(vbeta, _mm256_loadu_ps(row + 8), v1);           \
        }                                                                      \
        _mm256_storeu_ps(row, v0);                                             \
        _mm256_storeu_ps(row + 8, v1);                                         \
      } else {                                                                 \
        if (beta != 0.0f) {                                                    \
          v0 = _mm256_fmadd_ps(vbeta, _mm256_maskload_ps(row, m0), v0);        \
          v1 = _mm256_fmadd_ps(vbeta, _mm256_maskload_ps(row + 8, m1), v1);    \
        }                                                                      \
        _mm256_maskstore_ps(row, m0, v0);                                      \
        _mm256_maskstore_ps(row + 8, m1, v1);                                  \
      }                                                                        \
    }                                                                          \
  } while (0)

/* Lanes [0, lanes) set: masked loads and stores touch nothing past them. */
static inline __attribute__((always_inline)) __m256i lanes_mask(size_t lanes) {
  int count = lanes >= 8 ? 8 : (int)lanes;
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(count),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* `rows` (4 or 6, a constant) rows of A's 6-row panel times the 16-column
 * panel of B. Four rows still keep 8 accumulators in flight, enough to
 * cover the FMA latency at two FMAs a cycle, so a tile of 3 or 4 rows (the
 * tails Gemm.c splits M = 7 or 8 into) takes two thirds of a 6-row tile's
 * time instead of all of it. */
static inline __attribute__((always_inline)) void
avx2_rows_x16(size_t kc, const float *a, const float *b, float *c,
              ptrdiff_t ldc, size_t mr, size_t nr, float alpha, float beta,
              const size_t rows) {
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
    if (rows > 4) {
      FMA_ROW(4);
      FMA_ROW(5);
    }
    a += MR;
    b += NR;
  }
  __m256 valpha = _mm256_set1_ps(alpha), vbeta = _mm256_set1_ps(beta);
  __m256i m0 = lanes_mask(nr), m1 = lanes_mask(nr > 8 ? nr - 8 : 0);
  STORE_ROW(0);
  STORE_ROW(1);
  STORE_ROW(2);
  STORE_ROW(3);
  STORE_ROW(4);
  STORE_ROW(5);
}

static void avx2_6x16(size_t kc, const float *a, const float *b, float *c,
                      ptrdiff_t ldc, size_t mr, size_t nr, float alpha,
                      float beta) {
  if (mr <= 4)
    avx2_rows_x16(kc, a, b, c, ldc, mr, nr, alpha, beta, 4);
  else
    avx2_rows_x16(kc, a, b, c, ldc, mr, nr, alpha, beta, 6);
}

/* ---- Small M (see GemmKernels.h) ---------------------------------------- */

static inline __attribute__((always_inline)) float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
#define SMALL_VEC __m256
#define SMALL_MASK __m256i
#define SMALL_LANES 8
#define small_lanes_mask(n) lanes_mask(n)
#define small_zero() _mm256_setzero_ps()
#define small_set1(f) _mm256_set1_ps(f)
#define small_loadu(p) _mm256_loadu_ps(p)
#define small_fma(a, b, c) _mm256_fmadd_ps(a, b, c)
#define small_mul(a, b) _mm256_mul_ps(a, b)
#define small_maskload(mask, p) _mm256_maskload_ps(p, mask)
#define small_maskstore(p, mask, v) _mm256_maskstore_ps(p, mask, v)
#define small_hsum(v) hsum(v)
/* avx2_small_n's tiles are 2 x 6 and 1 x 12 vectors (12 accumulators);
 * avx2_small_t's 2 x 4 and 1 x 8 dot products. */
#define SMALL_N_MB 2
#define SMALL_N_NV 12
#define SMALL_T_MB 2
#define SMALL_T_NB 8
#include "GemmSmallImpl.h"

static void avx2_small_n(size_t m, size_t n, size_t k, float alpha,
                         const float *a, ptrdiff_t a_rs, ptrdiff_t a_cs,
                         const float *b, ptrdiff_t ldb, float beta, float *c,
                         ptrdiff_t ldc) {
  /* Rows in pairs, 48 columns a pass (12 accumulators), a last odd row 96
   * columns a pass: wide passes read each row of B in long runs. */
  size_t i = 0;
  for (; i + 2 <= m; i += 2)
    for (size_t j = 0; j < n; j += 48)
      small_n_block(2, 6, n - j, k, alpha, a + (ptrdiff_t)i * a_rs, a_rs, a_cs,
                    b + j, ldb, beta, c + (ptrdiff_t)i * ldc + j, ldc);
  for (; i < m; ++i)
    for (size_t j = 0; j < n; j += 96)
      small_n_block(1, 12, n - j, k, alpha, a + (ptrdiff_t)i * a_rs, a_rs, a_cs,
                    b + j, ldb, beta, c + (ptrdiff_t)i * ldc + j, ldc);
}

static void avx2_small_t(size_t m, size_t n, size_t k, float alpha,
                         const float *a, ptrdiff_t a_rs, ptrdiff_t a_cs,
                         const float *b, ptrdiff_t ldb, float beta, float *c,
                         ptrdiff_t ldc) {
  (void)a_cs; /* 1 */
  /* Rows of A in twos against four rows of B (8 accumulators), a last odd
   * row against eight. */
  size_t i2 = m / 2 * 2;
  for (size_t j = 0; j < n; j += 8) {
    size_t cols = n - j < 8 ? n - j : 8;
    const float *bj = b + (ptrdiff_t)j * ldb;
    for (size_t i = 0; i < i2; i += 2) {
      small_t_block(2, 4, 2, cols, k, alpha, a + (ptrdiff_t)i * a_rs, a_rs, bj,
                    ldb, beta, c + (ptrdiff_t)i * ldc + j, ldc);
      if (cols > 4)
        small_t_block(2, 4, 2, cols - 4, k, alpha, a + (ptrdiff_t)i * a_rs,
                      a_rs, bj + 4 * ldb, ldb, beta,
                      c + (ptrdiff_t)i * ldc + j + 4, ldc);
    }
    if (m > i2)
      small_t_block(1, 8, 1, cols, k, alpha, a + (ptrdiff_t)i2 * a_rs, a_rs, bj,
                    ldb, beta, c + (ptrdiff_t)i2 * ldc + j, ldc);
  }
}

const onnxc_sgemm_variant onnxc_sgemm_avx2_variant = {ONNXC_SGEMM_ISA_AVX2,
                                                      MR,
                                                      NR,
                                                      48,
                                                      ONNXC_SGEMM_AVX2_KC,
                                                      ONNXC_SGEMM_AVX2_NC,
                                                      avx2_6x16,
                                                      avx2_small_n,
                                                      avx2_small_t,
                                                      NULL};
