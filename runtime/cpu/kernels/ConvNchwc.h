/*===- ConvNchwc.h - Direct convolution on blocked (NCHWc) tensors --------===*
 *
 * The kernel of onnxc.BlockedConv (compiler/dialect/onnxc/OnnxcOps.td):
 *   Y = activation(Conv(X, W) + bias + Z)
 * on tensors blocked by 16 channels, all dense:
 *   X    [N][ceil(C/16)][H][W][16] (or, group 1, [N][C][H][W]: nchw_input)
 *   Y, Z [N][ceil(M/16)][OH][OW][16]
 *   W    group 1:   [ceil(M/16)][ceil(C/16)][KH][KW][16 ci][16 co]
 *        depthwise: [ceil(C/16)][KH][KW][16]
 *   bias [ceil(M/16)][16]
 * Weights and bias are zero in padding channels. With group 1 only the C
 * true input channels enter the reduction, so X's padding lanes (which may
 * hold anything, inf and NaN included) never reach a real output channel;
 * depthwise, lane c of Y reads only lane c of X. Y's padding lanes get
 * unspecified values.
 *
 * The micro-kernels keep a tile of output pixels x output-channel blocks in
 * registers (one AVX-512 register, two AVX2 registers, or plain C per block
 * of 16) and add, for each input channel and kernel tap, a broadcast input
 * value times the weight vector of 16 output channels. Rows are spread over
 * the runtime's thread pool.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_KERNELS_CONVNCHWC_H
#define ONNXC_RUNTIME_CPU_KERNELS_CONVNCHWC_H

#include "Gemm.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { ONNXC_NCHWC_BLOCK = 16 };

/* One convolution's geometry. Pads are the begin pads; the end pads follow
 * from the output size. 1-D convolutions are 2-D ones with H = KH = 1. */
typedef struct onnxc_conv_nchwc_shape {
  int64_t batch;
  int64_t in_channels, out_channels; /* true counts (C, M) */
  int64_t in_h, in_w, out_h, out_w;
  int64_t kernel_h, kernel_w;
  int64_t stride_h, stride_w;
  int64_t dilation_h, dilation_w;
  int64_t pad_top, pad_left;
  int depthwise; /* group = C = M, else group 1 */
  /* Group 1 only: X is plain [N][C][H][W], not blocked. An RGB stem's
   * image is read where it is: blocked, its 3 channels would take 16 lanes
   * (5.3x the bytes, written by a reorder first). */
  int nchw_input;
} onnxc_conv_nchwc_shape;

/* Y = activation(conv + bias + z). bias and z may be NULL; only the
 * activation fields of `epilogue` are read (NULL: none). Uses up to
 * `max_threads` threads (<= 0: the pool's count). */
void onnxc_conv_nchwc(const onnxc_conv_nchwc_shape *shape, const float *x,
                      const float *w, const float *bias, const float *z,
                      float *y, const onnxc_sgemm_epilogue *epilogue,
                      int max_threads);

/* Winograd F(T x T, 3x3), T = `tile` (2 or 4), for a group-1 3x3
 * convolution with unit strides and dilations
 * (onnxc_conv_nchwc_winograd_applies): per T x T output tile and channel
 * pair, (T + 2)^2 multiplies instead of 9 T^2 (16 instead of 36, 36 instead
 * of 144), on weights transformed once (U, ConvWinogradWeights.h, for the
 * same T), for adds and subtracts of inputs and outputs around them. The
 * same tensors and result as onnxc_conv_nchwc, to rounding (F(4x4)'s
 * transforms scale values by up to 8 and 1/24: a few times F(2x2)'s
 * error). Returns 0, Y untouched, only when there is no memory for even
 * one tile's transforms ((T + 2)^2 x (C + M) floats, rounded up to
 * blocks). */
int onnxc_conv_nchwc_winograd_applies(const onnxc_conv_nchwc_shape *shape);
int onnxc_conv_nchwc_winograd(const onnxc_conv_nchwc_shape *shape, int tile,
                              const float *x, const float *u, const float *bias,
                              const float *z, float *y,
                              const onnxc_sgemm_epilogue *epilogue,
                              int max_threads);

/* MaxPool on blocked tensors (2-D, block 16): X [planes][in_h][in_w][16],
 * Y [planes][out_h][out_w][16], planes = images x channel blocks. Each
 * output vector is the lane by lane maximum of its window's in-bounds taps,
 * NaN ignored, starting from the lowest finite value (as the linalg form:
 * padding never wins). */
typedef struct onnxc_maxpool_nchwc_shape {
  int64_t planes, in_h, in_w, out_h, out_w;
  int64_t kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w;
  int64_t pad_top, pad_left;
} onnxc_maxpool_nchwc_shape;

void onnxc_maxpool_nchwc(const onnxc_maxpool_nchwc_shape *shape, const float *x,
                         float *y, int max_threads);

/* Plain loops (double accumulation), what the kernels are tested against.
 * Writes only Y's true channels. */
void onnxc_conv_nchwc_reference(const onnxc_conv_nchwc_shape *shape,
                                const float *x, const float *w,
                                const float *bias, const float *z, float *y,
                                const onnxc_sgemm_epilogue *epilogue);

/* The ISA is chosen with the GEMM's (onnxc_sgemm_force_isa in Gemm.h). */

/* Test hook: with `direct` nonzero, onnxc_conv_nchwc runs narrow maps in
 * their own rows instead of gathering them into columns first, so that the
 * tests reach every tile of both paths. Returns the previous setting; not
 * for use while convolutions run. */
int onnxc_conv_nchwc_force_direct(int direct);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ONNXC_RUNTIME_CPU_KERNELS_CONVNCHWC_H */
