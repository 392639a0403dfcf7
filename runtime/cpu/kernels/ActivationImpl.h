/*===- ActivationImpl.h - The activation row kernel, any vector width -----===*
 *
 * Included by Activation<Isa>.c with ACT_LANES (floats per vector) and
 * ACT_FUNCTION (the onnxc_activation_row_<isa> it defines) set. Every value,
 * the tail's too (padded into one vector), goes through the same arithmetic
 * (ActivationVector.h).
 *
 *===----------------------------------------------------------------------===*/

#include "ActivationKernels.h"
#include "ActivationVector.h"

#include <string.h>

ACT_INLINE void activation_row(int32_t kind, float alpha, float beta, float *y,
                               size_t n) {
  size_t i = 0;
  for (; i + ACT_LANES <= n; i += ACT_LANES) {
    act_vec x;
    memcpy(&x, y + i, sizeof x);
    x = act_activation(kind, x, alpha, beta);
    memcpy(y + i, &x, sizeof x);
  }
  if (i < n) {
    act_vec x = {0};
    memcpy(&x, y + i, (n - i) * sizeof(float));
    x = act_activation(kind, x, alpha, beta);
    memcpy(y + i, &x, (n - i) * sizeof(float));
  }
}

#define ACT_ROW_CASE(KIND)                                                     \
  case KIND:                                                                   \
    activation_row(KIND, alpha, beta, y, n);                                   \
    break

void ACT_FUNCTION(int32_t kind, float alpha, float beta, float *y, size_t n) {
  switch (kind) {
    ACT_ROW_CASE(ONNXC_ACTIVATION_RELU);
    ACT_ROW_CASE(ONNXC_ACTIVATION_LEAKY_RELU);
    ACT_ROW_CASE(ONNXC_ACTIVATION_CLIP);
    ACT_ROW_CASE(ONNXC_ACTIVATION_SIGMOID);
    ACT_ROW_CASE(ONNXC_ACTIVATION_TANH);
    ACT_ROW_CASE(ONNXC_ACTIVATION_HARD_SIGMOID);
    ACT_ROW_CASE(ONNXC_ACTIVATION_GELU);
    ACT_ROW_CASE(ONNXC_ACTIVATION_FAST_GELU);
    ACT_ROW_CASE(ONNXC_ACTIVATION_SILU);
    ACT_ROW_CASE(ONNXC_ACTIVATION_HARD_SWISH);
  default:
    break;
  }
}
