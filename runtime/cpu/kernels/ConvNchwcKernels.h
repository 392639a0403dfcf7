/*===- ConvNchwcKernels.h - NCHWc convolution micro-kernels (private) -----===*
 *
 * What ConvNchwc.c (threading, dispatch) and the per-ISA files
 * (ConvNchwcAvx512.c, ConvNchwcAvx2.c, ConvNchwcPortable.c, each an
 * instance of ConvNchwcTile.inc) share.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_KERNELS_CONVNCHWCKERNELS_H
#define ONNXC_RUNTIME_CPU_KERNELS_CONVNCHWCKERNELS_H

#include "ConvNchwc.h"

/* One convolution as the micro-kernels see it. */
typedef struct onnxc_conv_nchwc_job {
  onnxc_conv_nchwc_shape s;
  int64_t in_blocks, out_blocks;
  const float *x, *w, *bias, *z;
  float *y;
  onnxc_sgemm_epilogue epilogue; /* the activation only */
  int64_t tile_w; /* group 1: the most pixels of one tile, for this call */
  /* X's layout, in floats: an image, and from one pixel and one channel
   * (lane) to the next within a block of 16 channels; a block is
   * in_h * in_w * 16 floats either way. Blocked: 16 and 1; nchw_input: 1
   * and in_h * in_w. */
  int64_t x_image, x_pixel, x_lane;
} onnxc_conv_nchwc_job;

/* Memory a rows call prefetches into L2 while it computes, spread over its
 * input channel blocks: the weights the caller reads next. Weights beyond
 * L2 come from DRAM in a model (ResNet-50's last layers: 4-16 MB a
 * convolution), and a tile reads them faster than the hardware prefetcher
 * fetches them. */
typedef struct onnxc_conv_prefetch {
  const float *next;
  int64_t floats; /* 0: nothing */
} onnxc_conv_prefetch;

/* Group 1: output pixels [ow_begin, ow_end) of row `oh` of image `n`, for
 * output channel blocks [mb, mb + nb), in tiles of at most job->tile_w
 * pixels (nb <= the variant's max_nb, nb * tile_w <= its max_acc), while
 * prefetching `prefetch`. */
typedef void (*onnxc_conv_nchwc_rows_fn)(const onnxc_conv_nchwc_job *job,
                                         int64_t n, int64_t mb, int64_t nb,
                                         int64_t oh, int64_t ow_begin,
                                         int64_t ow_end,
                                         onnxc_conv_prefetch prefetch);
/* Depthwise: all of row `oh` of channel block `cb` of image `n`. */
typedef void (*onnxc_conv_nchwc_dw_row_fn)(const onnxc_conv_nchwc_job *job,
                                           int64_t n, int64_t cb, int64_t oh);

/* MaxPool: row `oh` of plane `plane`. */
typedef void (*onnxc_maxpool_nchwc_row_fn)(const onnxc_maxpool_nchwc_shape *s,
                                           const float *x, float *y,
                                           int64_t plane, int64_t oh);

/* Winograd F(T x T, 3x3), T = `tile` (2 or 4), P = (T + 2)^2 positions
 * (ConvNchwc.c): the input transform of tiles [t0, t0 + count) of image n
 * into v [P][in_blocks][count][16], and the output transform of output
 * blocks [mb0, mb1) of m [P][out_blocks][count][16] into Y (+ bias, Z, the
 * activation). Tile t covers output rows T * (t / tiles_w) + [0, T) and
 * columns T * (t % tiles_w) + [0, T). */
typedef void (*onnxc_winograd_input_fn)(const onnxc_conv_nchwc_job *job,
                                        int tile, int64_t n, int64_t tiles_w,
                                        int64_t t0, int64_t count, float *v);
typedef void (*onnxc_winograd_output_fn)(const onnxc_conv_nchwc_job *job,
                                         int tile, int64_t n, int64_t tiles_w,
                                         int64_t t0, int64_t count, int64_t mb0,
                                         int64_t mb1, const float *m);

typedef struct onnxc_conv_nchwc_variant {
  int isa; /* onnxc_sgemm_isa */
  /* A register tile: at most max_nb output blocks, tile_w pixels, and
   * max_acc accumulators in all. */
  int64_t max_nb, tile_w, max_acc;
  onnxc_conv_nchwc_rows_fn rows;
  onnxc_conv_nchwc_dw_row_fn dw_row;
  onnxc_maxpool_nchwc_row_fn maxpool_row;
  onnxc_winograd_input_fn winograd_input;
  onnxc_winograd_output_fn winograd_output;
} onnxc_conv_nchwc_variant;

extern const onnxc_conv_nchwc_variant onnxc_conv_nchwc_portable_variant;
#if ONNXC_HAVE_X86_KERNELS
extern const onnxc_conv_nchwc_variant onnxc_conv_nchwc_avx2_variant;
extern const onnxc_conv_nchwc_variant onnxc_conv_nchwc_avx512_variant;
#endif

#endif /* ONNXC_RUNTIME_CPU_KERNELS_CONVNCHWCKERNELS_H */
