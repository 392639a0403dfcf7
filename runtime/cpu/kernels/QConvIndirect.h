/*===- QConvIndirect.h - NHWC int8 convolution without im2col -------------===*
 *
 * A channels-last QLinearConv with u8 X and s8 or u8 W as an indirect GEMM:
 * for a tile of output pixels, a table points at each pixel's input pixel under
 *each tap (or at a pixel of X's zero point in the padding), and the
 *micro-kernel reads its four-byte groups of channels there, with no gathered or
 *packed copy of the windows. The int32 sums stay in registers through the
 *requantization (onnxc_requantize's arithmetic, the same bytes as the GEMM
 *path), which writes the tile's bytes into Y's pixels.
 *
 * u8 W is packed as w - 128 (s8) with zero point zw - 128, so the loop is
 * always plain u8 x s8 products (vpdpbusd). Over a window of K = taps x Cg
 * products, sum (x - zx)(w - zw) = sum x w - zx sum w - zw sum x + K zx zw:
 * the second and last terms are per output channel and go into the bias;
 * the third, with W asymmetric (ONNX Runtime's quantizer writes u8 W with
 * a zero point for weights it reads as activations, as Constant nodes), is
 * each pixel's window sum of X times the channel's zero point, subtracted
 * in the kernel before the requantization. AVX-512 VNNI only: elsewhere
 * onnxc_qconv_indirect_pack returns NULL and QLinearConv.c takes the GEMM
 * path, which is what the tests compare this with.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_KERNELS_QCONVINDIRECT_H
#define ONNXC_RUNTIME_CPU_KERNELS_QCONVINDIRECT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* W packed for the micro-kernel (opaque). */
typedef struct onnxc_qconv_indirect_weights onnxc_qconv_indirect_weights;

/* Whether this CPU runs the kernel and this convolution's channels per
 * group suit it: a multiple of 4, or any count with one group (X is then
 * copied with its channels padded to a multiple of 4). */
int onnxc_qconv_indirect_supported(int64_t channels_per_group, int64_t groups);

/* Packs W ([M, Cg, kH, kW] bytes, ONNX's layout; s8 when `w_signed`, else
 * u8) per group, with the column sums and the M zero points `w_zero` (as
 * W's values). NULL when unsupported or out of memory. */
onnxc_qconv_indirect_weights *
onnxc_qconv_indirect_pack(const uint8_t *w, int64_t m, int64_t cg, int64_t kh,
                          int64_t kw, int64_t groups, int w_signed,
                          const int32_t *w_zero);
void onnxc_qconv_indirect_free(onnxc_qconv_indirect_weights *weights);

/* Whether `weights` were packed with these zero points (a cached W is
 * reused only then: the zero points are part of the packed form). */
int onnxc_qconv_indirect_has_zero_points(
    const onnxc_qconv_indirect_weights *weights, int w_signed,
    const int32_t *w_zero);

typedef struct onnxc_qconv_indirect_params {
  const uint8_t *x; /* one image, [H, W, C] u8 */
  int64_t h, w, c;
  int64_t oh, ow;
  int64_t stride_h, stride_w, pad_top, pad_left, dilation_h, dilation_w;
  int32_t x_zero;
  const int32_t *bias;     /* [M], the int32 bias (zeros without one) */
  const float *multiplier; /* [M] */
  int32_t y_zero;
  int y_signed;
  uint8_t *y; /* the image's [OH, OW, M] bytes */
} onnxc_qconv_indirect_params;

/* One image of the convolution, on up to `max_threads` threads of the pool
 * (<= 0: all). Returns 0, or -1 when out of memory (Y then partly
 * written). */
int onnxc_qconv_indirect(const onnxc_qconv_indirect_weights *weights,
                         const onnxc_qconv_indirect_params *params,
                         int max_threads);

/* The micro-kernel's interface (QConvIndirectAvx512Vnni.c). One tile of up
 * to MR output pixels by up to NR output channels: for tap t and row r the
 * input pixel is rows[t * MR + r] + offset; K runs over the taps and, in
 * each, over `groups` four-byte groups of channels; `panel` is W's packed
 * panel for these columns. Rows [0, mr) and columns [0, cols) are
 * requantized into y (row stride ldy); bias is corrected for X's zero
 * point. With row_sum, each row's sums first lose row_sum[r] * w_zero[col]
 * (w_zero readable for NR columns). */
enum { ONNXC_QCONV_INDIRECT_MR = 12, ONNXC_QCONV_INDIRECT_NR = 32 };
typedef struct onnxc_qconv_indirect_tile {
  const uint8_t *const *rows;
  size_t offset, taps, groups;
  const int8_t *panel;
  size_t mr, cols;
  const int32_t *bias;
  const int32_t *row_sum; /* [MR] window sums of X, or NULL */
  const int32_t *w_zero;  /* [NR] W's zero points as packed */
  const float *multiplier;
  int32_t y_zero;
  int y_signed;
  uint8_t *y;
  ptrdiff_t ldy;
} onnxc_qconv_indirect_tile;
void onnxc_qconv_indirect_tile_vnni(const onnxc_qconv_indirect_tile *tile);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ONNXC_RUNTIME_CPU_KERNELS_QCONVINDIRECT_H */
