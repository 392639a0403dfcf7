/*===- ConvNchwcAvx512.c - NCHWc convolution with AVX-512 -----------------===*
 *
 * One zmm register is one block of 16 channels. Group 1: a tile of up to 24
 * accumulators (4 output blocks x 6 pixels, 3 x 8 or 2 x 12, chosen per
 * convolution by ConvNchwc.c), the weight vectors of its blocks and one
 * broadcast. Depthwise: 12 pixels of one block.
 *
 *===----------------------------------------------------------------------===*/

#include "ConvNchwcKernels.h"

#include <immintrin.h>

typedef __m512 vec16;

static inline vec16 v_zero(void) { return _mm512_setzero_ps(); }
static inline vec16 v_load(const float *p) { return _mm512_loadu_ps(p); }
static inline void v_store(float *p, vec16 v) { _mm512_storeu_ps(p, v); }
static inline vec16 v_fma(vec16 a, vec16 b, vec16 c) {
  return _mm512_fmadd_ps(a, b, c);
}
static inline vec16 v_fma_bcast(float a, vec16 b, vec16 c) {
  return _mm512_fmadd_ps(_mm512_set1_ps(a), b, c);
}
static inline vec16 v_add(vec16 a, vec16 b) { return _mm512_add_ps(a, b); }
static inline vec16 v_sub(vec16 a, vec16 b) { return _mm512_sub_ps(a, b); }
static inline vec16 v_set1(float a) { return _mm512_set1_ps(a); }
/* a > b ? a : b, lane by lane (b where either is NaN). */
static inline vec16 v_max(vec16 a, vec16 b) { return _mm512_max_ps(a, b); }
/* max/min return their second operand when either is NaN: x goes second so
 * that NaN propagates, as in onnxc_apply_activation. */
static inline vec16 v_relu(vec16 v) {
  return _mm512_max_ps(_mm512_setzero_ps(), v);
}
static inline vec16 v_clip(vec16 v, float lo, float hi) {
  return _mm512_min_ps(_mm512_set1_ps(hi),
                       _mm512_max_ps(_mm512_set1_ps(lo), v));
}
static inline vec16 v_leaky(vec16 v, float alpha) {
  __mmask16 negative = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ);
  return _mm512_mask_mul_ps(v, negative, v, _mm512_set1_ps(alpha));
}

#define TILE_NB 4
#define TILE_W 12
#define TILE_ACC 24
#define TILE_DW 12
#define TILE_FULL_CI 1
/* Every other activation, in registers (ActivationVector.h). */
#define ACT_LANES 16
#include "ActivationVector.h"
static inline __attribute__((always_inline)) vec16
v_activation(vec16 v, int32_t kind, float alpha, float beta) {
  return (vec16)act_activation(kind, (act_vec)v, alpha, beta);
}

#include "ConvNchwcTile.inc"
#include "ConvWinogradTile.inc"

const onnxc_conv_nchwc_variant onnxc_conv_nchwc_avx512_variant =
    ONNXC_CONV_NCHWC_VARIANT(ONNXC_SGEMM_ISA_AVX512);
