/*===- ConvNchwcAvx2.c - NCHWc convolution with AVX2/FMA ------------------===*
 *
 * A block of 16 channels is two ymm registers. Group 1: a tile of 1 output
 * block x 6 pixels (12 accumulators, 2 weight vectors, 1 broadcast: 15 of
 * the 16 registers). Depthwise: 6 pixels.
 *
 *===----------------------------------------------------------------------===*/

#include "ConvNchwcKernels.h"

#include <immintrin.h>

typedef struct vec16 {
  __m256 lo, hi;
} vec16;

static inline vec16 v_zero(void) {
  vec16 r = {_mm256_setzero_ps(), _mm256_setzero_ps()};
  return r;
}
static inline vec16 v_load(const float *p) {
  vec16 r = {_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)};
  return r;
}
static inline void v_store(float *p, vec16 v) {
  _mm256_storeu_ps(p, v.lo);
  _mm256_storeu_ps(p + 8, v.hi);
}
static inline vec16 v_fma(vec16 a, vec16 b, vec16 c) {
  vec16 r = {_mm256_fmadd_ps(a.lo, b.lo, c.lo),
             _mm256_fmadd_ps(a.hi, b.hi, c.hi)};
  return r;
}
static inline vec16 v_fma_bcast(float a, vec16 b, vec16 c) {
  __m256 av = _mm256_set1_ps(a);
  vec16 r = {_mm256_fmadd_ps(av, b.lo, c.lo), _mm256_fmadd_ps(av, b.hi, c.hi)};
  return r;
}
/* The low 8 lanes only (rolled_tile's `half`): the high ones are 0 / c's. */
static inline vec16 v_load_lo(const float *p) {
  vec16 r = {_mm256_loadu_ps(p), _mm256_setzero_ps()};
  return r;
}
static inline vec16 v_fma_bcast_lo(float a, vec16 b, vec16 c) {
  c.lo = _mm256_fmadd_ps(_mm256_set1_ps(a), b.lo, c.lo);
  return c;
}
static inline vec16 v_add(vec16 a, vec16 b) {
  vec16 r = {_mm256_add_ps(a.lo, b.lo), _mm256_add_ps(a.hi, b.hi)};
  return r;
}
static inline vec16 v_sub(vec16 a, vec16 b) {
  vec16 r = {_mm256_sub_ps(a.lo, b.lo), _mm256_sub_ps(a.hi, b.hi)};
  return r;
}
static inline vec16 v_set1(float a) {
  vec16 r = {_mm256_set1_ps(a), _mm256_set1_ps(a)};
  return r;
}
/* a > b ? a : b, lane by lane (b where either is NaN). */
static inline vec16 v_max(vec16 a, vec16 b) {
  vec16 r = {_mm256_max_ps(a.lo, b.lo), _mm256_max_ps(a.hi, b.hi)};
  return r;
}
/* max/min return their second operand when either is NaN: x goes second so
 * that NaN propagates, as in onnxc_apply_activation. */
static inline vec16 v_relu(vec16 v) {
  __m256 zero = _mm256_setzero_ps();
  vec16 r = {_mm256_max_ps(zero, v.lo), _mm256_max_ps(zero, v.hi)};
  return r;
}
static inline vec16 v_clip(vec16 v, float lo, float hi) {
  __m256 l = _mm256_set1_ps(lo), h = _mm256_set1_ps(hi);
  vec16 r = {_mm256_min_ps(h, _mm256_max_ps(l, v.lo)),
             _mm256_min_ps(h, _mm256_max_ps(l, v.hi))};
  return r;
}
static inline __m256 leaky8(__m256 v, __m256 alpha) {
  __m256 negative = _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LT_OQ);
  return _mm256_blendv_ps(v, _mm256_mul_ps(v, alpha), negative);
}
static inline vec16 v_leaky(vec16 v, float alpha) {
  __m256 a = _mm256_set1_ps(alpha);
  vec16 r = {leaky8(v.lo, a), leaky8(v.hi, a)};
  return r;
}

#define TILE_NB 1
#define TILE_FULL_CI 1
#define TILE_ACC 6
#define TILE_W 6
#define TILE_DW 6
#define TILE_DW_SLIDE 4
#define TILE_ROLLED 1
/* Every other activation, in registers (ActivationVector.h). */
#define ACT_LANES 8
#include "ActivationVector.h"
static inline __attribute__((always_inline)) vec16
v_activation(vec16 v, int32_t kind, float alpha, float beta) {
  vec16 r = {(__m256)act_activation(kind, (act_vec)v.lo, alpha, beta),
             (__m256)act_activation(kind, (act_vec)v.hi, alpha, beta)};
  return r;
}

#include "ConvNchwcTile.inc"
#include "ConvWinogradTile.inc"

const onnxc_conv_nchwc_variant onnxc_conv_nchwc_avx2_variant =
    ONNXC_CONV_NCHWC_VARIANT(ONNXC_SGEMM_ISA_AVX2);
