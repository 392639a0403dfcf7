/*===- ConvNchwc.c - onnxc.BlockedConv and ReorderToBlocked of lowered code ===*
 *
 * The CPU lowering turns an f32 onnxc.BlockedConv into one call of
 * _mlir_ciface_onnxc_rt_conv_nchwc_f32 (targets/cpu/lowering/
 * BlockedConvCall.cpp) with unranked memrefs: X, Y (and Z) of rank 4 (1-D)
 * or 5 (2-D), W of the blocked layout (kernels/ConvNchwc.h). This file reads
 * the geometry off the descriptors, checks that it is consistent, and runs
 * the kernel (kernels/ConvNchwc.c); with the NCHW-input flag X is the plain
 * [N, C, H, W] image. Y is dense and allocated by the caller;
 * a geometry that disagrees at run time fills Y with NaN. The reorder of an
 * f32 tensor into the blocked layout is a call too: the linalg form pads
 * the channels in a copy (a 3-channel image becomes 16) and then gathers
 * one scalar at a time.
 *
 *===----------------------------------------------------------------------===*/

#include "kernels/ConvNchwc.h"
#include "CpuRuntime.h"
#include "MemrefView.h"
#include "ThreadPool.h"
#include "kernels/ConvWinogradWeights.h"

#include <math.h>
#include <string.h>

/* A dense tensor of rank `rank` (2 to 6): its data and sizes; NULL when the
 * descriptor is not one. Unit dims may carry any stride. */
static const float *dense(const onnxc_unranked_memref *m, int64_t rank,
                          int64_t *sizes) {
  onnxc_f32_view v;
  if (!onnxc_read_f32_view(m, &v) || v.rank != rank)
    return NULL;
  int64_t expected = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    sizes[i] = v.size[i];
    if (sizes[i] != 1 && v.stride[i] != expected)
      return NULL;
    expected *= sizes[i];
  }
  return v.data;
}

/* Y, the dense output of every entry point here, when its rank is in
 * [min_rank, max_rank]: its data, sizes (y_ref->rank of them) and element
 * count. NULL when it is not one: there is then nowhere to report a bad
 * geometry, and the call does nothing. */
static float *dense_output(const onnxc_unranked_memref *y_ref, int64_t min_rank,
                           int64_t max_rank, int64_t *sizes, int64_t *total) {
  if (!y_ref || y_ref->rank < min_rank || y_ref->rank > max_rank)
    return NULL;
  float *y = (float *)dense(y_ref, y_ref->rank, sizes);
  *total = 1;
  for (int64_t i = 0; y && i < y_ref->rank; ++i)
    *total *= sizes[i];
  return y;
}

/* A geometry that disagrees at run time: Y all NaN, so that the mismatch
 * shows in the result. */
static void fill_nan(float *y, int64_t total) {
  for (int64_t i = 0; i < total; ++i)
    y[i] = NAN;
}

void _mlir_ciface_onnxc_rt_conv_nchwc_f32(
    onnxc_unranked_memref *x_ref, onnxc_unranked_memref *w_ref,
    onnxc_unranked_memref *bias_ref, onnxc_unranked_memref *z_ref,
    onnxc_unranked_memref *y_ref, int32_t flags, int64_t in_channels,
    int64_t out_channels, int64_t stride_h, int64_t stride_w,
    int64_t dilation_h, int64_t dilation_w, int64_t pad_top, int64_t pad_left,
    int32_t activation, float activation_alpha, float activation_beta) {
  const int64_t B = ONNXC_NCHWC_BLOCK;
  int64_t ys[6], xs[6], ws[6], zs[6], bs[2], total;
  float *y = dense_output(y_ref, 4, 5, ys, &total);
  if (!y)
    return;
  int64_t rank = y_ref->rank, spatial = rank - 3;

  int depthwise = (flags & ONNXC_CONV_NCHWC_DEPTHWISE) != 0;
  int winograd = (flags & ONNXC_CONV_NCHWC_WINOGRAD) != 0;
  int nchw = (flags & ONNXC_CONV_NCHWC_NCHW_INPUT) != 0;
  int tile = (flags & ONNXC_CONV_NCHWC_WINOGRAD_4X4) ? 4 : 2;
  int64_t w_rank = winograd ? 1 : depthwise ? 2 + spatial : 4 + spatial;
  /* A plain X, [N, C, (H,) W], has one dim less than a blocked one; W is
   * the dim before last either way. */
  const float *x = dense(x_ref, nchw ? rank - 1 : rank, xs);
  const float *w = dense(w_ref, w_rank, ws);
  const float *bias = NULL, *z = NULL;
  int ok = x && w && in_channels > 0 && out_channels > 0 && stride_h > 0 &&
           stride_w > 0 && dilation_h > 0 && dilation_w > 0 &&
           !(nchw && (depthwise || winograd)) &&
           (winograd || !(flags & ONNXC_CONV_NCHWC_WINOGRAD_4X4));
  if (ok && (flags & ONNXC_CONV_NCHWC_BIAS)) {
    bias = dense(bias_ref, 2, bs);
    ok = bias && bs[0] == ys[1] && bs[1] == B;
  }
  if (ok && (flags & ONNXC_CONV_NCHWC_RESIDUAL)) {
    z = dense(z_ref, rank, zs);
    ok = z != NULL;
    for (int64_t i = 0; ok && i < rank; ++i)
      ok = zs[i] == ys[i];
  }
  onnxc_conv_nchwc_shape s = {0};
  if (ok) {
    int64_t in_blocks = (in_channels + B - 1) / B;
    int64_t out_blocks = (out_channels + B - 1) / B;
    s.batch = xs[0];
    s.in_channels = in_channels;
    s.out_channels = out_channels;
    s.in_h = spatial == 2 ? xs[2] : 1;
    s.in_w = xs[rank - 2];
    s.out_h = spatial == 2 ? ys[2] : 1;
    s.out_w = ys[rank - 2];
    int64_t kernel_dim = depthwise ? 1 : 2; /* W's first kernel dim */
    s.kernel_h = winograd ? 3 : spatial == 2 ? ws[kernel_dim] : 1;
    s.kernel_w = winograd ? 3 : ws[kernel_dim + spatial - 1];
    s.stride_h = stride_h;
    s.stride_w = stride_w;
    s.dilation_h = dilation_h;
    s.dilation_w = dilation_w;
    s.pad_top = pad_top;
    s.pad_left = pad_left;
    s.depthwise = depthwise;
    s.nchw_input = nchw;
    ok = (nchw ? xs[1] == in_channels
               : xs[1] == in_blocks && xs[rank - 1] == B) &&
         ys[0] == xs[0] && ys[1] == out_blocks && ys[rank - 1] == B &&
         (!depthwise || in_channels == out_channels);
    if (winograd)
      ok = ok && spatial == 2 && onnxc_conv_nchwc_winograd_applies(&s) &&
           (size_t)ws[0] == onnxc_conv_winograd_weight_floats(tile, in_channels,
                                                              out_channels);
    else if (depthwise)
      ok = ok && ws[0] == in_blocks && ws[w_rank - 1] == B;
    else
      ok = ok && ws[0] == out_blocks && ws[1] == in_blocks &&
           ws[w_rank - 1] == B && ws[w_rank - 2] == B;
    /* The kernel reads only in-bounds taps, whatever the output size. */
    ok =
        ok && pad_top >= 0 && pad_left >= 0 && s.kernel_h > 0 && s.kernel_w > 0;
  }
  if (!ok) {
    fill_nan(y, total);
    return;
  }
  onnxc_sgemm_epilogue epilogue = {0};
  epilogue.activation = activation;
  epilogue.activation_alpha = activation_alpha;
  epilogue.activation_beta = activation_beta;
  if (!winograd)
    onnxc_conv_nchwc(&s, x, w, bias, z, y, &epilogue, 0);
  else if (!onnxc_conv_nchwc_winograd(&s, tile, x, w, bias, z, y, &epilogue, 0))
    fill_nan(y, total); /* not even one tile's scratch */
}

/* onnxc.ReorderToBlocked of f32 with block 16: Y[n][cb][s][b] =
 * X[n][cb * 16 + b][s] (0 where that channel is past C), s running over the
 * flattened spatial dims. Tasks of (image, block, run of pixels); each
 * copies one channel's run into its lane (reads contiguous, the run of Y
 * stays in the L1 cache), after zeroing the lanes past C. */
typedef struct reorder_work {
  const float *x;
  float *y;
  int64_t channels, blocks, pixels, run, runs;
} reorder_work;

static void reorder_task(void *context, size_t task, int worker) {
  (void)worker;
  const reorder_work *r = context;
  const int64_t B = ONNXC_NCHWC_BLOCK;
  int64_t t = (int64_t)task;
  int64_t run = t % r->runs;
  t /= r->runs;
  int64_t cb = t % r->blocks, n = t / r->blocks;
  int64_t begin = run * r->run, count = r->pixels - begin;
  if (count > r->run)
    count = r->run;
  int64_t lanes = r->channels - cb * B;
  if (lanes > B)
    lanes = B;
  float *y = r->y + ((n * r->blocks + cb) * r->pixels + begin) * B;
  /* Zeroing the whole run in one go and then writing the true lanes stores
   * less than zeroing lane by lane (an RGB image: 1.15x faster, measured;
   * the rest is the write of 16 lanes). */
  if (lanes < B)
    memset(y, 0, (size_t)(count * B) * sizeof(float));
  for (int64_t b = 0; b < lanes; ++b) {
    const float *x = r->x + (n * r->channels + cb * B + b) * r->pixels + begin;
    for (int64_t s = 0; s < count; ++s)
      y[s * B + b] = x[s];
  }
}

void _mlir_ciface_onnxc_rt_reorder_to_nchwc_f32(onnxc_unranked_memref *x_ref,
                                                onnxc_unranked_memref *y_ref) {
  const int64_t B = ONNXC_NCHWC_BLOCK;
  int64_t xs[6], ys[6], total;
  float *y = dense_output(y_ref, 4, 6, ys, &total);
  if (!y)
    return;
  int64_t rank = y_ref->rank;
  const float *x = dense(x_ref, rank - 1, xs);
  int ok =
      x && ys[0] == xs[0] && ys[1] == (xs[1] + B - 1) / B && ys[rank - 1] == B;
  int64_t pixels = 1;
  for (int64_t i = 2; ok && i < rank - 1; ++i) {
    ok = ys[i] == xs[i];
    pixels *= xs[i];
  }
  if (!ok) {
    fill_nan(y, total);
    return;
  }
  if (total == 0)
    return;
  reorder_work r = {x, y, xs[1], ys[1], pixels, 256, 0};
  r.runs = (pixels + r.run - 1) / r.run;
  size_t tasks = (size_t)(xs[0] * r.blocks * r.runs);
  /* A few hundred kilobytes are not worth waking the workers for. */
  onnxc_parallel_for(tasks, total < (1 << 16) ? 1 : 0, reorder_task, &r);
}

/* MaxPool of lowered code on a blocked f32 tensor (2-D, block 16): X
 * [N][Cb][H][W][16], Y [N][Cb][OH][OW][16] (onnxc_maxpool_nchwc). */
void _mlir_ciface_onnxc_rt_maxpool_nchwc_f32(
    onnxc_unranked_memref *x_ref, onnxc_unranked_memref *y_ref,
    int64_t kernel_h, int64_t kernel_w, int64_t stride_h, int64_t stride_w,
    int64_t dilation_h, int64_t dilation_w, int64_t pad_top, int64_t pad_left) {
  const int64_t B = ONNXC_NCHWC_BLOCK;
  int64_t xs[5], ys[5], total;
  float *y = dense_output(y_ref, 5, 5, ys, &total);
  if (!y)
    return;
  const float *x = dense(x_ref, 5, xs);
  int ok = x && xs[0] == ys[0] && xs[1] == ys[1] && xs[4] == B && ys[4] == B &&
           kernel_h > 0 && kernel_w > 0 && stride_h > 0 && stride_w > 0 &&
           dilation_h > 0 && dilation_w > 0;
  if (!ok) {
    fill_nan(y, total);
    return;
  }
  if (total == 0)
    return;
  onnxc_maxpool_nchwc_shape shape = {
      xs[0] * xs[1], xs[2],    xs[3],    ys[2],    ys[3],
      kernel_h,      kernel_w, stride_h, stride_w, dilation_h,
      dilation_w,    pad_top,  pad_left};
  onnxc_maxpool_nchwc(&shape, x, y, 0);
}
