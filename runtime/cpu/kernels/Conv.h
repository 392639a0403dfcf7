/*===- Conv.h - 2-D NCHW float32 convolution with fused epilogues ----------===*
 *
 * Y = activation(Conv(X, W) + bias + residual) for dense NCHW tensors:
 * X [N, C, H, W], W [M, C / group, KH, KW], Y and residual [N, M, OH, OW],
 * bias [M]. Output element (oh, ow) reads the window starting at
 * (oh * stride_h - pad_top, ow * stride_w - pad_left) with taps `dilation`
 * apart; taps outside X are the zero padding (the end pads follow from the
 * output size).
 *
 * onnxc_conv2d picks, per call:
 *   - 1x1, stride 1, no pad: per image Y = W x X through the packed GEMM,
 *     with no copy;
 *   - depthwise (group == C == M): a direct kernel over a zero-padded,
 *     stride-deinterleaved copy of each channel, vectorized along the output
 *     width, per ISA (ConvDepthwise<Isa>.c);
 *   - anything else: im2col of a tile of output columns into a bounded
 *     scratch buffer, then the GEMM, per group.
 * Bias, residual and activation run in the GEMM's (or the depthwise
 * kernel's) epilogue. Work spreads over the runtime's thread pool.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_KERNELS_CONV_H
#define ONNXC_RUNTIME_CPU_KERNELS_CONV_H

#include "Gemm.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct onnxc_conv2d_shape {
  size_t batch, in_channels, in_height, in_width;
  size_t out_channels, out_height, out_width;
  size_t kernel_height, kernel_width;
  size_t stride_height, stride_width;
  size_t dilation_height, dilation_width;
  size_t pad_top, pad_left;
  size_t group;
} onnxc_conv2d_shape;

/* Whether the shape is one the kernels take: every size but batch and the
 * output sizes >= 1, strides and dilations >= 1, channels divisible by
 * group. */
int onnxc_conv2d_shape_valid(const onnxc_conv2d_shape *shape);

/* The convolution. `bias` ([M]) and `residual` (Y's shape, not overlapping
 * Y) may be NULL; only the activation fields of `activation` are read (NULL:
 * none). Returns 0, or -1 when scratch memory could not be allocated (Y is
 * then filled with NaN). */
int onnxc_conv2d(const onnxc_conv2d_shape *shape, const float *x,
                 const float *w, const float *bias, const float *residual,
                 float *y, const onnxc_sgemm_epilogue *activation);

/* The plain loops everything is tested against (double accumulation; taps
 * in the padding are skipped). */
void onnxc_conv2d_reference(const onnxc_conv2d_shape *shape, const float *x,
                            const float *w, const float *bias,
                            const float *residual, float *y,
                            const onnxc_sgemm_epilogue *activation);

/* ---- Depthwise variants (tests) ----------------------------------------- */

/* Forces the depthwise kernel's ISA (an onnxc_sgemm_isa; AUTO: the best).
 * Returns 0 when the build or the CPU lacks it. Not thread-safe: a test
 * hook. */
int onnxc_conv_depthwise_force_isa(int32_t isa);
int32_t onnxc_conv_depthwise_current_isa(void);

/* ---- Internal: one depthwise channel plane ------------------------------ */

/* The padded input of one channel: `phases` planes (one per horizontal
 * stride phase), each `rows` x `row_stride`, `phase_stride` apart; column q
 * of phase p holds padded column q * stride_w + p. Rows and columns are
 * padded so that every tap of every output, and VL - 1 lanes past the last
 * output, are in bounds. */
typedef struct onnxc_dw_plane {
  const float *data;
  size_t row_stride, phase_stride;
  const float *weights; /* KH x KW */
  float bias;
  const float *residual; /* OH x OW, or NULL */
  float *y;              /* OH x OW */
} onnxc_dw_plane;

typedef void (*onnxc_dw_kernel)(const onnxc_conv2d_shape *shape,
                                const onnxc_dw_plane *plane,
                                const onnxc_sgemm_epilogue *activation);

/* The vector width (floats) each variant reads past a row. */
enum { ONNXC_DW_MAX_LANES = 16 };

void onnxc_dw_plane_portable(const onnxc_conv2d_shape *shape,
                             const onnxc_dw_plane *plane,
                             const onnxc_sgemm_epilogue *activation);
void onnxc_dw_plane_avx2(const onnxc_conv2d_shape *shape,
                         const onnxc_dw_plane *plane,
                         const onnxc_sgemm_epilogue *activation);
void onnxc_dw_plane_avx512(const onnxc_conv2d_shape *shape,
                           const onnxc_dw_plane *plane,
                           const onnxc_sgemm_epilogue *activation);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ONNXC_RUNTIME_CPU_KERNELS_CONV_H */
