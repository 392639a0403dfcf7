/*===- QDepthwise.h - int8 depthwise convolution on NHWC rows -------------===*
 *
 * One output row of a channels-last depthwise QLinearConv (one input and
 * one output channel per group): for each output pixel and channel, the
 * taps inside X add (x - x_zero) * (w - w_zero) in int32, and the sum is
 * requantized as onnxc_requantize does (the same bytes from every
 * variant). A portable loop everything is tested against, and an AVX-512
 * one (QDepthwiseAvx512.c) that keeps 64 channels of sums in registers
 * across the taps and requantizes them there.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_KERNELS_QDEPTHWISE_H
#define ONNXC_RUNTIME_CPU_KERNELS_QDEPTHWISE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct onnxc_qdepthwise_params {
  const uint8_t *x; /* one image, [H, W, C] bytes (s8 when x_signed) */
  int64_t h, w, c;
  int64_t kh, kw, ow;
  int64_t stride_h, stride_w, pad_top, pad_left, dilation_h, dilation_w;
  const int32_t *tap_weights; /* [kH * kW][C]: w - w_zero */
  int32_t x_zero;
  int x_signed;
  const int32_t *bias;     /* [C], the int32 bias (zeros without one) */
  const float *multiplier; /* [C] */
  int32_t y_zero;
  int y_signed;
} onnxc_qdepthwise_params;

/* Output row `oy` into y ([OW, C] bytes), with the best variant this CPU
 * runs. `scratch` has room for C int32. */
void onnxc_qdepthwise_nhwc_row(const onnxc_qdepthwise_params *p, int64_t oy,
                               uint8_t *y, int32_t *scratch);

/* The variants, for tests: the portable one always; the AVX-512 one where
 * onnxc_qdepthwise_avx512_supported(). */
void onnxc_qdepthwise_nhwc_row_portable(const onnxc_qdepthwise_params *p,
                                        int64_t oy, uint8_t *y,
                                        int32_t *scratch);
int onnxc_qdepthwise_avx512_supported(void);
void onnxc_qdepthwise_nhwc_row_avx512(const onnxc_qdepthwise_params *p,
                                      int64_t oy, uint8_t *y);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ONNXC_RUNTIME_CPU_KERNELS_QDEPTHWISE_H */
