/*===- TransformerReference.c - What the kernels are tested against ------===*
 *
 * Double accumulation, libm exp, the ONNX reference's order of operations.
 *
 *===----------------------------------------------------------------------===*/

#include "Transformer.h"

#include <math.h>
#include <stdlib.h>

void onnxc_softmax_row_reference(size_t n, const float *x, const float *bias,
                                 float *y, int zero_masked) {
  double max = -INFINITY;
  int nan = 0;
  for (size_t j = 0; j < n; ++j) {
    float s = bias ? x[j] + bias[j] : x[j];
    y[j] = s;
    if (s != s)
      nan = 1;
    else if (s > max)
      max = s;
  }
  if (nan) {
    for (size_t j = 0; j < n; ++j)
      y[j] = NAN;
    return;
  }
  if (max == -INFINITY && zero_masked) {
    for (size_t j = 0; j < n; ++j)
      y[j] = 0.0f;
    return;
  }
  double sum = 0.0;
  for (size_t j = 0; j < n; ++j)
    sum += exp((double)y[j] - max);
  for (size_t j = 0; j < n; ++j)
    y[j] = (float)(exp((double)y[j] - max) / sum);
}

void onnxc_layer_norm_row_reference(size_t n, const float *x, const float *skip,
                                    const float *bias, const float *gamma,
                                    const float *beta, float epsilon, float *y,
                                    float *sum_out) {
  double total = 0.0;
  for (size_t j = 0; j < n; ++j) {
    float s = x[j];
    if (skip)
      s += skip[j];
    if (bias)
      s += bias[j];
    y[j] = s;
    if (sum_out)
      sum_out[j] = s;
    total += s;
  }
  double mean = total / (double)n, squares = 0.0;
  for (size_t j = 0; j < n; ++j)
    squares += ((double)y[j] - mean) * ((double)y[j] - mean);
  double rstd = 1.0 / sqrt(squares / (double)n + (double)epsilon);
  for (size_t j = 0; j < n; ++j) {
    double v = ((double)y[j] - mean) * rstd * gamma[j];
    y[j] = (float)(beta ? v + beta[j] : v);
  }
}

void onnxc_attention_f32_reference(const onnxc_attention_args *a) {
  size_t n = a->kv_len;
  double *p = malloc((n ? n : 1) * sizeof(double));
  if (!p)
    return;
  size_t group = a->kv_heads ? a->q_heads / a->kv_heads : 1;
  for (size_t b = 0; b < a->batch; ++b)
    for (size_t h = 0; h < a->q_heads; ++h)
      for (size_t i = 0; i < a->q_len; ++i) {
        size_t kvh = h / group;
        const float *q = a->q + (ptrdiff_t)b * a->q_stride[0] +
                         (ptrdiff_t)h * a->q_stride[1] +
                         (ptrdiff_t)i * a->q_stride[2];
        int masked = 1, nan = 0;
        double max = -INFINITY;
        for (size_t j = 0; j < n; ++j) {
          const float *k = a->k + (ptrdiff_t)b * a->k_stride[0] +
                           (ptrdiff_t)kvh * a->k_stride[1] +
                           (ptrdiff_t)j * a->k_stride[2];
          double s = 0.0;
          for (size_t d = 0; d < a->head_size; ++d)
            s += (double)q[(ptrdiff_t)d * a->q_stride[3]] *
                 k[(ptrdiff_t)d * a->k_stride[3]];
          s *= a->scale;
          double m = 0.0;
          if (a->mask)
            m = j < a->mask_len ? a->mask[(ptrdiff_t)b * a->mask_stride[0] +
                                          (ptrdiff_t)h * a->mask_stride[1] +
                                          (ptrdiff_t)i * a->mask_stride[2] +
                                          (ptrdiff_t)j * a->mask_col_stride]
                                : -INFINITY;
          if (m != -INFINITY)
            masked = 0;
          s += m;
          p[j] = s;
          if (s != s)
            nan = 1;
          else if (s > max)
            max = s;
        }
        if (!a->mask)
          masked = 0;
        double sum = 0.0;
        for (size_t j = 0; j < n; ++j) {
          p[j] = masked             ? 0.0
                 : nan              ? NAN
                 : max == -INFINITY ? 0.0
                                    : exp(p[j] - max);
          sum += p[j];
        }
        float *y = a->y + (ptrdiff_t)b * a->y_stride[0] +
                   (ptrdiff_t)h * a->y_stride[1] +
                   (ptrdiff_t)i * a->y_stride[2];
        for (size_t d = 0; d < a->v_head_size; ++d) {
          double acc = 0.0;
          for (size_t j = 0; j < n; ++j) {
            const float *v = a->v + (ptrdiff_t)b * a->v_stride[0] +
                             (ptrdiff_t)kvh * a->v_stride[1] +
                             (ptrdiff_t)j * a->v_stride[2];
            acc += p[j] / (sum == 0.0 ? 1.0 : sum) *
                   v[(ptrdiff_t)d * a->v_stride[3]];
          }
          y[d] = (float)acc;
        }
      }
  free(p);
}
