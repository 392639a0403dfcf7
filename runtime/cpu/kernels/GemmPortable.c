/*===- GemmPortable.c - The portable C micro-kernel ------------------------===*
 *
 * Plain C that any target compiles; the accumulator tile is small enough for
 * the compiler to keep in vector registers (NEON, SSE) and vectorize along
 * NR. Used where no ISA-specific kernel exists (RISC-V, old x86; AArch64
 * has GemmNeon.c).
 *
 *===----------------------------------------------------------------------===*/

#include "Gemm.h"
#include "GemmKernels.h"

/* 4 x 16 fills half of AArch64's 32 NEON registers; baseline x86-64 has only
 * 16 SSE registers, where 4 x 16 would spill. */
#if defined(__x86_64__) || defined(__i386__)
enum { MR = 4, NR = 8 };
#else
enum { MR = 4, NR = 16 };
#endif

static void portable_kernel(size_t kc, const float *a, const float *b, float *c,
                            ptrdiff_t ldc, size_t mr, size_t nr, float alpha,
                            float beta) {
  float acc[MR][NR] = {{0}};
  for (size_t p = 0; p < kc; ++p) {
    for (int r = 0; r < MR; ++r) {
      float av = a[r];
      for (int j = 0; j < NR; ++j)
        acc[r][j] += av * b[j];
    }
    a += MR;
    b += NR;
  }
  for (size_t r = 0; r < mr; ++r) {
    float *row = c + (ptrdiff_t)r * ldc;
    if (beta == 0.0f) {
      for (size_t j = 0; j < nr; ++j)
        row[j] = alpha * acc[r][j];
    } else {
      for (size_t j = 0; j < nr; ++j)
        row[j] = alpha * acc[r][j] + beta * row[j];
    }
  }
}

/* ---- Small M (see GemmKernels.h) ---------------------------------------- */

static inline float scaled(float sum, float alpha, float beta, const float *c) {
  return beta == 0.0f ? alpha * sum : alpha * sum + beta * *c;
}

enum { SMALL_TILE = 64, DOT_LANES = 8 };

/* Row i of C, SMALL_TILE columns at a time: the accumulators stay in
 * registers while the rows of B stream past. */
static void portable_small_n(size_t m, size_t n, size_t k, float alpha,
                             const float *a, ptrdiff_t a_rs, ptrdiff_t a_cs,
                             const float *b, ptrdiff_t ldb, float beta,
                             float *c, ptrdiff_t ldc) {
  for (size_t j0 = 0; j0 < n; j0 += SMALL_TILE) {
    size_t cols = n - j0 < SMALL_TILE ? n - j0 : SMALL_TILE;
    for (size_t i = 0; i < m; ++i) {
      float acc[SMALL_TILE] = {0};
      const float *arow = a + (ptrdiff_t)i * a_rs;
      if (cols == SMALL_TILE) {
        for (size_t p = 0; p < k; ++p) {
          float av = arow[(ptrdiff_t)p * a_cs];
          const float *brow = b + (ptrdiff_t)p * ldb + j0;
          for (size_t j = 0; j < SMALL_TILE; ++j)
            acc[j] += av * brow[j];
        }
      } else {
        for (size_t p = 0; p < k; ++p) {
          float av = arow[(ptrdiff_t)p * a_cs];
          const float *brow = b + (ptrdiff_t)p * ldb + j0;
          for (size_t j = 0; j < cols; ++j)
            acc[j] += av * brow[j];
        }
      }
      float *out = c + (ptrdiff_t)i * ldc + j0;
      for (size_t j = 0; j < cols; ++j)
        out[j] = scaled(acc[j], alpha, beta, out + j);
    }
  }
}

/* Dot products of rows of A with rows of B, DOT_LANES partial sums each so
 * that the compiler vectorizes them without reassociating a single sum. */
static void portable_small_t(size_t m, size_t n, size_t k, float alpha,
                             const float *a, ptrdiff_t a_rs, ptrdiff_t a_cs,
                             const float *b, ptrdiff_t ldb, float beta,
                             float *c, ptrdiff_t ldc) {
  (void)a_cs; /* 1 */
  size_t k8 = k / DOT_LANES * DOT_LANES;
  for (size_t j = 0; j < n; ++j) {
    const float *brow = b + (ptrdiff_t)j * ldb;
    for (size_t i = 0; i < m; ++i) {
      const float *arow = a + (ptrdiff_t)i * a_rs;
      float lanes[DOT_LANES] = {0};
      for (size_t p = 0; p < k8; p += DOT_LANES)
        for (size_t l = 0; l < DOT_LANES; ++l)
          lanes[l] += arow[p + l] * brow[p + l];
      float sum = 0.0f;
      for (size_t l = 0; l < DOT_LANES; ++l)
        sum += lanes[l];
      for (size_t p = k8; p < k; ++p)
        sum += arow[p] * brow[p];
      float *out = c + (ptrdiff_t)i * ldc + j;
      *out = scaled(sum, alpha, beta, out);
    }
  }
}

const onnxc_sgemm_variant onnxc_sgemm_portable_variant = {
    ONNXC_SGEMM_ISA_PORTABLE,
    MR,
    NR,
    48,
    256,
    1024,
    portable_kernel,
    portable_small_n,
    portable_small_t,
    NULL};
