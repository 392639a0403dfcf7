/*===- Conv.c - Conv / FusedConv of lowered code through the conv kernels --===*
 *
 * The CPU lowering (targets/cpu/lowering/ConvCall.cpp) turns f32 2-D NCHW
 * onnx.Conv and onnxc.FusedConv into one call of
 * _mlir_ciface_onnxc_rt_conv2d_f32 with unranked memrefs and the resolved
 * window (explicit begin pads, strides, dilations). This file reads the
 * descriptors, checks every shape the kernels rely on (dense layouts, rank
 * 4, channel counts, bias and residual sizes) and calls onnxc_conv2d
 * (kernels/Conv.h). Shapes that disagree at run time fill Y with NaN rather
 * than read out of bounds.
 *
 *===----------------------------------------------------------------------===*/

#include "kernels/Conv.h"
#include "CpuRuntime.h"

#include <math.h>

/* A rank-r memref descriptor: {allocated, aligned, offset, sizes, strides}. */
typedef struct conv_descriptor {
  float *allocated, *aligned;
  int64_t offset;
  int64_t dims[];
} conv_descriptor;

typedef struct dense_view {
  float *data;
  int64_t size[4];
  int64_t count;
} dense_view;

/* Reads a dense row-major memref of `rank` (1 or 4). Unit dims may carry
 * any stride. */
static int read_dense(const onnxc_unranked_memref *m, int rank, dense_view *v) {
  if (!m || m->rank != rank || !m->descriptor)
    return 0;
  const conv_descriptor *d = m->descriptor;
  v->data = d->aligned + d->offset;
  int64_t expected = 1;
  for (int i = rank - 1; i >= 0; --i) {
    int64_t size = d->dims[i], stride = d->dims[rank + i];
    if (size < 0 || (size > 1 && stride != expected))
      return 0;
    v->size[i] = size;
    expected *= size;
  }
  v->count = expected;
  return 1;
}

void _mlir_ciface_onnxc_rt_conv2d_f32(
    onnxc_unranked_memref *x_ref, onnxc_unranked_memref *w_ref,
    onnxc_unranked_memref *bias_ref, onnxc_unranked_memref *residual_ref,
    onnxc_unranked_memref *y_ref, int32_t flags, int64_t pad_top,
    int64_t pad_left, int64_t stride_h, int64_t stride_w, int64_t dilation_h,
    int64_t dilation_w, int64_t group, int32_t activation,
    float activation_alpha, float activation_beta) {
  dense_view x, w, y, bias = {0}, residual = {0};
  if (!read_dense(y_ref, 4, &y))
    return; /* nothing to fill safely */
  int ok = read_dense(x_ref, 4, &x) && read_dense(w_ref, 4, &w);
  int has_bias = (flags & ONNXC_CONV_BIAS) != 0;
  int has_residual = (flags & ONNXC_CONV_RESIDUAL) != 0;
  if (has_bias)
    ok = ok && read_dense(bias_ref, 1, &bias) && bias.size[0] == y.size[1];
  if (has_residual) {
    ok = ok && read_dense(residual_ref, 4, &residual);
    for (int d = 0; ok && d < 4; ++d)
      ok = residual.size[d] == y.size[d];
  }
  ok = ok && pad_top >= 0 && pad_left >= 0 && stride_h >= 1 && stride_w >= 1 &&
       dilation_h >= 1 && dilation_w >= 1 && group >= 1;
  if (ok) {
    ok = x.size[0] == y.size[0] && w.size[0] == y.size[1] &&
         x.size[1] == w.size[1] * group && w.size[0] % group == 0;
  }
  if (y.count == 0)
    return;
  onnxc_conv2d_shape s = {0};
  if (ok) {
    s.batch = (size_t)x.size[0];
    s.in_channels = (size_t)x.size[1];
    s.in_height = (size_t)x.size[2];
    s.in_width = (size_t)x.size[3];
    s.out_channels = (size_t)y.size[1];
    s.out_height = (size_t)y.size[2];
    s.out_width = (size_t)y.size[3];
    s.kernel_height = (size_t)w.size[2];
    s.kernel_width = (size_t)w.size[3];
    s.stride_height = (size_t)stride_h;
    s.stride_width = (size_t)stride_w;
    s.dilation_height = (size_t)dilation_h;
    s.dilation_width = (size_t)dilation_w;
    s.pad_top = (size_t)pad_top;
    s.pad_left = (size_t)pad_left;
    s.group = (size_t)group;
    ok = onnxc_conv2d_shape_valid(&s);
  }
  if (!ok) {
    for (int64_t i = 0; i < y.count; ++i)
      y.data[i] = NAN;
    return;
  }
  onnxc_sgemm_epilogue act = {0};
  act.activation = activation;
  act.activation_alpha = activation_alpha;
  act.activation_beta = activation_beta;
  onnxc_conv2d(&s, x.data, w.data, has_bias ? bias.data : NULL,
               has_residual ? residual.data : NULL, y.data, &act);
}
