/*===- QGemmReference.c - The plain loop the int8 GEMM is tested against --===*/

#include "QGemm.h"

#include <math.h>

void onnxc_qgemm_reference(size_t m, size_t n, size_t k, const void *b,
                           ptrdiff_t b_rs, ptrdiff_t b_cs, int b_signed,
                           const onnxc_qgemm_params *p) {
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      int64_t b_zero =
          p->b_zero_point
              ? p->b_zero_point[(ptrdiff_t)j * p->b_zero_point_stride]
              : 0;
      int64_t sum = 0;
      for (size_t q = 0; q < k; ++q) {
        ptrdiff_t ai = (ptrdiff_t)i * p->lda + (ptrdiff_t)q;
        ptrdiff_t bi = (ptrdiff_t)q * b_rs + (ptrdiff_t)j * b_cs;
        int64_t av = p->a_signed ? ((const int8_t *)p->a)[ai]
                                 : ((const uint8_t *)p->a)[ai];
        int64_t bv =
            b_signed ? ((const int8_t *)b)[bi] : ((const uint8_t *)b)[bi];
        sum += (av - p->a_zero_point) * (bv - b_zero);
      }
      int32_t acc = (int32_t)(uint32_t)(uint64_t)sum;
      ptrdiff_t ci = (ptrdiff_t)i * p->ldc + (ptrdiff_t)j;
      if (p->output == ONNXC_QGEMM_OUTPUT_S32) {
        ((int32_t *)p->c)[ci] = acc;
      } else if (p->output == ONNXC_QGEMM_OUTPUT_Q8) {
        /* ONNX Runtime's requantization, written out (QGemm.h). */
        float v = (float)(int32_t)((uint32_t)acc + (uint32_t)p->q_bias[j]) *
                  p->q_scale[j];
        int32_t zero = p->y_zero_point;
        float lo = (float)((p->y_signed ? -128 : 0) - zero);
        float hi = (float)((p->y_signed ? 127 : 255) - zero);
        v = v >= lo ? (v <= hi ? v : hi) : lo;
        ((uint8_t *)p->c)[ci] = (uint8_t)((int32_t)nearbyintf(v) + zero);
      } else {
        float scale = p->a_scale * p->b_scale[(ptrdiff_t)j * p->b_scale_stride];
        float y = (float)acc * scale;
        if (p->bias)
          y += p->bias[j];
        ((float *)p->c)[ci] = y;
      }
    }
}
