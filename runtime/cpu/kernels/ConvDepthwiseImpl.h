/*===- ConvDepthwiseImpl.h - One depthwise channel plane, any vector width -===*
 *
 * Included by ConvDepthwise<Isa>.c with DW_LANES (floats per vector) and
 * DW_FUNCTION (the onnxc_dw_plane_<isa> it defines) set; each of those files
 * is compiled for its ISA, so the vector type below becomes that ISA's
 * registers. The plane's input is padded and split by horizontal stride
 * phase (see onnxc_dw_plane in Conv.h), so every tap of a vector of outputs
 * is one contiguous, in-bounds load and the loops have no edge cases. 3x3
 * and 5x5 kernels with stride 1 or 2 get fully unrolled copies.
 *
 *===----------------------------------------------------------------------===*/

#include "Activation.h"
#include "Conv.h"

#include <string.h>

typedef float dw_vector __attribute__((vector_size(DW_LANES * sizeof(float))));

static inline dw_vector dw_load(const float *p) {
  dw_vector v;
  memcpy(&v, p, sizeof v);
  return v;
}

static inline dw_vector dw_splat(float f) {
  dw_vector v = {0};
  return v + f;
}

typedef int32_t dw_mask __attribute__((vector_size(DW_LANES * sizeof(float))));

/* mask ? a : b, lane by lane. */
static inline dw_vector dw_select(dw_mask mask, dw_vector a, dw_vector b) {
  return (dw_vector)((mask & (dw_mask)a) | (~mask & (dw_mask)b));
}

/* Adds the residual and applies the activation to one output row, in place.
 * Simple loops: the compiler vectorizes them for the file's ISA. */
static void dw_row_epilogue(float *restrict y, const float *restrict residual,
                            size_t width, const onnxc_sgemm_epilogue *e) {
  if (residual)
    for (size_t i = 0; i < width; ++i)
      y[i] += residual[i];
  int32_t kind = e ? e->activation : ONNXC_ACTIVATION_NONE;
  switch (kind) {
  case ONNXC_ACTIVATION_NONE:
    break;
  case ONNXC_ACTIVATION_RELU:
    for (size_t i = 0; i < width; ++i)
      y[i] = y[i] < 0.0f ? 0.0f : y[i];
    break;
  case ONNXC_ACTIVATION_CLIP: {
    float lo = e->activation_alpha, hi = e->activation_beta;
    for (size_t i = 0; i < width; ++i) {
      float v = y[i] < lo ? lo : y[i];
      y[i] = v > hi ? hi : v;
    }
    break;
  }
  default:
    onnxc_activation_apply(kind, e->activation_alpha, e->activation_beta, y, 1,
                           width, (ptrdiff_t)width);
    break;
  }
}

/* The plane with the window geometry as parameters: constants in the
 * unrolled copies. */
static inline __attribute__((always_inline)) void
dw_plane_body(const onnxc_conv2d_shape *s, const onnxc_dw_plane *p,
              const onnxc_sgemm_epilogue *e, size_t kh_size, size_t kw_size,
              size_t sh, size_t sw, size_t dh, size_t dwid) {
  size_t oh_size = s->out_height, ow_size = s->out_width;
  size_t rs = p->row_stride, ps = p->phase_stride;
  const float *w = p->weights;
  dw_vector bias = dw_splat(p->bias);
  /* Relu and Clip (and the residual) run in registers; the row epilogue
   * does other activations. */
  int32_t kind = e ? e->activation : ONNXC_ACTIVATION_NONE;
  int in_register = kind == ONNXC_ACTIVATION_NONE ||
                    kind == ONNXC_ACTIVATION_RELU ||
                    kind == ONNXC_ACTIVATION_CLIP;
  dw_vector zero = dw_splat(0.0f);
  dw_vector lo =
      dw_splat(kind == ONNXC_ACTIVATION_CLIP ? e->activation_alpha : 0.0f);
  dw_vector hi =
      dw_splat(kind == ONNXC_ACTIVATION_CLIP ? e->activation_beta : 0.0f);
  for (size_t oh = 0; oh < oh_size; ++oh) {
    const float *top = p->data + oh * sh * rs;
    float *yrow = p->y + oh * ow_size;
    const float *rrow = p->residual ? p->residual + oh * ow_size : NULL;
    for (size_t ow = 0; ow < ow_size; ow += DW_LANES) {
      dw_vector acc = bias;
      for (size_t kh = 0; kh < kh_size; ++kh) {
        const float *row = top + kh * dh * rs + ow;
        for (size_t kw = 0; kw < kw_size; ++kw) {
          size_t t = kw * dwid;
          acc += dw_splat(w[kh * kw_size + kw]) *
                 dw_load(row + (t % sw) * ps + t / sw);
        }
      }
      size_t count = ow_size - ow < DW_LANES ? ow_size - ow : DW_LANES;
      if (in_register) {
        if (rrow && count == DW_LANES) {
          acc += dw_load(rrow + ow);
        } else if (rrow) {
          float lanes[DW_LANES] = {0};
          memcpy(lanes, rrow + ow, count * sizeof(float));
          acc += dw_load(lanes);
        }
        if (kind == ONNXC_ACTIVATION_RELU) {
          acc = dw_select(acc < zero, zero, acc);
        } else if (kind == ONNXC_ACTIVATION_CLIP) {
          acc = dw_select(acc < lo, lo, acc);
          acc = dw_select(acc > hi, hi, acc);
        }
      }
      if (count == DW_LANES) {
        memcpy(yrow + ow, &acc, sizeof acc);
      } else {
        float lanes[DW_LANES];
        memcpy(lanes, &acc, sizeof acc);
        memcpy(yrow + ow, lanes, count * sizeof(float));
      }
    }
    if (!in_register)
      dw_row_epilogue(yrow, rrow, ow_size, e);
  }
}

void DW_FUNCTION(const onnxc_conv2d_shape *s, const onnxc_dw_plane *p,
                 const onnxc_sgemm_epilogue *e) {
  size_t kh = s->kernel_height, kw = s->kernel_width;
  size_t sh = s->stride_height, sw = s->stride_width;
  int unit_dilation = s->dilation_height == 1 && s->dilation_width == 1;
  if (unit_dilation && kh == kw && sh == sw && (kh == 3 || kh == 5) &&
      (sh == 1 || sh == 2)) {
    if (kh == 3 && sh == 1)
      dw_plane_body(s, p, e, 3, 3, 1, 1, 1, 1);
    else if (kh == 3)
      dw_plane_body(s, p, e, 3, 3, 2, 2, 1, 1);
    else if (sh == 1)
      dw_plane_body(s, p, e, 5, 5, 1, 1, 1, 1);
    else
      dw_plane_body(s, p, e, 5, 5, 2, 2, 1, 1);
    return;
  }
  dw_plane_body(s, p, e, kh, kw, sh, sw, s->dilation_height, s->dilation_width);
}
