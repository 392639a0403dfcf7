/*===- ConvNchwcPortable.c - NCHWc convolution in plain C ------------------===*
 *
 * A block of 16 channels is an array the compiler vectorizes (SSE, NEON).
 * Group 1: 1 output block x 4 pixels; depthwise: 4 pixels.
 *
 *===----------------------------------------------------------------------===*/

#include "ActivationKernels.h"
#include "ConvNchwcKernels.h"

typedef struct vec16 {
  float v[ONNXC_NCHWC_BLOCK];
} vec16;

static inline vec16 v_zero(void) {
  vec16 r = {{0}};
  return r;
}
static inline vec16 v_load(const float *p) {
  vec16 r;
  for (int i = 0; i < ONNXC_NCHWC_BLOCK; ++i)
    r.v[i] = p[i];
  return r;
}
static inline void v_store(float *p, vec16 v) {
  for (int i = 0; i < ONNXC_NCHWC_BLOCK; ++i)
    p[i] = v.v[i];
}
static inline vec16 v_fma(vec16 a, vec16 b, vec16 c) {
  for (int i = 0; i < ONNXC_NCHWC_BLOCK; ++i)
    c.v[i] += a.v[i] * b.v[i];
  return c;
}
static inline vec16 v_fma_bcast(float a, vec16 b, vec16 c) {
  for (int i = 0; i < ONNXC_NCHWC_BLOCK; ++i)
    c.v[i] += a * b.v[i];
  return c;
}
static inline vec16 v_add(vec16 a, vec16 b) {
  for (int i = 0; i < ONNXC_NCHWC_BLOCK; ++i)
    a.v[i] += b.v[i];
  return a;
}
static inline vec16 v_sub(vec16 a, vec16 b) {
  for (int i = 0; i < ONNXC_NCHWC_BLOCK; ++i)
    a.v[i] -= b.v[i];
  return a;
}
static inline vec16 v_set1(float a) {
  vec16 r;
  for (int i = 0; i < ONNXC_NCHWC_BLOCK; ++i)
    r.v[i] = a;
  return r;
}
/* a > b ? a : b, lane by lane (b where either is NaN). */
static inline vec16 v_max(vec16 a, vec16 b) {
  for (int i = 0; i < ONNXC_NCHWC_BLOCK; ++i)
    b.v[i] = a.v[i] > b.v[i] ? a.v[i] : b.v[i];
  return b;
}
/* As onnxc_apply_activation: NaN stays NaN. */
static inline vec16 v_relu(vec16 v) {
  for (int i = 0; i < ONNXC_NCHWC_BLOCK; ++i)
    v.v[i] = v.v[i] < 0.0f ? 0.0f : v.v[i];
  return v;
}
static inline vec16 v_clip(vec16 v, float lo, float hi) {
  for (int i = 0; i < ONNXC_NCHWC_BLOCK; ++i) {
    float x = v.v[i] < lo ? lo : v.v[i];
    v.v[i] = x > hi ? hi : x;
  }
  return v;
}
static inline vec16 v_leaky(vec16 v, float alpha) {
  for (int i = 0; i < ONNXC_NCHWC_BLOCK; ++i)
    v.v[i] = v.v[i] < 0.0f ? alpha * v.v[i] : v.v[i];
  return v;
}

#define TILE_NB 1
#define TILE_ACC 4
#define TILE_W 4
#define TILE_DW 4
/* Every other activation: the portable row (ActivationKernels.h). */
static inline vec16 v_activation(vec16 v, int32_t kind, float alpha,
                                 float beta) {
  onnxc_activation_row_portable(kind, alpha, beta, v.v, ONNXC_NCHWC_BLOCK);
  return v;
}

#include "ConvNchwcTile.inc"
#include "ConvWinogradTile.inc"

const onnxc_conv_nchwc_variant onnxc_conv_nchwc_portable_variant =
    ONNXC_CONV_NCHWC_VARIANT(ONNXC_SGEMM_ISA_PORTABLE);
