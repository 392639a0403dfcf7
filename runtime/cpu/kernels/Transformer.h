/*===- Transformer.h - Softmax, layer norm and attention kernels ----------===*
 *
 * Row kernels (softmax, layer normalization over the last axis) with
 * AVX-512, AVX2/FMA and portable C variants, chosen at run time with the
 * GEMM's ISA (onnxc_sgemm_current_isa, so onnxc_sgemm_force_isa switches
 * both), and scaled dot-product attention built on onnxc_sgemm_strided with
 * the softmax applied to a block of score rows while it is in cache.
 *
 * Private to onnxc: lowered code reaches them through
 * runtime/cpu/TransformerOps.c; the unit tests call them directly.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_KERNELS_TRANSFORMER_H
#define ONNXC_RUNTIME_CPU_KERNELS_TRANSFORMER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y[j] = exp(s[j] - max s) / sum exp(s - max s), s = x + bias (bias may be
 * NULL). y may be x or bias. A row with NaN or +inf gives NaN (as numpy);
 * a row whose max is -inf gives NaN, or zeros when `zero_masked` is set
 * (ONNX Attention's convention). */
void onnxc_softmax_row(size_t n, const float *x, const float *bias, float *y,
                       int zero_masked);
void onnxc_softmax_row_reference(size_t n, const float *x, const float *bias,
                                 float *y, int zero_masked);

/* s = x + skip + bias (skip and bias may be NULL); y = (s - mean(s)) /
 * sqrt(var(s) + epsilon) * gamma + beta (beta may be NULL); when `sum` is
 * not NULL it receives s. y must not overlap the inputs. */
void onnxc_layer_norm_row(size_t n, const float *x, const float *skip,
                          const float *bias, const float *gamma,
                          const float *beta, float epsilon, float *y,
                          float *sum);
void onnxc_layer_norm_row_reference(size_t n, const float *x, const float *skip,
                                    const float *bias, const float *gamma,
                                    const float *beta, float epsilon, float *y,
                                    float *sum);

/* Scaled dot-product attention on [batch, heads, seq, size] views given by
 * element strides (any layout; Y's last stride must be 1):
 *   Y[b,h] = softmax(scale * Q[b,h] K[b,h/g]^T + mask[b,h]) V[b,h/g]
 * with g = q_heads / kv_heads. The mask (NULL: none) is indexed
 * mask[b*ms[0] + h*ms[1] + i*ms[2] + j*mask_col_stride] for j < mask_len;
 * columns j >= mask_len count as -inf (ONNX pads a short mask). A row whose
 * mask is all -inf becomes zeros. */
typedef struct onnxc_attention_args {
  size_t batch, q_heads, kv_heads, q_len, kv_len, head_size, v_head_size;
  const float *q, *k, *v;
  ptrdiff_t q_stride[4], k_stride[4], v_stride[4];
  const float *mask;
  ptrdiff_t mask_stride[3], mask_col_stride;
  size_t mask_len;
  float *y;
  ptrdiff_t y_stride[3];
  float scale;
} onnxc_attention_args;

/* Returns 0, or -1 when scratch memory could not be allocated (Y is then
 * filled with NaN). `max_threads` <= 0: the pool's count. */
int onnxc_attention_f32(const onnxc_attention_args *args, int max_threads);
/* Plain loops in double (no scratch beyond one row). */
void onnxc_attention_f32_reference(const onnxc_attention_args *args);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ONNXC_RUNTIME_CPU_KERNELS_TRANSFORMER_H */
