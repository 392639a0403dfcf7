/*===- DnnlConv.c - ONNX Conv and pooling through oneDNN ------------------===*
 *
 * 2-D NCHW windows: Conv (groups, depthwise, bias, a residual through a sum
 * post-op, an activation through an eltwise one) and Max/AveragePool. The
 * compiler passes the begin pads; the end pads follow from Y's size and
 * are negative where ONNX's floor division drops the last input rows.
 * Where it pays (choose_layouts), the convolution picks the layouts of X,
 * W and Y that its direct kernels want (NHWC, or channel blocks such as
 * nChw16c); the engine then reorders X and Y through temporaries, and a
 * constant W once.
 *
 *===----------------------------------------------------------------------===*/

#include "DnnlInternal.h"

#include <stdlib.h>
#include <string.h>

/* The end pad of one spatial dim: the one that makes Y's `out` windows of
 * `kernel` taps (ONNX `dilation`) at `stride` span `in` plus the pads. 0
 * when Y's size is not what ONNX gives for these pads (the end pad is then
 * at most -stride) or a parameter is out of range. */
static int end_pad(int64_t in, int64_t out, int64_t kernel, int64_t stride,
                   int64_t dilation, int64_t begin, int64_t *pad) {
  if (in < 1 || out < 1 || kernel < 1 || kernel > INT32_MAX || stride < 1 ||
      stride > INT32_MAX || dilation < 1 || dilation > INT32_MAX || begin < 0 ||
      begin > INT32_MAX)
    return 0;
  int64_t extent = (kernel - 1) * dilation + 1, span;
  if (__builtin_mul_overflow(out - 1, stride, &span) ||
      __builtin_add_overflow(span, extent, &span))
    return 0;
  int64_t end = span - in - begin;
  if (end <= -stride || end > INT32_MAX)
    return 0;
  *pad = end;
  return 1;
}

/*===----------------------------------------------------------------------===*
 * Conv
 *===----------------------------------------------------------------------===*/

typedef struct conv_op {
  dnnl_dims_t x, y, w;
  int w_rank;
  int32_t flags;     /* ONNXC_DNNL_CONV_* */
  int chosen;        /* the convolution picks the layouts of X, W and Y */
  int channels_last; /* X and Y are NHWC as given (not chosen) */
  /* ConvTranspose: a deconvolution, whose weights (ONNX's [C, M/group,
   * kH, kW]) are described as oneDNN's [M, C, ...] by w_strides. */
  int transposed;
  dnnl_dims_t w_strides;
  dnnl_dims_t strides, dilates, pad_begin, pad_end;
  int32_t activation;
  float alpha, beta;
  /* f32 throughout, or a quantized convolution's 8-bit X, W and Y and
   * int32 bias. */
  dnnl_data_type_t x_type, w_type, bias_type, y_type;
  /* Quantized: Y = saturate(round(scales[m] * (sum over (X - x_zero) W +
   * bias)) + y_zero); one scale, or one per output channel. */
  int num_scales; /* 0: not quantized */
  const float *scales;
  int32_t x_zero, y_zero;
} conv_op;

/* The output scales and zero points of a quantized convolution. */
static dnnl_status_t conv_quantization(const conv_op *op,
                                       dnnl_primitive_attr_t attr) {
  if (op->num_scales == 0)
    return dnnl_success;
  dnnl_status_t s = dnnl_primitive_attr_set_output_scales(
      attr, op->num_scales, op->num_scales > 1 ? 1 << 1 : 0, op->scales);
  if (s == dnnl_success && op->x_zero != 0)
    s = dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0,
                                            &op->x_zero);
  if (s == dnnl_success && op->y_zero != 0)
    s = dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_DST, 1, 0,
                                            &op->y_zero);
  return s;
}

static dnnl_status_t conv_post_ops(const conv_op *op,
                                   dnnl_primitive_attr_t attr) {
  dnnl_post_ops_t post_ops;
  dnnl_status_t s = dnnl_post_ops_create(&post_ops);
  if (s != dnnl_success)
    return s;
  if (op->flags & ONNXC_DNNL_CONV_RESIDUAL)
    s = dnnl_post_ops_append_sum(post_ops, 1.0f); /* Y holds Z */
  if (s == dnnl_success)
    s = onnxc_dnnl_append_activation(post_ops, op->activation, op->alpha,
                                     op->beta);
  if (s == dnnl_success)
    s = dnnl_primitive_attr_set_post_ops(attr, post_ops);
  dnnl_post_ops_destroy(post_ops);
  return s;
}

/* Whether a W that is not constant is reordered into the layout the
 * primitive chose on every call: the engine's per-call reorders start
 * from row-major data, which a ConvTranspose's W (ONNX's [C, M/group, kH,
 * kW] seen as [M, C, ...]) is not. */
static int weights_reordered(const conv_op *op) {
  return op->chosen && !op->transposed;
}

/* W as the caller holds it: row-major, or ONNX's ConvTranspose layout. */
static dnnl_status_t plain_weights_md(const conv_op *op,
                                      dnnl_memory_desc_t *md) {
  if (op->transposed)
    return dnnl_memory_desc_init_by_strides(md, op->w_rank, op->w, op->w_type,
                                            op->w_strides);
  return onnxc_dnnl_plain_md_of(md, op->w_rank, op->w, op->w_type);
}

static dnnl_status_t conv_pd(const void *context, dnnl_primitive_attr_t attr,
                             dnnl_engine_t engine, dnnl_primitive_desc_t *pd) {
  const conv_op *op = context;
  dnnl_memory_desc_t src, weights, bias, dst;
  dnnl_status_t s = onnxc_dnnl_plain_md_of(&bias, 1, &op->y[1], op->bias_type);
  if (s == dnnl_success && op->chosen) {
    s = dnnl_memory_desc_init_by_tag(&src, 4, op->x, op->x_type,
                                     dnnl_format_tag_any);
    if (s == dnnl_success)
      s = dnnl_memory_desc_init_by_tag(&dst, 4, op->y, op->y_type,
                                       dnnl_format_tag_any);
  } else if (s == dnnl_success && op->channels_last) {
    s = dnnl_memory_desc_init_by_tag(&src, 4, op->x, op->x_type, dnnl_nhwc);
    if (s == dnnl_success)
      s = dnnl_memory_desc_init_by_tag(&dst, 4, op->y, op->y_type, dnnl_nhwc);
  } else if (s == dnnl_success) {
    s = onnxc_dnnl_plain_md_of(&src, 4, op->x, op->x_type);
    if (s == dnnl_success)
      s = onnxc_dnnl_plain_md_of(&dst, 4, op->y, op->y_type);
  }
  /* A constant weight may take whatever layout the convolution likes; so
   * may any where the layouts are chosen (it is then reordered per call),
   * but a ConvTranspose's: the engine reorders from row-major, and its W
   * is not (it stays as given, see weights_reordered). */
  if (s == dnnl_success &&
      ((op->flags & ONNXC_DNNL_CONV_CONST_WEIGHTS) || weights_reordered(op)))
    s = dnnl_memory_desc_init_by_tag(&weights, op->w_rank, op->w, op->w_type,
                                     dnnl_format_tag_any);
  else if (s == dnnl_success)
    s = plain_weights_md(op, &weights);
  dnnl_convolution_desc_t desc;
  const dnnl_memory_desc_t *bias_md =
      (op->flags & ONNXC_DNNL_CONV_BIAS) ? &bias : NULL;
  if (s == dnnl_success && op->transposed)
    s = dnnl_dilated_deconvolution_forward_desc_init(
        &desc, dnnl_forward_inference, dnnl_deconvolution_direct, &src,
        &weights, bias_md, &dst, op->strides, op->dilates, op->pad_begin,
        op->pad_end);
  else if (s == dnnl_success)
    s = dnnl_dilated_convolution_forward_desc_init(
        &desc, dnnl_forward_inference, dnnl_convolution_direct, &src, &weights,
        bias_md, &dst, op->strides, op->dilates, op->pad_begin, op->pad_end);
  if (s == dnnl_success)
    s = conv_post_ops(op, attr);
  if (s == dnnl_success)
    s = conv_quantization(op, attr);
  if (s == dnnl_success)
    s = dnnl_primitive_desc_create(pd, &desc, attr, engine, NULL);
  return s;
}

/* Checks the shapes and fills the geometry of `op`; 0 or an error. */
static int32_t describe_conv(conv_op *op, const onnxc_dnnl_tensor *x,
                             const onnxc_dnnl_tensor *w,
                             const onnxc_dnnl_tensor *y, int64_t group,
                             const int64_t pad[2], const int64_t stride[2],
                             const int64_t dilation[2]) {
  if (group < 1 || x->size[0] != y->size[0] || w->size[0] != y->size[1] ||
      y->size[1] % group != 0 || x->size[1] != w->size[1] * group ||
      x->count == 0 || w->count == 0)
    return ONNXC_DNNL_ERROR_SHAPE;
  for (int d = 0; d < 2; ++d) {
    if (!end_pad(x->size[2 + d], y->size[2 + d], w->size[2 + d], stride[d],
                 dilation[d], pad[d], &op->pad_end[d]))
      return ONNXC_DNNL_ERROR_SHAPE;
    op->strides[d] = stride[d];
    op->dilates[d] = dilation[d] - 1; /* oneDNN counts the gaps */
    op->pad_begin[d] = pad[d];
  }
  memcpy(op->x, x->size, 4 * sizeof op->x[0]);
  memcpy(op->y, y->size, 4 * sizeof op->y[0]);
  if (group == 1) {
    op->w_rank = 4;
    memcpy(op->w, w->size, 4 * sizeof op->w[0]);
  } else {
    /* [G, M/G, C/G, kH, kW]: the same memory as W. */
    op->w_rank = 5;
    op->w[0] = group;
    op->w[1] = w->size[0] / group;
    memcpy(&op->w[2], &w->size[1], 3 * sizeof op->w[0]);
  }
  return 0;
}

static int conv_key(onnxc_dnnl_key *key, const conv_op *op,
                    const onnxc_dnnl_tensor *w) {
  int ok = onnxc_dnnl_key_add(key, op->flags) &&
           onnxc_dnnl_key_add(key, op->chosen) &&
           onnxc_dnnl_key_add(key, op->channels_last) &&
           onnxc_dnnl_key_add(key, op->transposed) &&
           onnxc_dnnl_key_add(key, op->w_rank) &&
           onnxc_dnnl_key_add(key, op->activation) &&
           onnxc_dnnl_key_add_float(key, op->alpha) &&
           onnxc_dnnl_key_add_float(key, op->beta) &&
           onnxc_dnnl_key_add(key, op->x_type) &&
           onnxc_dnnl_key_add(key, op->w_type) &&
           onnxc_dnnl_key_add(key, op->bias_type) &&
           onnxc_dnnl_key_add(key, op->y_type) &&
           onnxc_dnnl_key_add(key, op->num_scales) &&
           onnxc_dnnl_key_add(key, op->x_zero) &&
           onnxc_dnnl_key_add(key, op->y_zero);
  for (int i = 0; ok && i < 4; ++i)
    ok = onnxc_dnnl_key_add(key, op->x[i]) && onnxc_dnnl_key_add(key, op->y[i]);
  for (int i = 0; ok && i < op->w_rank; ++i)
    ok = onnxc_dnnl_key_add(key, op->w[i]);
  for (int d = 0; ok && d < 2; ++d)
    ok = onnxc_dnnl_key_add(key, op->strides[d]) &&
         onnxc_dnnl_key_add(key, op->dilates[d]) &&
         onnxc_dnnl_key_add(key, op->pad_begin[d]) &&
         onnxc_dnnl_key_add(key, op->pad_end[d]);
  if (ok && (op->flags & ONNXC_DNNL_CONV_CONST_WEIGHTS))
    ok = onnxc_dnnl_key_add(key, (int64_t)(intptr_t)w->data);
  key->extra = op->scales;
  key->extra_bytes = (size_t)op->num_scales * sizeof(float);
  return ok;
}

/* Whether the convolution picks the layouts, by measurement on oneDNN 2.6
 * (AVX-512, 1 and 2 threads): its direct kernels beat the im2col + GEMM it
 * runs on plain NCHW by 1.2x to 13x, reorders included, from 1 input
 * channel to 2048, depthwise or not. Except where Y has one pixel per
 * channel (a matrix-vector product the GEMM does a few percent faster),
 * and where W is not constant, so reordered on every call, which takes at
 * least about 100 pixels per channel to repay. */
static int choose_layouts(const conv_op *op) {
  /* The int8 kernels want NHWC (and refuse some plain layouts). */
  if (op->num_scales)
    return 1;
  int64_t pixels = op->y[2] * op->y[3];
  if (op->flags & ONNXC_DNNL_CONV_CONST_WEIGHTS)
    return pixels > 1;
  return pixels >= 100;
}

/* The request's arguments: X, W, bias, Y, and how each meets its handle. */
static int32_t conv_arguments(onnxc_dnnl_request *request, const conv_op *op,
                              const onnxc_dnnl_tensor *x,
                              const onnxc_dnnl_tensor *w,
                              const onnxc_dnnl_tensor *bias,
                              const onnxc_dnnl_tensor *residual,
                              const onnxc_dnnl_tensor *y, void **handles) {
  int n = 0;
  request->reorder[n] = op->chosen ? ONNXC_DNNL_REORDER_IN : 0;
  request->arg_ids[n] = DNNL_ARG_SRC;
  handles[n++] = x->data;
  if (op->flags & ONNXC_DNNL_CONV_CONST_WEIGHTS) {
    request->packed_arg = n;
    if (plain_weights_md(op, &request->packed_from) != dnnl_success)
      return ONNXC_DNNL_ERROR_ARGUMENT;
  } else {
    request->reorder[n] = weights_reordered(op) ? ONNXC_DNNL_REORDER_IN : 0;
  }
  request->arg_ids[n] = DNNL_ARG_WEIGHTS;
  handles[n++] = w->data;
  if (op->flags & ONNXC_DNNL_CONV_BIAS) {
    request->arg_ids[n] = DNNL_ARG_BIAS;
    handles[n++] = bias->data;
  }
  /* The sum post-op adds what Y holds: Z, copied or reordered in. */
  int has_residual = (op->flags & ONNXC_DNNL_CONV_RESIDUAL) != 0;
  if (has_residual) {
    request->initial_arg = n;
    request->initial = residual->data;
  }
  if (op->chosen)
    request->reorder[n] =
        ONNXC_DNNL_REORDER_OUT | (has_residual ? ONNXC_DNNL_REORDER_IN : 0);
  request->arg_ids[n] = DNNL_ARG_DST;
  handles[n++] = y->data;
  request->num_args = n;
  return 0;
}

/* Finds or creates the primitive of `op` on the slot and runs it (the
 * residual, when flagged, starts in Y). */
static int32_t run_conv(onnxc_unranked_memref *slot, const conv_op *op,
                        const onnxc_dnnl_tensor *x, const onnxc_dnnl_tensor *w,
                        const onnxc_dnnl_tensor *bias,
                        const onnxc_dnnl_tensor *residual,
                        const onnxc_dnnl_tensor *y) {
  onnxc_dnnl_request request = {
      .create_pd = conv_pd, .op = op, .packed_arg = -1};
  void *handles[4];
  if (!conv_key(&request.key, op, w))
    return ONNXC_DNNL_ERROR_UNSUPPORTED;
  int32_t status =
      conv_arguments(&request, op, x, w, bias, residual, y, handles);
  if (status != 0)
    return status;
  return onnxc_dnnl_run(slot, &request, handles);
}

int32_t _mlir_ciface_onnxc_dnnl_conv2d_f32(
    onnxc_unranked_memref *slot, onnxc_unranked_memref *x_ref,
    onnxc_unranked_memref *w_ref, onnxc_unranked_memref *bias_ref,
    onnxc_unranked_memref *residual_ref, onnxc_unranked_memref *y_ref,
    int32_t flags, int64_t pad_top, int64_t pad_left, int64_t stride_h,
    int64_t stride_w, int64_t dilation_h, int64_t dilation_w, int64_t group,
    int32_t activation, float act_alpha, float act_beta) {
  onnxc_dnnl_tensor x, w, y, bias = {0}, residual = {0};
  int has_bias = (flags & ONNXC_DNNL_CONV_BIAS) != 0;
  int has_residual = (flags & ONNXC_DNNL_CONV_RESIDUAL) != 0;
  if (!onnxc_dnnl_read(x_ref, 4, 4, &x) || !onnxc_dnnl_read(w_ref, 4, 4, &w) ||
      !onnxc_dnnl_read(y_ref, 4, 4, &y) ||
      (has_bias && !onnxc_dnnl_read(bias_ref, 1, 1, &bias)) ||
      (has_residual && !onnxc_dnnl_read(residual_ref, 4, 4, &residual)) ||
      (flags & ~7))
    return ONNXC_DNNL_ERROR_ARGUMENT;
  if ((has_bias && bias.size[0] != y.size[1]) ||
      (has_residual && !onnxc_dnnl_same_shape(&residual, &y)))
    return ONNXC_DNNL_ERROR_SHAPE;
  if (!onnxc_dnnl_activation_supported(activation, act_alpha, act_beta))
    return ONNXC_DNNL_ERROR_ACTIVATION;
  if (y.count == 0)
    return 0;

  conv_op op = {.flags = flags,
                .activation = activation,
                .alpha = act_alpha,
                .beta = act_beta,
                .x_type = dnnl_f32,
                .w_type = dnnl_f32,
                .bias_type = dnnl_f32,
                .y_type = dnnl_f32};
  const int64_t pad[2] = {pad_top, pad_left}, stride[2] = {stride_h, stride_w},
                dilation[2] = {dilation_h, dilation_w};
  int32_t status = describe_conv(&op, &x, &w, &y, group, pad, stride, dilation);
  if (status != 0)
    return status;
  op.chosen = choose_layouts(&op);
  return run_conv(slot, &op, &x, &w, &bias, &residual, &y);
}

/*===----------------------------------------------------------------------===*
 * ConvTranspose
 *===----------------------------------------------------------------------===*/

/* Checks the shapes of a ConvTranspose (W [C, M/group, kH, kW]) and fills
 * the geometry of its deconvolution; 0 or an error. The end pads are those
 * of the convolution whose data gradient it is: from Y to X. */
static int32_t describe_conv_transpose(conv_op *op, const onnxc_dnnl_tensor *x,
                                       const onnxc_dnnl_tensor *w,
                                       const onnxc_dnnl_tensor *y,
                                       int64_t group, const int64_t pad[2],
                                       const int64_t stride[2],
                                       const int64_t dilation[2]) {
  if (group < 1 || x->size[0] != y->size[0] || w->size[0] != x->size[1] ||
      x->size[1] % group != 0 || y->size[1] != w->size[1] * group ||
      x->count == 0 || w->count == 0)
    return ONNXC_DNNL_ERROR_SHAPE;
  for (int d = 0; d < 2; ++d) {
    if (!end_pad(y->size[2 + d], x->size[2 + d], w->size[2 + d], stride[d],
                 dilation[d], pad[d], &op->pad_end[d]))
      return ONNXC_DNNL_ERROR_SHAPE;
    op->strides[d] = stride[d];
    op->dilates[d] = dilation[d] - 1;
    op->pad_begin[d] = pad[d];
  }
  memcpy(op->x, x->size, 4 * sizeof op->x[0]);
  memcpy(op->y, y->size, 4 * sizeof op->y[0]);
  int64_t kh = w->size[2], kw = w->size[3], taps = kh * kw;
  int64_t filters = w->size[1], channels = x->size[1] / group;
  op->transposed = 1;
  if (group == 1) {
    /* [M, C, kH, kW] over ONNX's [C, M, kH, kW]. */
    const int64_t dims[4] = {filters, x->size[1], kh, kw};
    const int64_t strides[4] = {taps, filters * taps, kw, 1};
    op->w_rank = 4;
    memcpy(op->w, dims, sizeof dims);
    memcpy(op->w_strides, strides, sizeof strides);
  } else {
    /* [G, M/G, C/G, kH, kW] over ONNX's [G * C/G, M/G, kH, kW]. */
    const int64_t dims[5] = {group, filters, channels, kh, kw};
    const int64_t strides[5] = {channels * filters * taps, taps, filters * taps,
                                kw, 1};
    op->w_rank = 5;
    memcpy(op->w, dims, sizeof dims);
    memcpy(op->w_strides, strides, sizeof strides);
  }
  return 0;
}

int32_t _mlir_ciface_onnxc_dnnl_conv_transpose2d_f32(
    onnxc_unranked_memref *slot, onnxc_unranked_memref *x_ref,
    onnxc_unranked_memref *w_ref, onnxc_unranked_memref *bias_ref,
    onnxc_unranked_memref *y_ref, int32_t flags, int64_t pad_top,
    int64_t pad_left, int64_t stride_h, int64_t stride_w, int64_t dilation_h,
    int64_t dilation_w, int64_t group) {
  onnxc_dnnl_tensor x, w, y, bias = {0};
  int has_bias = (flags & ONNXC_DNNL_CONV_BIAS) != 0;
  if (!onnxc_dnnl_read(x_ref, 4, 4, &x) || !onnxc_dnnl_read(w_ref, 4, 4, &w) ||
      !onnxc_dnnl_read(y_ref, 4, 4, &y) ||
      (has_bias && !onnxc_dnnl_read(bias_ref, 1, 1, &bias)) ||
      (flags & ~(ONNXC_DNNL_CONV_BIAS | ONNXC_DNNL_CONV_CONST_WEIGHTS)))
    return ONNXC_DNNL_ERROR_ARGUMENT;
  if (has_bias && bias.size[0] != y.size[1])
    return ONNXC_DNNL_ERROR_SHAPE;
  if (y.count == 0)
    return 0;
  conv_op op = {.flags = flags,
                .x_type = dnnl_f32,
                .w_type = dnnl_f32,
                .bias_type = dnnl_f32,
                .y_type = dnnl_f32};
  const int64_t pad[2] = {pad_top, pad_left}, stride[2] = {stride_h, stride_w},
                dilation[2] = {dilation_h, dilation_w};
  int32_t status =
      describe_conv_transpose(&op, &x, &w, &y, group, pad, stride, dilation);
  if (status != 0)
    return status;
  op.chosen = choose_layouts(&op);
  return run_conv(slot, &op, &x, &w, &bias, &bias, &y);
}

/*===----------------------------------------------------------------------===*
 * QLinearConv
 *===----------------------------------------------------------------------===*/

/* [N, 1, H, W, C] seen with NCHW sizes {N, C, H, W} (its data stays NHWC,
 * which the descriptor then says); 0 when dim 1 is not 1. */
static int nchw_of_channels_last(onnxc_dnnl_tensor *t) {
  if (t->rank != 5 || t->size[1] != 1)
    return 0;
  int64_t n = t->size[0], h = t->size[2], w = t->size[3], c = t->size[4];
  t->rank = 4;
  t->size[0] = n;
  t->size[1] = c;
  t->size[2] = h;
  t->size[3] = w;
  return 1;
}

int32_t _mlir_ciface_onnxc_dnnl_qlinear_conv2d(
    onnxc_unranked_memref *slot, onnxc_unranked_memref *x_ref,
    onnxc_unranked_memref *x_scale, onnxc_unranked_memref *x_zero,
    onnxc_unranked_memref *w_ref, onnxc_unranked_memref *w_scale,
    onnxc_unranked_memref *w_zero, onnxc_unranked_memref *y_scale,
    onnxc_unranked_memref *y_zero, onnxc_unranked_memref *bias_ref,
    onnxc_unranked_memref *y_ref, int32_t flags, int64_t pad_top,
    int64_t pad_left, int64_t stride_h, int64_t stride_w, int64_t dilation_h,
    int64_t dilation_w, int64_t group) {
  onnxc_dnnl_tensor x, w, y, bias = {0};
  int has_bias = (flags & ONNXC_DNNL_QCONV_BIAS) != 0;
  int channels_last = (flags & ONNXC_DNNL_QCONV_CHANNELS_LAST) != 0;
  int image_rank = channels_last ? 5 : 4;
  if (!onnxc_dnnl_read_elements(x_ref, 1, image_rank, image_rank, &x) ||
      !onnxc_dnnl_read_elements(w_ref, 1, 4, 4, &w) ||
      !onnxc_dnnl_read_elements(y_ref, 1, image_rank, image_rank, &y) ||
      (has_bias && !onnxc_dnnl_read_elements(bias_ref, 4, 1, 1, &bias)) ||
      (flags & ~255))
    return ONNXC_DNNL_ERROR_ARGUMENT;
  if (channels_last &&
      (!nchw_of_channels_last(&x) || !nchw_of_channels_last(&y)))
    return ONNXC_DNNL_ERROR_SHAPE;
  if (has_bias && bias.size[0] != y.size[1])
    return ONNXC_DNNL_ERROR_SHAPE;
  int32_t vnni = onnxc_dnnl_require_vnni();
  if (vnni != 0)
    return vnni;
  if (!onnxc_dnnl_zero_weights(w_zero, flags & ONNXC_DNNL_QCONV_W_ZERO,
                               w.size[0]))
    return ONNXC_DNNL_ERROR_UNSUPPORTED;
  conv_op op = {
      .flags = (has_bias ? ONNXC_DNNL_CONV_BIAS : 0) |
               ((flags & ONNXC_DNNL_QCONV_CONST_WEIGHTS)
                    ? ONNXC_DNNL_CONV_CONST_WEIGHTS
                    : 0),
      .chosen = !channels_last,
      .channels_last = channels_last,
      .x_type = (flags & ONNXC_DNNL_QCONV_X_SIGNED) ? dnnl_s8 : dnnl_u8,
      .w_type = dnnl_s8,
      .bias_type = dnnl_s32,
      .y_type = (flags & ONNXC_DNNL_QCONV_Y_SIGNED) ? dnnl_s8 : dnnl_u8};
  if (!onnxc_dnnl_zero_point(x_zero, flags & ONNXC_DNNL_QCONV_X_ZERO,
                             flags & ONNXC_DNNL_QCONV_X_SIGNED, &op.x_zero) ||
      !onnxc_dnnl_zero_point(y_zero, flags & ONNXC_DNNL_QCONV_Y_ZERO,
                             flags & ONNXC_DNNL_QCONV_Y_SIGNED, &op.y_zero))
    return ONNXC_DNNL_ERROR_ARGUMENT;
  if (y.count == 0)
    return 0;
  const int64_t pad[2] = {pad_top, pad_left}, stride[2] = {stride_h, stride_w},
                dilation[2] = {dilation_h, dilation_w};
  int32_t status = describe_conv(&op, &x, &w, &y, group, pad, stride, dilation);
  if (status != 0)
    return status;

  /* Most layers have at most a few hundred filters: their scales live on
   * the stack. */
  float stack_scales[512];
  float *scales = y.size[1] <= 512 ? stack_scales
                                   : malloc((size_t)y.size[1] * sizeof(float));
  if (!scales)
    return ONNXC_DNNL_ERROR_MEMORY;
  if (!onnxc_dnnl_output_scales(x_scale, w_scale, y_scale, y.size[1], scales,
                                &op.num_scales))
    status = ONNXC_DNNL_ERROR_SHAPE;
  op.scales = scales;
  if (status == 0)
    status = run_conv(slot, &op, &x, &w, &bias, &bias, &y);
  if (scales != stack_scales)
    free(scales);
  return status;
}

/*===----------------------------------------------------------------------===*
 * Pooling
 *===----------------------------------------------------------------------===*/

typedef struct pool_op {
  dnnl_dims_t x, y;
  dnnl_alg_kind_t alg;
  dnnl_dims_t kernel, strides, dilation, pad_begin, pad_end;
} pool_op;

static dnnl_status_t pool_pd(const void *context, dnnl_primitive_attr_t attr,
                             dnnl_engine_t engine, dnnl_primitive_desc_t *pd) {
  const pool_op *op = context;
  dnnl_memory_desc_t src, dst;
  dnnl_pooling_v2_desc_t desc;
  dnnl_status_t s = onnxc_dnnl_plain_md(&src, 4, op->x);
  if (s == dnnl_success)
    s = onnxc_dnnl_plain_md(&dst, 4, op->y);
  if (s == dnnl_success)
    s = dnnl_pooling_v2_forward_desc_init(
        &desc, dnnl_forward_inference, op->alg, &src, &dst, op->strides,
        op->kernel, op->dilation, op->pad_begin, op->pad_end);
  if (s == dnnl_success)
    s = dnnl_primitive_desc_create(pd, &desc, attr, engine, NULL);
  return s;
}

static int pool_key(onnxc_dnnl_key *key, const pool_op *op) {
  int ok = onnxc_dnnl_key_add(key, op->alg);
  for (int i = 0; ok && i < 4; ++i)
    ok = onnxc_dnnl_key_add(key, op->x[i]) && onnxc_dnnl_key_add(key, op->y[i]);
  for (int d = 0; ok && d < 2; ++d)
    ok = onnxc_dnnl_key_add(key, op->kernel[d]) &&
         onnxc_dnnl_key_add(key, op->strides[d]) &&
         onnxc_dnnl_key_add(key, op->dilation[d]) &&
         onnxc_dnnl_key_add(key, op->pad_begin[d]) &&
         onnxc_dnnl_key_add(key, op->pad_end[d]);
  return ok;
}

int32_t _mlir_ciface_onnxc_dnnl_pool2d_f32(
    onnxc_unranked_memref *slot, onnxc_unranked_memref *x_ref,
    onnxc_unranked_memref *y_ref, int32_t kind, int64_t kernel_h,
    int64_t kernel_w, int64_t pad_top, int64_t pad_left, int64_t stride_h,
    int64_t stride_w, int64_t dilation_h, int64_t dilation_w) {
  static const dnnl_alg_kind_t algs[] = {dnnl_pooling_max,
                                         dnnl_pooling_avg_include_padding,
                                         dnnl_pooling_avg_exclude_padding};
  onnxc_dnnl_tensor x, y;
  if (!onnxc_dnnl_read(x_ref, 4, 4, &x) || !onnxc_dnnl_read(y_ref, 4, 4, &y) ||
      kind < 0 || kind > 2)
    return ONNXC_DNNL_ERROR_ARGUMENT;
  if (x.size[0] != y.size[0] || x.size[1] != y.size[1])
    return ONNXC_DNNL_ERROR_SHAPE;
  if (y.count == 0)
    return 0;
  pool_op op = {.alg = algs[kind]};
  const int64_t kernel[2] = {kernel_h, kernel_w}, pad[2] = {pad_top, pad_left},
                stride[2] = {stride_h, stride_w},
                dilation[2] = {dilation_h, dilation_w};
  for (int d = 0; d < 2; ++d) {
    if (!end_pad(x.size[2 + d], y.size[2 + d], kernel[d], stride[d],
                 dilation[d], pad[d], &op.pad_end[d]))
      return ONNXC_DNNL_ERROR_SHAPE;
    /* Every window must reach the input (an average over pads alone has no
     * divisor): pads shorter than the window. */
    int64_t extent = (kernel[d] - 1) * dilation[d] + 1;
    if (pad[d] >= extent || op.pad_end[d] >= extent)
      return ONNXC_DNNL_ERROR_SHAPE;
    op.kernel[d] = kernel[d];
    op.strides[d] = stride[d];
    op.dilation[d] = dilation[d] - 1;
    op.pad_begin[d] = pad[d];
  }
  memcpy(op.x, x.size, 4 * sizeof op.x[0]);
  memcpy(op.y, y.size, 4 * sizeof op.y[0]);

  onnxc_dnnl_request request = {.create_pd = pool_pd,
                                .op = &op,
                                .num_args = 2,
                                .arg_ids = {DNNL_ARG_SRC, DNNL_ARG_DST},
                                .packed_arg = -1};
  if (!pool_key(&request.key, &op))
    return ONNXC_DNNL_ERROR_UNSUPPORTED;
  void *handles[2] = {x.data, y.data};
  return onnxc_dnnl_run(slot, &request, handles);
}
