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
#include "GemmPackedLayout.h"

#include <immintrin.h>

enum { MR = 12, NR = ONNXC_SGEMM_AVX512_NR };
/* A B packed once (a model's weights: avx512_12x32_streamed) comes from
 * DRAM, and the first row tile to read a panel waited on it: the 16-step
 * prefetch into L1 is a few hundred cycles ahead, DRAM is further away. So
 * the streamed kernel also fetches into L2 the lines its caller names
 * (onnxc_sgemm_streamed_fn): the share of the next panel that this call
 * should bring in (Gemm.c). A B packed per call is in L2 already: there
 * such a fetch cost 2.5% (1024^3: 199 -> 193.5 GFLOP/s), so the plain
 * kernel has none. */

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

/* `rows` (4, 6, 8 or 12, a constant) rows of A's 12-row panel times the
 * 32-column panel of B: the rows past `rows` are left out of the loop, so
 * that a last panel of a few rows (M = 197: 5) does not multiply up to 11
 * rows of zero padding. */
static inline __attribute__((always_inline)) void
avx512_rows_x32(size_t kc, const float *a, const float *b, float *c,
                ptrdiff_t ldc, size_t mr, size_t nr, float alpha, float beta,
                const size_t rows, const int fetch, const char *next,
                size_t next_step) {
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
    if (fetch) {
      /* Two lines at a pointer that advances next_step bytes a step: one
       * add. With next_step under 64 later steps name the same lines
       * again, which costs a load slot each. Naming each line once (a
       * cmov per prefetch) took 14 more instructions a step, as many as
       * a 4-row loop has FMAs, and vit_b_16 measured 1.01-1.05x the old
       * time with it, 1.00 with this. */
      _mm_prefetch(next, _MM_HINT_T1);
      _mm_prefetch(next + 64, _MM_HINT_T1);
      next += next_step;
    }
    __m512 b0 = _mm512_loadu_ps(b);
    __m512 b1 = _mm512_loadu_ps(b + 16);
    FMA_ROW(0);
    FMA_ROW(1);
    FMA_ROW(2);
    FMA_ROW(3);
    if (rows > 4) {
      FMA_ROW(4);
      FMA_ROW(5);
    }
    if (rows > 6) {
      FMA_ROW(6);
      FMA_ROW(7);
    }
    if (rows > 8) {
      FMA_ROW(8);
      FMA_ROW(9);
      FMA_ROW(10);
      FMA_ROW(11);
    }
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

/* `fetch` (a constant): the lines of `next` into L2 as the loop runs. */
static inline __attribute__((always_inline)) void
avx512_12x32_any(size_t kc, const float *a, const float *b, float *c,
                 ptrdiff_t ldc, size_t mr, size_t nr, float alpha, float beta,
                 const int fetch, const char *next, size_t next_step) {
  if (mr <= 4)
    avx512_rows_x32(kc, a, b, c, ldc, mr, nr, alpha, beta, 4, fetch, next,
                    next_step);
  else if (mr <= 6)
    avx512_rows_x32(kc, a, b, c, ldc, mr, nr, alpha, beta, 6, fetch, next,
                    next_step);
  else if (mr <= 8)
    avx512_rows_x32(kc, a, b, c, ldc, mr, nr, alpha, beta, 8, fetch, next,
                    next_step);
  else
    avx512_rows_x32(kc, a, b, c, ldc, mr, nr, alpha, beta, 12, fetch, next,
                    next_step);
}

static void avx512_12x32(size_t kc, const float *a, const float *b, float *c,
                         ptrdiff_t ldc, size_t mr, size_t nr, float alpha,
                         float beta) {
  avx512_12x32_any(kc, a, b, c, ldc, mr, nr, alpha, beta, 0, NULL, 0);
}

static void avx512_12x32_streamed(size_t kc, const float *a, const float *b,
                                  float *c, ptrdiff_t ldc, size_t mr, size_t nr,
                                  float alpha, float beta, const float *next,
                                  size_t next_step) {
  /* Nothing to fetch: the panel itself, which is in cache already. */
  avx512_12x32_any(kc, a, b, c, ldc, mr, nr, alpha, beta, 1,
                   next ? (const char *)next : (const char *)b, next_step);
}

/* ---- Small M (see GemmKernels.h) ---------------------------------------- */

static inline __attribute__((always_inline)) __mmask16
small_lanes_mask(size_t lanes) {
  return lanes >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << lanes) - 1);
}
#define SMALL_VEC __m512
#define SMALL_MASK __mmask16
#define SMALL_LANES 16
#define small_zero() _mm512_setzero_ps()
#define small_set1(f) _mm512_set1_ps(f)
#define small_loadu(p) _mm512_loadu_ps(p)
#define small_fma(a, b, c) _mm512_fmadd_ps(a, b, c)
#define small_mul(a, b) _mm512_mul_ps(a, b)
#define small_maskload(mask, p) _mm512_maskz_loadu_ps(mask, p)
#define small_maskstore(p, mask, v) _mm512_mask_storeu_ps(p, mask, v)
#define small_hsum(v) _mm512_reduce_add_ps(v)
/* avx512_small_n's tiles are 4 x 4, 3 x 6, 2 x 8 and 1 x 16 vectors (16
 * accumulators); avx512_small_t's 4 x 4, 2 x 8 and 1 x 8 dot products. */
#define SMALL_N_MB 4
#define SMALL_N_NV 16
#define SMALL_T_MB 4
#define SMALL_T_NB 8
#include "GemmSmallImpl.h"

static void avx512_small_n(size_t m, size_t n, size_t k, float alpha,
                           const float *a, ptrdiff_t a_rs, ptrdiff_t a_cs,
                           const float *b, ptrdiff_t ldb, float beta, float *c,
                           ptrdiff_t ldc) {
  size_t i = 0;
  for (; i + 4 <= m; i += 4)
    for (size_t j = 0; j < n; j += 64)
      small_n_block(4, 4, n - j, k, alpha, a + (ptrdiff_t)i * a_rs, a_rs, a_cs,
                    b + j, ldb, beta, c + (ptrdiff_t)i * ldc + j, ldc);
  /* Three rows in one pass over B (a pair and a single row would read B
   * twice: 2.8x the time at K = N = 768). */
  if (m - i == 3) {
    for (size_t j = 0; j < n; j += 96)
      small_n_block(3, 6, n - j, k, alpha, a + (ptrdiff_t)i * a_rs, a_rs, a_cs,
                    b + j, ldb, beta, c + (ptrdiff_t)i * ldc + j, ldc);
    return;
  }
  for (; i + 2 <= m; i += 2)
    for (size_t j = 0; j < n; j += 128)
      small_n_block(2, 8, n - j, k, alpha, a + (ptrdiff_t)i * a_rs, a_rs, a_cs,
                    b + j, ldb, beta, c + (ptrdiff_t)i * ldc + j, ldc);
  /* One row: 256 columns a pass, so each row of B is read 1 KiB at a
   * time (its loads fold into the FMAs: 16 accumulators). */
  for (; i < m; ++i)
    for (size_t j = 0; j < n; j += 256)
      small_n_block(1, 16, n - j, k, alpha, a + (ptrdiff_t)i * a_rs, a_rs, a_cs,
                    b + j, ldb, beta, c + (ptrdiff_t)i * ldc + j, ldc);
}

static void avx512_small_t(size_t m, size_t n, size_t k, float alpha,
                           const float *a, ptrdiff_t a_rs, ptrdiff_t a_cs,
                           const float *b, ptrdiff_t ldb, float beta, float *c,
                           ptrdiff_t ldc) {
  (void)a_cs; /* 1 */
  /* Rows of A in fours (4 x 4 accumulators), the rest in twos and ones
   * against eight rows of B, so one row still has 8 independent chains. */
  size_t i4 = m / 4 * 4, i2 = i4 + (m - i4) / 2 * 2;
  for (size_t j = 0; j < n; j += 8) {
    size_t cols = n - j < 8 ? n - j : 8;
    const float *bj = b + (ptrdiff_t)j * ldb;
    for (size_t i = 0; i < i4; i += 4) {
      small_t_block(4, 4, 4, cols, k, alpha, a + (ptrdiff_t)i * a_rs, a_rs, bj,
                    ldb, beta, c + (ptrdiff_t)i * ldc + j, ldc);
      if (cols > 4)
        small_t_block(4, 4, 4, cols - 4, k, alpha, a + (ptrdiff_t)i * a_rs,
                      a_rs, bj + 4 * ldb, ldb, beta,
                      c + (ptrdiff_t)i * ldc + j + 4, ldc);
    }
    if (i2 > i4)
      small_t_block(2, 8, 2, cols, k, alpha, a + (ptrdiff_t)i4 * a_rs, a_rs, bj,
                    ldb, beta, c + (ptrdiff_t)i4 * ldc + j, ldc);
    if (m > i2)
      small_t_block(1, 8, 1, cols, k, alpha, a + (ptrdiff_t)i2 * a_rs, a_rs, bj,
                    ldb, beta, c + (ptrdiff_t)i2 * ldc + j, ldc);
  }
}

const onnxc_sgemm_variant onnxc_sgemm_avx512_variant = {ONNXC_SGEMM_ISA_AVX512,
                                                        MR,
                                                        NR,
                                                        48,
                                                        ONNXC_SGEMM_AVX512_KC,
                                                        ONNXC_SGEMM_AVX512_NC,
                                                        avx512_12x32,
                                                        avx512_small_n,
                                                        avx512_small_t,
                                                        avx512_12x32_streamed};
