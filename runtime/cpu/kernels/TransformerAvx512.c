/*===- TransformerAvx512.c - Row kernels for AVX-512
 *------------------------===*
 *
 * Compiled with -mavx512f; called only after the CPUID check in
 * Transformer.c. Tails use masked loads and stores, so every element goes
 * through the same arithmetic.
 *
 *===----------------------------------------------------------------------===*/

#include "TransformerKernels.h"

#include <immintrin.h>
#include <math.h>
#include <string.h>

/* exp(x) for 16 lanes: 2^n * p(r) with x = n ln2 + r, |r| <= ln2 / 2, a
 * degree-6 polynomial (relative error ~1e-7). scalef scales without
 * building exponent bits, so overflow gives inf. Below -87.3 (where the
 * result leaves the normal range) it is 0: a denormal result took the
 * CPU's slow path, 25x the time per lane, and softmax's masked scores
 * (about -3.4e38, GPT-2's causal mask) all land there. The clamps put x
 * second: max/min return their second operand for a NaN, and the compare
 * is false for one, so NaN stays NaN. */
static inline __m512 exp16(__m512 x) {
  __mmask16 underflow =
      _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.33654f), _CMP_LT_OQ);
  x = _mm512_min_ps(_mm512_set1_ps(89.0f), x);
  x = _mm512_max_ps(_mm512_set1_ps(-87.33654f), x);
  __m512 n = _mm512_roundscale_ps(
      _mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  __m512 r2 = _mm512_mul_ps(r, r);
  p = _mm512_fmadd_ps(p, r2, _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_maskz_scalef_ps((__mmask16)~underflow, p, n);
}

static inline __mmask16 tail_mask(size_t count) {
  return (__mmask16)((1u << count) - 1u);
}

static int has_nan(size_t n, const float *y) {
  for (size_t j = 0; j < n; ++j)
    if (y[j] != y[j])
      return 1;
  return 0;
}

static void softmax_avx512(size_t n, const float *x, const float *bias,
                           float *y, int zero_masked) {
  const __m512 neg_inf = _mm512_set1_ps(-INFINITY);
  __m512 vmax = neg_inf;
  size_t j = 0;
  for (; j + 16 <= n; j += 16) {
    __m512 s = _mm512_loadu_ps(x + j);
    if (bias)
      s = _mm512_add_ps(s, _mm512_loadu_ps(bias + j));
    _mm512_storeu_ps(y + j, s);
    vmax = _mm512_max_ps(vmax, s);
  }
  if (j < n) {
    __mmask16 m = tail_mask(n - j);
    __m512 s = _mm512_mask_loadu_ps(neg_inf, m, x + j);
    if (bias)
      s = _mm512_add_ps(s, _mm512_maskz_loadu_ps(m, bias + j));
    _mm512_mask_storeu_ps(y + j, m, s);
    vmax = _mm512_max_ps(vmax, s);
  }
  float max = _mm512_reduce_max_ps(vmax);
  if (zero_masked && max == -INFINITY && !has_nan(n, y)) {
    memset(y, 0, n * sizeof(float));
    return;
  }
  __m512 vm = _mm512_set1_ps(max);
  __m512 vsum = _mm512_setzero_ps();
  for (j = 0; j + 16 <= n; j += 16) {
    __m512 e = exp16(_mm512_sub_ps(_mm512_loadu_ps(y + j), vm));
    _mm512_storeu_ps(y + j, e);
    vsum = _mm512_add_ps(vsum, e);
  }
  if (j < n) {
    __mmask16 m = tail_mask(n - j);
    __m512 e = exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, y + j), vm));
    _mm512_mask_storeu_ps(y + j, m, e);
    vsum = _mm512_mask_add_ps(vsum, m, vsum, e);
  }
  __m512 inv = _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(vsum));
  for (j = 0; j + 16 <= n; j += 16)
    _mm512_storeu_ps(y + j, _mm512_mul_ps(_mm512_loadu_ps(y + j), inv));
  if (j < n) {
    __mmask16 m = tail_mask(n - j);
    _mm512_mask_storeu_ps(y + j, m,
                          _mm512_mul_ps(_mm512_maskz_loadu_ps(m, y + j), inv));
  }
}

static void layer_norm_avx512(size_t n, const float *x, const float *skip,
                              const float *bias, const float *gamma,
                              const float *beta, float epsilon, float *y,
                              float *sum_out) {
  __m512 vtotal = _mm512_setzero_ps();
  size_t j = 0;
  for (; j < n; j += 16) {
    __mmask16 m = n - j >= 16 ? (__mmask16)0xFFFF : tail_mask(n - j);
    __m512 s = _mm512_maskz_loadu_ps(m, x + j);
    if (skip)
      s = _mm512_add_ps(s, _mm512_maskz_loadu_ps(m, skip + j));
    if (bias)
      s = _mm512_add_ps(s, _mm512_maskz_loadu_ps(m, bias + j));
    _mm512_mask_storeu_ps(y + j, m, s);
    if (sum_out)
      _mm512_mask_storeu_ps(sum_out + j, m, s);
    vtotal = _mm512_add_ps(vtotal, s);
  }
  __m512 mean = _mm512_set1_ps(_mm512_reduce_add_ps(vtotal) / (float)n);
  __m512 vsq = _mm512_setzero_ps();
  for (j = 0; j < n; j += 16) {
    __mmask16 m = n - j >= 16 ? (__mmask16)0xFFFF : tail_mask(n - j);
    __m512 d = _mm512_maskz_sub_ps(m, _mm512_maskz_loadu_ps(m, y + j), mean);
    vsq = _mm512_fmadd_ps(d, d, vsq);
  }
  float var = _mm512_reduce_add_ps(vsq) / (float)n;
  __m512 rstd = _mm512_set1_ps(1.0f / sqrtf(var + epsilon));
  for (j = 0; j < n; j += 16) {
    __mmask16 m = n - j >= 16 ? (__mmask16)0xFFFF : tail_mask(n - j);
    __m512 d = _mm512_mul_ps(
        _mm512_sub_ps(_mm512_maskz_loadu_ps(m, y + j), mean), rstd);
    __m512 v = _mm512_mul_ps(d, _mm512_maskz_loadu_ps(m, gamma + j));
    if (beta)
      v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, beta + j));
    _mm512_mask_storeu_ps(y + j, m, v);
  }
}

const onnxc_row_kernels onnxc_row_kernels_avx512 = {softmax_avx512,
                                                    layer_norm_avx512};
