/*===- TransformerAvx2.c - Row kernels for AVX2/FMA
 *-------------------------===*
 *
 * Compiled with -mavx2 -mfma; called only after the CPUID check in
 * Transformer.c. Tails use masked loads/stores (vmaskmov), so every element
 * goes through the same arithmetic.
 *
 *===----------------------------------------------------------------------===*/

#include "TransformerKernels.h"

#include <immintrin.h>
#include <math.h>
#include <string.h>

/* exp(x) for 8 lanes: 2^n * p(r), x = n ln2 + r, a degree-6 polynomial
 * (relative error ~1e-7). Below -87.3 (where 2^n leaves the normal range)
 * the result is 0, above 88.7 it is inf; the clamps keep x second so a NaN
 * stays NaN (max/min return their second operand for a NaN). */
static inline __m256 exp8(__m256 x) {
  const __m256 lo = _mm256_set1_ps(-87.33654f), hi = _mm256_set1_ps(88.72283f);
  __m256 underflow = _mm256_cmp_ps(x, lo, _CMP_LT_OQ);
  __m256 overflow = _mm256_cmp_ps(x, hi, _CMP_GT_OQ);
  __m256 xc = _mm256_max_ps(lo, _mm256_min_ps(hi, x));
  __m256 n =
      _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.44269504088896341f)),
                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), xc);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  __m256 r2 = _mm256_mul_ps(r, r);
  p = _mm256_fmadd_ps(p, r2, _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  /* n in [-126, 128]: 2^n as exponent bits; n = 128 (x near 88.7) is split
   * into two factors so it does not reach the inf encoding. */
  __m256i ni = _mm256_cvtps_epi32(n);
  __m256i half = _mm256_srai_epi32(ni, 1);
  __m256 s1 = _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_add_epi32(half, _mm256_set1_epi32(127)), 23));
  __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(
      _mm256_add_epi32(_mm256_sub_epi32(ni, half), _mm256_set1_epi32(127)),
      23));
  __m256 y = _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
  y = _mm256_andnot_ps(underflow, y);
  return _mm256_blendv_ps(y, _mm256_set1_ps(INFINITY), overflow);
}

/* Lane i is enabled when i < count (count in 1..7). */
static inline __m256i tail_mask(size_t count) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)count),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

static inline float reduce_max(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}

static inline float reduce_add(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

static int has_nan(size_t n, const float *y) {
  for (size_t j = 0; j < n; ++j)
    if (y[j] != y[j])
      return 1;
  return 0;
}

static void softmax_avx2(size_t n, const float *x, const float *bias, float *y,
                         int zero_masked) {
  const __m256 neg_inf = _mm256_set1_ps(-INFINITY);
  __m256 vmax = neg_inf;
  size_t j = 0;
  for (; j + 8 <= n; j += 8) {
    __m256 s = _mm256_loadu_ps(x + j);
    if (bias)
      s = _mm256_add_ps(s, _mm256_loadu_ps(bias + j));
    _mm256_storeu_ps(y + j, s);
    vmax = _mm256_max_ps(vmax, s);
  }
  size_t tail = n - j;
  __m256i m = tail_mask(tail);
  if (tail) {
    __m256 s = _mm256_maskload_ps(x + j, m);
    if (bias)
      s = _mm256_add_ps(s, _mm256_maskload_ps(bias + j, m));
    _mm256_maskstore_ps(y + j, m, s);
    vmax = _mm256_max_ps(vmax,
                         _mm256_blendv_ps(neg_inf, s, _mm256_castsi256_ps(m)));
  }
  float max = reduce_max(vmax);
  if (zero_masked && max == -INFINITY && !has_nan(n, y)) {
    memset(y, 0, n * sizeof(float));
    return;
  }
  __m256 vm = _mm256_set1_ps(max);
  __m256 vsum = _mm256_setzero_ps();
  for (j = 0; j + 8 <= n; j += 8) {
    __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(y + j), vm));
    _mm256_storeu_ps(y + j, e);
    vsum = _mm256_add_ps(vsum, e);
  }
  if (tail) {
    __m256 e = exp8(_mm256_sub_ps(_mm256_maskload_ps(y + j, m), vm));
    e = _mm256_and_ps(e, _mm256_castsi256_ps(m));
    _mm256_maskstore_ps(y + j, m, e);
    vsum = _mm256_add_ps(vsum, e);
  }
  __m256 inv = _mm256_set1_ps(1.0f / reduce_add(vsum));
  for (j = 0; j + 8 <= n; j += 8)
    _mm256_storeu_ps(y + j, _mm256_mul_ps(_mm256_loadu_ps(y + j), inv));
  if (tail)
    _mm256_maskstore_ps(y + j, m,
                        _mm256_mul_ps(_mm256_maskload_ps(y + j, m), inv));
}

/* x (+ skip) (+ bias) into y (and sum_out), returning the lanes' sum. */
static inline __m256 sum_inputs8(const float *x, const float *skip,
                                 const float *bias, float *y, float *sum_out,
                                 size_t j, __m256i m, int full) {
  __m256 s = full ? _mm256_loadu_ps(x + j) : _mm256_maskload_ps(x + j, m);
  if (skip)
    s = _mm256_add_ps(s, full ? _mm256_loadu_ps(skip + j)
                              : _mm256_maskload_ps(skip + j, m));
  if (bias)
    s = _mm256_add_ps(s, full ? _mm256_loadu_ps(bias + j)
                              : _mm256_maskload_ps(bias + j, m));
  if (full) {
    _mm256_storeu_ps(y + j, s);
    if (sum_out)
      _mm256_storeu_ps(sum_out + j, s);
  } else {
    _mm256_maskstore_ps(y + j, m, s);
    if (sum_out)
      _mm256_maskstore_ps(sum_out + j, m, s);
  }
  return s;
}

/* Full vectors with plain loads and stores, the tail masked: Zen 3's masked
 * stores are microcoded, and masking every vector made gpt2's LayerNorms
 * 2.5x ORT's time. Two partial sums per pass halve the add chains. */
static void layer_norm_avx2(size_t n, const float *x, const float *skip,
                            const float *bias, const float *gamma,
                            const float *beta, float epsilon, float *y,
                            float *sum_out) {
  size_t full = n / 8 * 8;
  __m256i m = tail_mask(n - full);
  __m256 t0 = _mm256_setzero_ps(), t1 = t0;
  size_t j = 0;
  for (; j + 16 <= full; j += 16) {
    t0 = _mm256_add_ps(t0, sum_inputs8(x, skip, bias, y, sum_out, j, m, 1));
    t1 = _mm256_add_ps(t1, sum_inputs8(x, skip, bias, y, sum_out, j + 8, m, 1));
  }
  if (j < full)
    t0 = _mm256_add_ps(t0, sum_inputs8(x, skip, bias, y, sum_out, j, m, 1));
  if (n > full) /* masked-off lanes load as 0 */
    t1 = _mm256_add_ps(t1, sum_inputs8(x, skip, bias, y, sum_out, full, m, 0));
  __m256 mean = _mm256_set1_ps(reduce_add(_mm256_add_ps(t0, t1)) / (float)n);
  __m256 q0 = _mm256_setzero_ps(), q1 = q0;
  for (j = 0; j + 16 <= full; j += 16) {
    __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(y + j), mean);
    __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(y + j + 8), mean);
    q0 = _mm256_fmadd_ps(d0, d0, q0);
    q1 = _mm256_fmadd_ps(d1, d1, q1);
  }
  if (j < full) {
    __m256 d = _mm256_sub_ps(_mm256_loadu_ps(y + j), mean);
    q0 = _mm256_fmadd_ps(d, d, q0);
  }
  if (n > full) {
    __m256 d =
        _mm256_and_ps(_mm256_sub_ps(_mm256_maskload_ps(y + full, m), mean),
                      _mm256_castsi256_ps(m));
    q1 = _mm256_fmadd_ps(d, d, q1);
  }
  float var = reduce_add(_mm256_add_ps(q0, q1)) / (float)n;
  __m256 rstd = _mm256_set1_ps(1.0f / sqrtf(var + epsilon));
  for (j = 0; j < full; j += 8) {
    __m256 d = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(y + j), mean), rstd);
    __m256 v = _mm256_mul_ps(d, _mm256_loadu_ps(gamma + j));
    if (beta)
      v = _mm256_add_ps(v, _mm256_loadu_ps(beta + j));
    _mm256_storeu_ps(y + j, v);
  }
  if (n > full) {
    __m256 d = _mm256_mul_ps(
        _mm256_sub_ps(_mm256_maskload_ps(y + full, m), mean), rstd);
    __m256 v = _mm256_mul_ps(d, _mm256_maskload_ps(gamma + full, m));
    if (beta)
      v = _mm256_add_ps(v, _mm256_maskload_ps(beta + full, m));
    _mm256_maskstore_ps(y + full, m, v);
  }
}

const onnxc_row_kernels onnxc_row_kernels_avx2 = {softmax_avx2,
                                                  layer_norm_avx2};
