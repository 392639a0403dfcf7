/*===- GemmSmallImpl.h - The few-row GEMM blocks, any x86 vector width ----===*
 *
 * Included by GemmAvx2.c and GemmAvx512.c (after <immintrin.h>) with these
 * set for their ISA, so that one text of each block serves both widths:
 *
 *   SMALL_VEC, SMALL_MASK      the vector type and the lane mask type
 *   SMALL_LANES                floats per vector
 *   small_lanes_mask(n)        a mask of the first min(n, lanes) lanes
 *   small_zero(), small_set1(f), small_loadu(p), small_fma(a, b, c) (a*b+c),
 *   small_mul(a, b), small_maskload(mask, p) (0 in the other lanes),
 *   small_maskstore(p, mask, v), small_hsum(v)
 *   SMALL_N_MB, SMALL_N_NV     bounds of small_n_block's mb and nv (the
 *                              accumulator array; the drivers keep mb * nv
 *                              within the register file)
 *   SMALL_T_MB, SMALL_T_NB     bounds of small_t_block's mb and nb
 *
 * The per-ISA files keep the drivers (avx2_small_n, avx512_small_t, ...),
 * which pick tile shapes for their register count; see GemmKernels.h for
 * when the few-row path is taken.
 *
 *===----------------------------------------------------------------------===*/

#define SMALL_INLINE static inline __attribute__((always_inline))

SMALL_INLINE float small_scaled(float sum, float alpha, float beta,
                                const float *c) {
  return beta == 0.0f ? alpha * sum : alpha * sum + beta * *c;
}

/* How many rows ahead small_n_block prefetches B. */
enum { SMALL_N_PREFETCH_ROWS = 8 };

/* MB rows of C x NV vectors of columns: MB * NV accumulators; each row of B
 * is loaded once and used by the MB rows. */
SMALL_INLINE void small_n_block(size_t mb, size_t nv, size_t cols, size_t k,
                                float alpha, const float *a, ptrdiff_t a_rs,
                                ptrdiff_t a_cs, const float *b, ptrdiff_t ldb,
                                float beta, float *c, ptrdiff_t ldc) {
  SMALL_VEC acc[SMALL_N_MB][SMALL_N_NV];
  SMALL_MASK mask[SMALL_N_NV];
  for (size_t v = 0; v < nv; ++v) {
    mask[v] =
        small_lanes_mask(cols > SMALL_LANES * v ? cols - SMALL_LANES * v : 0);
    for (size_t r = 0; r < mb; ++r)
      acc[r][v] = small_zero();
  }
  /* One prefetch per 64-byte line of a row's vectors. */
  const size_t per_line = 16 / SMALL_LANES;
  for (size_t p = 0; p < k; ++p) {
    const float *brow = b + (ptrdiff_t)p * ldb;
    /* The rows of B are a row stride apart, often a multiple of 4 KiB,
     * which the hardware prefetchers do not follow. */
    for (size_t v = 0; v < nv; v += per_line)
      _mm_prefetch(
          (const char *)(brow + SMALL_N_PREFETCH_ROWS * ldb + SMALL_LANES * v),
          _MM_HINT_T0);
    SMALL_VEC bv[SMALL_N_NV];
    for (size_t v = 0; v < nv; ++v)
      bv[v] = small_maskload(mask[v], brow + SMALL_LANES * v);
    for (size_t r = 0; r < mb; ++r) {
      SMALL_VEC av = small_set1(a[(ptrdiff_t)r * a_rs + (ptrdiff_t)p * a_cs]);
      for (size_t v = 0; v < nv; ++v)
        acc[r][v] = small_fma(av, bv[v], acc[r][v]);
    }
  }
  SMALL_VEC valpha = small_set1(alpha), vbeta = small_set1(beta);
  for (size_t r = 0; r < mb; ++r) {
    float *out = c + (ptrdiff_t)r * ldc;
    for (size_t v = 0; v < nv; ++v) {
      SMALL_VEC y = small_mul(valpha, acc[r][v]);
      if (beta != 0.0f)
        y = small_fma(vbeta, small_maskload(mask[v], out + SMALL_LANES * v), y);
      small_maskstore(out + SMALL_LANES * v, mask[v], y);
    }
  }
}

/* MB rows of A dotted with NB rows of B along K, a vector of K at a time.
 * Rows past `rows`/`cols` repeat the last one (their sums are not stored). */
SMALL_INLINE void small_t_block(size_t mb, size_t nb, size_t rows, size_t cols,
                                size_t k, float alpha, const float *a,
                                ptrdiff_t a_rs, const float *b, ptrdiff_t ldb,
                                float beta, float *c, ptrdiff_t ldc) {
  const float *ar[SMALL_T_MB], *br[SMALL_T_NB];
  for (size_t r = 0; r < mb; ++r)
    ar[r] = a + (ptrdiff_t)(r < rows ? r : rows - 1) * a_rs;
  for (size_t j = 0; j < nb; ++j)
    br[j] = b + (ptrdiff_t)(j < cols ? j : cols - 1) * ldb;
  SMALL_VEC acc[SMALL_T_MB][SMALL_T_NB];
  for (size_t r = 0; r < mb; ++r)
    for (size_t j = 0; j < nb; ++j)
      acc[r][j] = small_zero();
  size_t p = 0;
  for (; p + SMALL_LANES <= k; p += SMALL_LANES) {
    SMALL_VEC av[SMALL_T_MB];
    for (size_t r = 0; r < mb; ++r)
      av[r] = small_loadu(ar[r] + p);
    for (size_t j = 0; j < nb; ++j) {
      SMALL_VEC bv = small_loadu(br[j] + p);
      for (size_t r = 0; r < mb; ++r)
        acc[r][j] = small_fma(av[r], bv, acc[r][j]);
    }
  }
  if (p < k) {
    SMALL_MASK tail = small_lanes_mask(k - p);
    SMALL_VEC av[SMALL_T_MB];
    for (size_t r = 0; r < mb; ++r)
      av[r] = small_maskload(tail, ar[r] + p);
    for (size_t j = 0; j < nb; ++j) {
      SMALL_VEC bv = small_maskload(tail, br[j] + p);
      for (size_t r = 0; r < mb; ++r)
        acc[r][j] = small_fma(av[r], bv, acc[r][j]);
    }
  }
  for (size_t r = 0; r < mb && r < rows; ++r) {
    float *out = c + (ptrdiff_t)r * ldc;
    for (size_t j = 0; j < nb && j < cols; ++j)
      out[j] = small_scaled(small_hsum(acc[r][j]), alpha, beta, out + j);
  }
}
