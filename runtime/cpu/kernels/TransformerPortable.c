/*===- TransformerPortable.c - Row kernels in plain C ----------------------===*
 *
 * The fallback for CPUs without AVX2 (and other targets): straightforward
 * loops the compiler may vectorize, libm's expf.
 *
 *===----------------------------------------------------------------------===*/

#include "TransformerKernels.h"

#include <math.h>
#include <string.h>

static void softmax_portable(size_t n, const float *x, const float *bias,
                             float *y, int zero_masked) {
  float max = -INFINITY;
  for (size_t j = 0; j < n; ++j) {
    float s = bias ? x[j] + bias[j] : x[j];
    y[j] = s;
    max = s > max ? s : max;
  }
  if (zero_masked && max == -INFINITY) {
    /* A NaN among the -infs still makes the row NaN (below). */
    int nan = 0;
    for (size_t j = 0; j < n; ++j)
      nan |= y[j] != y[j];
    if (!nan) {
      memset(y, 0, n * sizeof(float));
      return;
    }
  }
  float sum = 0.0f;
  for (size_t j = 0; j < n; ++j) {
    float e = expf(y[j] - max);
    y[j] = e;
    sum += e;
  }
  float inv = 1.0f / sum;
  for (size_t j = 0; j < n; ++j)
    y[j] *= inv;
}

static void layer_norm_portable(size_t n, const float *x, const float *skip,
                                const float *bias, const float *gamma,
                                const float *beta, float epsilon, float *y,
                                float *sum_out) {
  float total = 0.0f;
  for (size_t j = 0; j < n; ++j) {
    float s = x[j];
    if (skip)
      s += skip[j];
    if (bias)
      s += bias[j];
    y[j] = s;
    total += s;
  }
  if (sum_out)
    memcpy(sum_out, y, n * sizeof(float));
  float mean = total / (float)n;
  float squares = 0.0f;
  for (size_t j = 0; j < n; ++j) {
    float d = y[j] - mean;
    squares += d * d;
  }
  float rstd = 1.0f / sqrtf(squares / (float)n + epsilon);
  for (size_t j = 0; j < n; ++j) {
    float v = (y[j] - mean) * rstd * gamma[j];
    y[j] = beta ? v + beta[j] : v;
  }
}

const onnxc_row_kernels onnxc_row_kernels_portable = {softmax_portable,
                                                      layer_norm_portable};
