/*===- GemmReference.c - The plain-loop GEMM the kernels are tested against ===*
 *
 * No blocking, no packing, double accumulation: slow and obviously right.
 *
 *===----------------------------------------------------------------------===*/

#include "Gemm.h"
#include "Activation.h"

#include <math.h>

float onnxc_apply_activation(float x, const onnxc_sgemm_epilogue *e) {
  return e ? onnxc_activation_reference(e->activation, e->activation_alpha,
                                        e->activation_beta, x)
           : x;
}

void onnxc_sgemm_reference(int trans_a, int trans_b, size_t m, size_t n,
                           size_t k, float alpha, const float *a, ptrdiff_t lda,
                           const float *b, ptrdiff_t ldb, float beta, float *c,
                           ptrdiff_t ldc, const onnxc_sgemm_epilogue *e) {
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (size_t p = 0; p < k; ++p) {
        float av = trans_a ? a[p * lda + i] : a[i * lda + p];
        float bv = trans_b ? b[j * ldb + p] : b[p * ldb + j];
        sum += (double)av * bv;
      }
      float *out = &c[i * ldc + j];
      float v = alpha * (float)sum;
      if (beta != 0.0f)
        v += beta * *out;
      if (e && e->bias)
        v += e->bias_scale * e->bias[(ptrdiff_t)i * e->bias_row_stride +
                                     (ptrdiff_t)j * e->bias_col_stride];
      if (e && e->residual)
        v += e->residual[(ptrdiff_t)i * e->residual_ld + j];
      *out = onnxc_apply_activation(v, e);
    }
  }
}
