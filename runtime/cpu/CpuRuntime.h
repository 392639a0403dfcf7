/*===- CpuRuntime.h - The functions a CPU artifact's model points at ------===*
 *
 * Private to onnxc: compiled artifacts reference these by name (see
 * compiler/emit/ModelEntry.cpp); the unit tests call them directly.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_CPURUNTIME_H
#define ONNXC_RUNTIME_CPU_CPURUNTIME_H

#include "onnxc/onnxc.h"

#ifdef __cplusplus
extern "C" {
#endif

int onnxc_cpu_run(const onnxc_model *model, const onnxc_tensor *inputs,
                  int32_t num_inputs, onnxc_tensor *outputs,
                  int32_t num_outputs, onnxc_error *err);
int onnxc_cpu_run_with_workspace(const onnxc_model *model,
                                 const onnxc_tensor *inputs, int32_t num_inputs,
                                 onnxc_tensor *outputs, int32_t num_outputs,
                                 void *workspace, size_t workspace_size,
                                 onnxc_error *err);
void onnxc_cpu_release_tensor(onnxc_tensor *tensor);

/* Scratch memory for kernels (Run.c): a block of at least `bytes`, aligned
 * to ONNXC_WORKSPACE_ALIGNMENT, from a process-wide pool that keeps freed
 * blocks, so only the first use of a block pays its page faults. Returns
 * NULL when out of memory; `*block` is what onnxc_rt_scratch_give takes
 * back (NULL is ignored). Thread-safe. */
void *onnxc_rt_scratch_take(size_t bytes, void **block);
void onnxc_rt_scratch_give(void *block);

/* The heap buffers of a compiled graph (BufferPool.c): aligned_alloc and
 * free, but freed blocks of 64 KiB and more are kept for the next
 * allocations instead of going back to the kernel. Every pointer
 * onnxc_rt_alloc returns may also be released with free(). Thread-safe. */
void *onnxc_rt_alloc(size_t alignment, size_t size);
void onnxc_rt_free(void *ptr);

/* Helpers that lowered code calls for ops whose result sizes are only known
 * at run time. They take MLIR's C interface: each memref argument is a
 * pointer to its descriptor {allocated, aligned, offset, sizes[r],
 * strides[r]} of a dense row-major buffer; the caller allocates the outputs
 * at their largest size and slices them to the returned count. See the C
 * files for the exact contracts. */
typedef struct onnxc_memref1 {
  void *allocated, *aligned;
  int64_t offset, size, stride;
} onnxc_memref1;
typedef struct onnxc_memref2 {
  void *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} onnxc_memref2;
typedef struct onnxc_memref3 {
  void *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
} onnxc_memref3;

/* NonMaxSuppression.c: boxes [B, N, 4] f32, scores [B, C, N] f32; writes
 * (batch, class, box) rows into selected [capacity, 3] i64 and returns how
 * many. */
int64_t _mlir_ciface_onnxc_rt_nms(onnxc_memref3 *boxes, onnxc_memref3 *scores,
                                  int64_t max_per_class, float iou_threshold,
                                  float score_threshold,
                                  int32_t has_score_threshold,
                                  int64_t center_point_box,
                                  onnxc_memref2 *selected);

/* Profile.c: the per-node timers of an artifact compiled with --profile.
 * onnxc_rt_profile_clock is a monotonic time in ns; profile_lap adds the
 * time since `since` to counters[entry] (u64 ns) and returns the time now. */
int64_t onnxc_rt_profile_clock(void);
int64_t _mlir_ciface_onnxc_rt_profile_lap(onnxc_memref1 *counters,
                                          int32_t entry, int64_t since);

/* Unique.c: one entry point per element type (f16, bf16, f32, f64, i8..i64,
 * u8..u64, bool), e.g. the f32 one below. x is [outer, len, inner]; returns
 * the number U of distinct slices x[:, k, :]; y gets [outer, U, inner],
 * indices and counts U entries, inverse len entries. */
int64_t _mlir_ciface_onnxc_rt_unique_f32(
    onnxc_memref1 *x, int64_t outer, int64_t len, int64_t inner,
    int32_t sorted, onnxc_memref1 *y, onnxc_memref1 *indices,
    onnxc_memref1 *inverse, onnxc_memref1 *counts);

/* An unranked memref: its rank and a pointer to the ranked descriptor. */
typedef struct onnxc_unranked_memref {
  int64_t rank;
  void *descriptor;
} onnxc_unranked_memref;

/* MatMul.c: Y = activation(alpha * op(A) @ op(B) + bias_scale * bias) with
 * numpy MatMul semantics (any ranks, broadcast batch dims); the bias (when
 * ONNXC_MATMUL_BIAS is set) broadcasts onto Y; the transposes are for 2-D
 * Gemm. Y is dense and allocated by the caller; shapes that disagree at run
 * time fill Y with NaN. `activation` is an onnxc_activation
 * (kernels/Gemm.h). */
enum {
  ONNXC_MATMUL_TRANS_A = 1,
  ONNXC_MATMUL_TRANS_B = 2,
  ONNXC_MATMUL_BIAS = 4
};
void _mlir_ciface_onnxc_rt_matmul_f32(onnxc_unranked_memref *a,
                                      onnxc_unranked_memref *b,
                                      onnxc_unranked_memref *bias,
                                      onnxc_unranked_memref *y,
                                      int32_t flags, float alpha,
                                      float bias_scale, int32_t activation,
                                      float activation_alpha,
                                      float activation_beta);

/* The same for a constant B (a weight): `slot` is a zero-initialized
 * memref<1xi64> global of the artifact, one per call site, where the GEMM
 * keeps B packed after the first call (kernels/Gemm.h,
 * onnxc_sgemm_strided_cached). */
void _mlir_ciface_onnxc_rt_matmul_packed_f32(
    onnxc_unranked_memref *a, onnxc_unranked_memref *b,
    onnxc_unranked_memref *bias, onnxc_unranked_memref *y,
    onnxc_memref1 *slot, int32_t flags, float alpha, float bias_scale,
    int32_t activation, float activation_alpha, float activation_beta);

/* The same for a constant B that the compiler packed (targets/cpu/
 * transforms/PrepackGemmWeights.cpp): `packed_b` is 1-D, the K x N op(B)
 * in the layout of ISA `packed_isa` (kernels/GemmPackedLayout.h); flags'
 * TRANS_B is ignored. `slot` serves a run on a CPU with another layout,
 * which repacks B once (kernels/Gemm.h, onnxc_sgemm_prepacked). */
void _mlir_ciface_onnxc_rt_matmul_prepacked_f32(
    onnxc_unranked_memref *a, onnxc_unranked_memref *packed_b,
    onnxc_unranked_memref *bias, onnxc_unranked_memref *y, onnxc_memref1 *slot,
    int32_t packed_isa, int64_t k, int64_t n, int32_t flags, float alpha,
    float bias_scale, int32_t activation, float activation_alpha,
    float activation_beta);

/* MatMulInteger.c: Y (int32) = (A - a_zero_point) @ (B - b_zero_point),
 * ONNX MatMulInteger for an A of rank >= 1 (its leading dims fold into
 * rows) and a 2-D B, through the int8 GEMM (kernels/QGemm.h). Dense
 * row-major operands; the zero points are a scalar (one element) for A and
 * a scalar or [N] for B, read when flagged. `slot` (the _packed form, for a
 * constant B) keeps B packed after the first call. Shapes that disagree at
 * run time (the lowering checks them first) leave Y zero and return
 * ONNXC_KERNEL_BAD_OPERANDS; returns ONNXC_KERNEL_OK or an ONNXC_KERNEL_*. */
enum {
  ONNXC_MATMUL_INTEGER_A_SIGNED = 1,
  ONNXC_MATMUL_INTEGER_B_SIGNED = 2,
  ONNXC_MATMUL_INTEGER_A_ZERO = 4,
  ONNXC_MATMUL_INTEGER_B_ZERO = 8
};
int32_t _mlir_ciface_onnxc_rt_matmul_integer(
    onnxc_unranked_memref *a, onnxc_unranked_memref *b,
    onnxc_unranked_memref *a_zero_point, onnxc_unranked_memref *b_zero_point,
    onnxc_unranked_memref *y, int32_t flags);
int32_t _mlir_ciface_onnxc_rt_matmul_integer_packed(
    onnxc_unranked_memref *a, onnxc_unranked_memref *b,
    onnxc_unranked_memref *a_zero_point, onnxc_unranked_memref *b_zero_point,
    onnxc_unranked_memref *y, onnxc_memref1 *slot, int32_t flags);

/* ONNX QLinearMatMul the same way: Y (u8, or s8 with Y_SIGNED) =
 * saturate(round(sums * a_scale * b_scale[j] / y_scale) + y_zero), the
 * multiplier and the product in f32 as ONNX Runtime computes them
 * (onnxc_requantize in kernels/QGemm.h). a_scale, y_scale and the zero points
 * of A and Y have one element; b_scale and B's zero point one or N. flags: the
 * A_SIGNED / B_SIGNED bits above, and: */
enum { ONNXC_QLINEAR_MATMUL_Y_SIGNED = 16 };
int32_t _mlir_ciface_onnxc_rt_qlinear_matmul(
    onnxc_unranked_memref *a, onnxc_unranked_memref *a_scale,
    onnxc_unranked_memref *a_zero_point, onnxc_unranked_memref *b,
    onnxc_unranked_memref *b_scale, onnxc_unranked_memref *b_zero_point,
    onnxc_unranked_memref *y_scale, onnxc_unranked_memref *y_zero_point,
    onnxc_unranked_memref *y, onnxc_memref1 *slot, int32_t flags);

/* DynamicQuantize.c: ONNX DynamicQuantizeLinear of a dense f32 X into
 * Y (u8, X's shape) through kernels/Quantize.h; params[0] gets the scale,
 * params[1] the zero point (a whole number in [0, 255]). Returns an
 * ONNXC_KERNEL_* status. */
int32_t _mlir_ciface_onnxc_rt_dynamic_quantize_f32(onnxc_unranked_memref *x,
                                                   onnxc_unranked_memref *y,
                                                   onnxc_memref1 *params);

/* Conv.c: Y = activation(Conv2D(X, W) + bias + residual), NCHW, dense,
 * the window given by its begin pads, strides and dilations (the end pads
 * follow from Y's size). Bias ([M]) and residual (Y's shape) are read when
 * their flag is set. Shapes that disagree at run time fill Y with NaN. */
enum { ONNXC_CONV_BIAS = 1, ONNXC_CONV_RESIDUAL = 2 };
void _mlir_ciface_onnxc_rt_conv2d_f32(
    onnxc_unranked_memref *x, onnxc_unranked_memref *w,
    onnxc_unranked_memref *bias, onnxc_unranked_memref *residual,
    onnxc_unranked_memref *y, int32_t flags, int64_t pad_top,
    int64_t pad_left, int64_t stride_h, int64_t stride_w, int64_t dilation_h,
    int64_t dilation_w, int64_t group, int32_t activation,
    float activation_alpha, float activation_beta);

/* QLinearConv.c: ONNX QLinearConv on 8-bit NCHW X [N, C, H, W] and W [M,
 * C/group, kH, kW] into Y [N, M, OH, OW] through the int8 GEMM: X to
 * pixel-major rows, windows gathered per pixel block, W packed once into
 * `slot` per group, then y = saturate(round((acc + bias) * multiplier[m]) +
 * y_zero) with multiplier = x_scale * w_scale[m] / y_scale, multiplier and
 * product in f32 as ONNX Runtime computes them. Scales are f32 memrefs of one
 * element (w_scale: one or M), zero points 8-bit (w_zero: one or M), bias
 * int32 [M] when flagged. The end pads follow from Y's size. Returns
 * ONNXC_KERNEL_OK, or an ONNXC_KERNEL_* (geometry that disagrees, no
 * memory) with Y unspecified. */
enum {
  ONNXC_QCONV_X_SIGNED = 1,
  ONNXC_QCONV_W_SIGNED = 2,
  ONNXC_QCONV_Y_SIGNED = 4,
  ONNXC_QCONV_BIAS = 8,
  ONNXC_QCONV_Y_ZERO = 16,
  ONNXC_QCONV_X_ZERO = 32, /* ConvInteger: x_zero_point given */
  ONNXC_QCONV_W_ZERO = 64, /* ConvInteger: w_zero_point given */
  /* QLinearConv only: X is [N, H, W, C] and Y [N, OH, OW, M], both
   * contiguous (onnxc.BlockedQLinearConv); W keeps ONNX's layout. */
  ONNXC_QCONV_CHANNELS_LAST = 128
};
int32_t _mlir_ciface_onnxc_rt_qlinear_conv2d(
    onnxc_unranked_memref *x, onnxc_unranked_memref *x_scale,
    onnxc_unranked_memref *x_zero, onnxc_unranked_memref *w,
    onnxc_unranked_memref *w_scale, onnxc_unranked_memref *w_zero,
    onnxc_unranked_memref *y_scale, onnxc_unranked_memref *y_zero,
    onnxc_unranked_memref *bias, onnxc_unranked_memref *y, onnxc_memref1 *slot,
    int32_t flags, int64_t pad_top, int64_t pad_left, int64_t stride_h,
    int64_t stride_w, int64_t dilation_h, int64_t dilation_w, int64_t group);

/* The same for ONNX ConvInteger: Y is the int32 sums [N, M, OH, OW]; the
 * zero points (8-bit, one or M for W) are read when ONNXC_QCONV_X_ZERO /
 * ONNXC_QCONV_W_ZERO say they are given. */
int32_t _mlir_ciface_onnxc_rt_conv_integer2d(
    onnxc_unranked_memref *x, onnxc_unranked_memref *x_zero,
    onnxc_unranked_memref *w, onnxc_unranked_memref *w_zero,
    onnxc_unranked_memref *y, onnxc_memref1 *slot, int32_t flags,
    int64_t pad_top, int64_t pad_left, int64_t stride_h, int64_t stride_w,
    int64_t dilation_h, int64_t dilation_w, int64_t group);

/* ConvNchwc.c: onnxc.BlockedConv, Y = activation(Conv(X, W) + bias + Z) on
 * blocked tensors (kernels/ConvNchwc.h has the layouts). Geometry that
 * disagrees at run time fills Y with NaN. With ONNXC_CONV_NCHWC_WINOGRAD, W
 * is a 3x3 kernel's Winograd U, 1-D (kernels/ConvWinogradWeights.h), for
 * F(2x2, 3x3), or F(4x4, 3x3) with ONNXC_CONV_NCHWC_WINOGRAD_4X4 too. With
 * ONNXC_CONV_NCHWC_NCHW_INPUT (group 1, 2-D, not Winograd), X is the plain
 * [N, C, H, W] tensor. */
enum {
  ONNXC_CONV_NCHWC_BIAS = 1,
  ONNXC_CONV_NCHWC_RESIDUAL = 2,
  ONNXC_CONV_NCHWC_DEPTHWISE = 4,
  ONNXC_CONV_NCHWC_WINOGRAD = 8,
  ONNXC_CONV_NCHWC_NCHW_INPUT = 16,
  ONNXC_CONV_NCHWC_WINOGRAD_4X4 = 32
};
void _mlir_ciface_onnxc_rt_conv_nchwc_f32(
    onnxc_unranked_memref *x, onnxc_unranked_memref *w,
    onnxc_unranked_memref *bias, onnxc_unranked_memref *z,
    onnxc_unranked_memref *y, int32_t flags, int64_t in_channels,
    int64_t out_channels, int64_t stride_h, int64_t stride_w,
    int64_t dilation_h, int64_t dilation_w, int64_t pad_top, int64_t pad_left,
    int32_t activation, float activation_alpha, float activation_beta);
/* ConvNchwc.c: onnxc.ReorderToBlocked of f32, block 16: X [N][C][D...] to
 * Y [N][ceil(C/16)][D...][16], the lanes past C zero (1 to 3 spatial
 * dims). Sizes that disagree fill Y with NaN. */
void _mlir_ciface_onnxc_rt_reorder_to_nchwc_f32(onnxc_unranked_memref *x,
                                                onnxc_unranked_memref *y);
/* ConvNchwc.c: MaxPool of a blocked f32 tensor (2-D, block 16), X
 * [N][Cb][H][W][16] to Y [N][Cb][OH][OW][16]: NaN ignored, the begin pads
 * given (the end pads follow from Y). Sizes that disagree fill Y with NaN. */
void _mlir_ciface_onnxc_rt_maxpool_nchwc_f32(
    onnxc_unranked_memref *x, onnxc_unranked_memref *y, int64_t kernel_h,
    int64_t kernel_w, int64_t stride_h, int64_t stride_w, int64_t dilation_h,
    int64_t dilation_w, int64_t pad_top, int64_t pad_left);
/* TransformerOps.c: the kernels of kernels/Transformer.h on lowered code's
 * memrefs. Softmax over the last axis of X (+ bias broadcast onto X when
 * ONNXC_ROWS_BIAS); layer norm over the last axis of X (+ skip, the same
 * shape, and a 1-D bias when flagged; beta optional); attention on 4-D
 * Q, K, V (+ a mask broadcast onto [batch, heads, q_len, kv_len]). Outputs
 * are dense and allocated by the caller; shapes that disagree at run time
 * fill them with NaN. */
enum {
  ONNXC_ROWS_BIAS = 1,
  ONNXC_ROWS_SKIP = 2,
  ONNXC_ROWS_BETA = 4,
  ONNXC_ATTENTION_MASK = 8,
  /* Q, K or V is given as [batch, seq, heads, size] (the input of the
   * heads transpose the lowering read through). */
  ONNXC_ATTENTION_Q_SEQ_MAJOR = 16,
  ONNXC_ATTENTION_K_SEQ_MAJOR = 32,
  ONNXC_ATTENTION_V_SEQ_MAJOR = 64
};
void _mlir_ciface_onnxc_rt_softmax_f32(onnxc_unranked_memref *x,
                                       onnxc_unranked_memref *bias,
                                       onnxc_unranked_memref *y,
                                       int32_t flags);
void _mlir_ciface_onnxc_rt_layer_norm_f32(
    onnxc_unranked_memref *x, onnxc_unranked_memref *skip,
    onnxc_unranked_memref *bias, onnxc_unranked_memref *gamma,
    onnxc_unranked_memref *beta, onnxc_unranked_memref *y, int32_t flags,
    float epsilon);
void _mlir_ciface_onnxc_rt_attention_f32(
    onnxc_unranked_memref *q, onnxc_unranked_memref *k,
    onnxc_unranked_memref *v, onnxc_unranked_memref *mask,
    onnxc_unranked_memref *y, int32_t flags, float scale);

/* ThreadPool.c: the model's `set_num_threads` (onnxc.h). */
int onnxc_cpu_set_num_threads(int32_t num_threads);

/* ShapeError.c: run-time shape checks in compiled code. Compiled code calls
 * onnxc_rt_shape_error (node: the ONNX node name, a constant string of the
 * artifact; kind: ONNXC_SHAPE_ERROR_*, numbered as ShapeErrorKind in
 * targets/cpu/lowering/RuntimeHelpers.h; a, b: the sizes), which records the
 * first error of the calling thread. onnxc_cpu_run clears the record before
 * calling the graph and takes it after. Device runtimes (runtime/cuda)
 * record their failures the same way. */
enum {
  ONNXC_SHAPE_ERROR_BROADCAST = 0,
  ONNXC_SHAPE_ERROR_INNER_DIMS = 1,
  /* A library call of another target's runtime (runtime/dnnl) returned
   * status `a`. */
  ONNXC_SHAPE_ERROR_LIBRARY_CALL = 2,
  /* Recorded by runtime/cuda only (compiled code never emits these two, so
   * the compiler's ShapeErrorKind stops at 2). DEVICE: a CUDA driver or
   * cuBLAS call failed; `node` names the call, `a` is its status, `b` is
   * 0 or a `const char *` (static storage) naming the status. The run
   * fails with ONNXC_RUNTIME_ERROR. */
  ONNXC_SHAPE_ERROR_DEVICE = 3,
  /* No usable CUDA device (no driver, cuInit failed, no device N): `node`
   * is the reason (static storage). The run fails with ONNXC_NO_DEVICE. */
  ONNXC_SHAPE_ERROR_NO_DEVICE = 4,
  /* A CPU kernel call returned status `a` (ONNXC_KERNEL_*): compiled code
   * checks the int8 kernels' results (ShapeErrorKind::Kernel). */
  ONNXC_SHAPE_ERROR_KERNEL = 5,
  /* `a` values of a OneHotEncoder with zeros = 0 are none of its
   * categories (ShapeErrorKind::UnknownCategory). */
  ONNXC_SHAPE_ERROR_UNKNOWN_CATEGORY = 6
};
/* What the int8 entry points return. */
enum {
  ONNXC_KERNEL_OK = 0,
  ONNXC_KERNEL_OUT_OF_MEMORY = 1,
  ONNXC_KERNEL_BAD_OPERANDS = 2 /* shapes or sizes that do not fit */
};
void onnxc_rt_shape_error(const char *node, int32_t kind, int64_t a, int64_t b);
void onnxc_rt_clear_shape_error(void);
/* Returns 0 when no error was recorded, else the onnxc_status_code the run
 * fails with (ONNXC_INVALID_ARGUMENT for the shape kinds), and writes the
 * message. */
int onnxc_rt_take_shape_error(char *message, size_t size);
/* 1 when the calling thread has an error recorded: runtime/cuda skips the
 * device work of a run that already failed. */
int onnxc_rt_shape_error_pending(void);
/* What a target library (runtime/dnnl) says about the call that is about to
 * fail on the calling thread (static storage); the next
 * ONNXC_SHAPE_ERROR_LIBRARY_CALL's message is it instead of the status
 * number. */
void onnxc_rt_library_message(const char *text);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ONNXC_RUNTIME_CPU_CPURUNTIME_H */
