/*===- DnnlRuntime.h - The functions a dnnl artifact's partitions call ----===*
 *
 * Private to onnxc: code the dnnl target lowers calls these through MLIR's
 * C interface. Tensors are f32 (but where a function says otherwise),
 * dense row-major memrefs passed unranked
 * (unit dims may carry any stride); scalars are passed by value. `slot` is
 * a zero-initialized memref<1xi64> global of the artifact, one per call
 * site, where the glue keeps the oneDNN primitives it created for that
 * site, keyed by the call's shapes. Every function returns 0, a
 * dnnl_status_t (1..99) from oneDNN, or an ONNXC_DNNL_ERROR_* code; on an
 * error the output is left unspecified but nothing out of bounds is read or
 * written. Thread-safe: many threads may run one artifact at once.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_DNNL_DNNLRUNTIME_H
#define ONNXC_RUNTIME_DNNL_DNNLRUNTIME_H

#include "CpuRuntime.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  ONNXC_DNNL_ERROR_ARGUMENT = 100,    /* a malformed memref or a bad scalar */
  ONNXC_DNNL_ERROR_SHAPE = 101,       /* shapes that disagree */
  ONNXC_DNNL_ERROR_ACTIVATION = 102,  /* an activation oneDNN 2.6 lacks */
  ONNXC_DNNL_ERROR_MEMORY = 103,      /* out of memory */
  ONNXC_DNNL_ERROR_UNSUPPORTED = 104, /* rank > 12, or an empty reduction */
  /* An int8 convolution on a CPU without VNNI, where oneDNN's kernels
   * saturate the products of full-range weights (not exact). */
  ONNXC_DNNL_ERROR_NO_VNNI = 105
};

/* Conv flags: bias [M] given, residual (Y's shape) given, W constant. */
enum {
  ONNXC_DNNL_CONV_BIAS = 1,
  ONNXC_DNNL_CONV_RESIDUAL = 2,
  ONNXC_DNNL_CONV_CONST_WEIGHTS = 4
};
/* QLinearConv flags: X, Y signed (else unsigned; W is int8), bias [M]
 * given, W constant, zero points given (else 0), X and Y channels-last
 * ([N, 1, H, W, C], NHWC with a unit dim; else NCHW). */
enum {
  ONNXC_DNNL_QCONV_X_SIGNED = 1,
  ONNXC_DNNL_QCONV_Y_SIGNED = 2,
  ONNXC_DNNL_QCONV_BIAS = 4,
  ONNXC_DNNL_QCONV_CONST_WEIGHTS = 8,
  ONNXC_DNNL_QCONV_X_ZERO = 16,
  ONNXC_DNNL_QCONV_W_ZERO = 32,
  ONNXC_DNNL_QCONV_Y_ZERO = 64,
  ONNXC_DNNL_QCONV_CHANNELS_LAST = 128
};
/* MatMul flags: A is [K, M], B is [N, K], bias given, B constant. */
enum {
  ONNXC_DNNL_MATMUL_TRANS_A = 1,
  ONNXC_DNNL_MATMUL_TRANS_B = 2,
  ONNXC_DNNL_MATMUL_BIAS = 4,
  ONNXC_DNNL_MATMUL_CONST_B = 8
};
/* QLinearMatMul / MatMulInteger flags: A, Y signed (else unsigned; B is
 * int8), B constant, zero points given (else 0), MatMulInteger (an int32 Y,
 * no scales). */
enum {
  ONNXC_DNNL_QMATMUL_A_SIGNED = 1,
  ONNXC_DNNL_QMATMUL_Y_SIGNED = 2,
  ONNXC_DNNL_QMATMUL_CONST_B = 4,
  ONNXC_DNNL_QMATMUL_A_ZERO = 8,
  ONNXC_DNNL_QMATMUL_B_ZERO = 16,
  ONNXC_DNNL_QMATMUL_Y_ZERO = 32,
  ONNXC_DNNL_QMATMUL_INTEGER = 64
};
/* Pool kinds. */
enum {
  ONNXC_DNNL_POOL_MAX = 0,
  ONNXC_DNNL_POOL_AVG_INCLUDE_PAD = 1,
  ONNXC_DNNL_POOL_AVG_EXCLUDE_PAD = 2
};
/* LayerNorm flags: bias [D] given. */
enum { ONNXC_DNNL_LAYERNORM_BIAS = 1 };

/* Y = act(Conv2D(X, W) + bias + Z), ONNX Conv on NCHW: W [M, C/group, kH,
 * kW], ONNX dilations (1: none); the end pads follow from Y's size. Absent
 * bias / residual are passed as x and not read. `activation` is an
 * onnxc_activation (runtime/cpu/kernels/Gemm.h). */
int32_t _mlir_ciface_onnxc_dnnl_conv2d_f32(
    onnxc_unranked_memref *slot, onnxc_unranked_memref *x,
    onnxc_unranked_memref *w, onnxc_unranked_memref *bias,
    onnxc_unranked_memref *residual, onnxc_unranked_memref *y, int32_t flags,
    int64_t pad_top, int64_t pad_left, int64_t stride_h, int64_t stride_w,
    int64_t dilation_h, int64_t dilation_w, int64_t group, int32_t activation,
    float act_alpha, float act_beta);

/* Y = ConvTranspose(X, W) + bias, ONNX's on NCHW: W [C, M/group, kH, kW],
 * flags ONNXC_DNNL_CONV_BIAS / _CONST_WEIGHTS, the begin pads (pads that
 * output_shape or auto_pad imply already resolved), strides and ONNX
 * dilations; the end pads (output_padding included) follow from Y's size. */
int32_t _mlir_ciface_onnxc_dnnl_conv_transpose2d_f32(
    onnxc_unranked_memref *slot, onnxc_unranked_memref *x,
    onnxc_unranked_memref *w, onnxc_unranked_memref *bias,
    onnxc_unranked_memref *y, int32_t flags, int64_t pad_top, int64_t pad_left,
    int64_t stride_h, int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
    int64_t group);

/* ONNX QLinearConv on NCHW (or, flagged, channels-last) 8-bit X and Y, int8
 * W [M, C/group, kH, kW] whose
 * zero points are all 0 (else ONNXC_DNNL_ERROR_UNSUPPORTED), int32 bias
 * [M]: Y = saturate(round(x_scale * w_scale[m] / y_scale * (sum over
 * (X - x_zero) W + bias)) + y_zero), rounding half to even. Scales are f32,
 * x's and y's of one element, w's of one or M; zero points of one element
 * (w's may have M). Window arguments as for the f32 convolution. Refused
 * with ONNXC_DNNL_ERROR_NO_VNNI where oneDNN's ISA lacks VNNI. */
int32_t _mlir_ciface_onnxc_dnnl_qlinear_conv2d(
    onnxc_unranked_memref *slot, onnxc_unranked_memref *x,
    onnxc_unranked_memref *x_scale, onnxc_unranked_memref *x_zero,
    onnxc_unranked_memref *w, onnxc_unranked_memref *w_scale,
    onnxc_unranked_memref *w_zero, onnxc_unranked_memref *y_scale,
    onnxc_unranked_memref *y_zero, onnxc_unranked_memref *bias,
    onnxc_unranked_memref *y, int32_t flags, int64_t pad_top, int64_t pad_left,
    int64_t stride_h, int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
    int64_t group);

/* Y = act(alpha * op(A) op(B) + bias), numpy MatMul on ranks >= 2 with
 * broadcast batch dims; the bias broadcasts onto Y. An absent bias is
 * passed as a and not read. */
int32_t _mlir_ciface_onnxc_dnnl_matmul_f32(
    onnxc_unranked_memref *slot, onnxc_unranked_memref *a,
    onnxc_unranked_memref *b, onnxc_unranked_memref *bias,
    onnxc_unranked_memref *y, int32_t flags, float alpha, int32_t activation,
    float act_alpha, float act_beta);

/* ONNX QLinearMatMul (numpy MatMul on ranks >= 2, batch dims broadcast):
 * Y = saturate(round(a_scale * b_scale[n] / y_scale * sum over (A - a_zero)
 * B) + y_zero) with 8-bit A and Y, int8 B whose zero points are all 0
 * (else ONNXC_DNNL_ERROR_UNSUPPORTED), f32 scales (b's one or one per
 * column), one-element zero points; or, flagged INTEGER, MatMulInteger's
 * int32 Y = sum over (A - a_zero) B, the scales and y_zero passed as A and
 * not read. The zero points are read on each call and passed at run time
 * (a dynamically quantized A has a new one each run). Refused with
 * ONNXC_DNNL_ERROR_NO_VNNI where oneDNN's ISA lacks VNNI. */
int32_t _mlir_ciface_onnxc_dnnl_qlinear_matmul(
    onnxc_unranked_memref *slot, onnxc_unranked_memref *a,
    onnxc_unranked_memref *a_scale, onnxc_unranked_memref *a_zero,
    onnxc_unranked_memref *b, onnxc_unranked_memref *b_scale,
    onnxc_unranked_memref *b_zero, onnxc_unranked_memref *y_scale,
    onnxc_unranked_memref *y_zero, onnxc_unranked_memref *y, int32_t flags);

/* MaxPool / AveragePool on NCHW (`kind`: ONNXC_DNNL_POOL_*), ONNX
 * dilations; the end pads follow from Y's size (ceil mode included). */
int32_t _mlir_ciface_onnxc_dnnl_pool2d_f32(
    onnxc_unranked_memref *slot, onnxc_unranked_memref *x,
    onnxc_unranked_memref *y, int32_t kind, int64_t kernel_h, int64_t kernel_w,
    int64_t pad_top, int64_t pad_left, int64_t stride_h, int64_t stride_w,
    int64_t dilation_h, int64_t dilation_w);

/* Y = act(X), any rank; Y may be X. The compiler does not call it (nor
 * pass the convolution's and product's `activation`) yet: oneDNN's eltwise
 * does not keep NaN as ONNX does for every activation (targets/dnnl
 * DnnlCalls.h); kept, tested, for the ones that do. */
int32_t _mlir_ciface_onnxc_dnnl_eltwise_f32(onnxc_unranked_memref *slot,
                                            onnxc_unranked_memref *x,
                                            onnxc_unranked_memref *y,
                                            int32_t activation, float alpha,
                                            float beta);

/* Inference BatchNormalization of X [N, C, ...] (rank 2..16); scale, bias,
 * mean and var are [C]. The compiler does not call it: on plain NCHW
 * oneDNN 2.6 is slower than the cpu's loop (targets/dnnl
 * LowerNormalization.cpp); kept, tested, for a partition that keeps
 * oneDNN's layouts. */
int32_t _mlir_ciface_onnxc_dnnl_batchnorm_f32(
    onnxc_unranked_memref *slot, onnxc_unranked_memref *x,
    onnxc_unranked_memref *scale, onnxc_unranked_memref *bias,
    onnxc_unranked_memref *mean, onnxc_unranked_memref *var,
    onnxc_unranked_memref *y, float epsilon);

/* LayerNormalization over the last dim D of X: scale [D], bias [D] when
 * flagged (else passed as x and not read). */
int32_t _mlir_ciface_onnxc_dnnl_layernorm_f32(onnxc_unranked_memref *slot,
                                              onnxc_unranked_memref *x,
                                              onnxc_unranked_memref *scale,
                                              onnxc_unranked_memref *bias,
                                              onnxc_unranked_memref *y,
                                              int32_t flags, float epsilon);

/* 1 when the onnxc_activation with these parameters maps exactly onto a
 * oneDNN 2.6 eltwise algorithm (the functions above refuse the others with
 * ONNXC_DNNL_ERROR_ACTIVATION), else 0. */
int32_t onnxc_dnnl_activation_supported(int32_t activation, float alpha,
                                        float beta);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ONNXC_RUNTIME_DNNL_DNNLRUNTIME_H */
