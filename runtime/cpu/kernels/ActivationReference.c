/*===- ActivationReference.c - The activations with libm ------------------===*
 *
 * One value at a time with erff, expf and tanhf: what the vector rows are
 * tested against.
 *
 *===----------------------------------------------------------------------===*/

#include "Activation.h"
#include "Gemm.h"

#include <math.h>

float onnxc_activation_reference(int32_t kind, float alpha, float beta,
                                 float x) {
  switch (kind) {
  case ONNXC_ACTIVATION_RELU:
    return x < 0.0f ? 0.0f : x;
  case ONNXC_ACTIVATION_LEAKY_RELU:
    return x < 0.0f ? alpha * x : x;
  case ONNXC_ACTIVATION_CLIP:
    x = x < alpha ? alpha : x;
    return x > beta ? beta : x;
  case ONNXC_ACTIVATION_SIGMOID:
    return 1.0f / (1.0f + expf(-x));
  case ONNXC_ACTIVATION_TANH:
    return tanhf(x);
  case ONNXC_ACTIVATION_HARD_SIGMOID:
  case ONNXC_ACTIVATION_HARD_SWISH: {
    float v = alpha * x + beta;
    v = v > 1.0f ? 1.0f : v;
    v = v < 0.0f ? 0.0f : v;
    return kind == ONNXC_ACTIVATION_HARD_SWISH ? x * v : v;
  }
  case ONNXC_ACTIVATION_GELU:
    return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
  case ONNXC_ACTIVATION_FAST_GELU: {
    float inner = 0.79788456080286536f * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + tanhf(inner));
  }
  case ONNXC_ACTIVATION_SILU:
    return x * (1.0f / (1.0f + expf(-x)));
  default:
    return x;
  }
}

void onnxc_activation_apply_reference(int32_t kind, float alpha, float beta,
                                      float *y, size_t rows, size_t cols,
                                      ptrdiff_t ld) {
  for (size_t i = 0; i < rows; ++i)
    for (size_t j = 0; j < cols; ++j) {
      float *v = y + (ptrdiff_t)i * ld + j;
      *v = onnxc_activation_reference(kind, alpha, beta, *v);
    }
}
