/*===- QGemmStoreImpl.h - The int8 GEMM's tile epilogue, one ISA ----------===*
 *
 * Included by each micro-kernel's file (QGemmPortable.c, QGemmAvx2.c,
 * QGemmAvx512Vnni.c) with QGEMM_STORE set to the function's name and
 * QGEMM_NR to its tile width (and optionally QGEMM_REQUANTIZE_ROW to its
 * own 8-bit requantization of a row), so that the loops are widened to
 * that file's ISA (SSE2 alone has no 32-bit multiply: the row terms cost as
 *much as the products there). Those files are compiled with -ffp-contract=off:
 *the f32 output rounds its multiply and its add apart, as the Mul and Add nodes
 *it stands for.
 *
 *===----------------------------------------------------------------------===*/

#include "QGemm.h"

static void QGEMM_STORE(int32_t *tile, size_t rows, size_t cols,
                        const int32_t *row_sum, const uint32_t *col_term,
                        const int32_t *b_zero, int row_terms,
                        const float *scale, const onnxc_qgemm_params *p,
                        size_t i0, size_t j0) {
  for (size_t r = 0; r < rows; ++r) {
    uint32_t sum = (uint32_t)row_sum[r];
    int32_t *acc = tile + r * QGEMM_NR;
    int32_t *out = p->output == ONNXC_QGEMM_OUTPUT_S32
                       ? (int32_t *)p->c + (ptrdiff_t)(i0 + r) * p->ldc + j0
                       : acc; /* corrected in place, then converted */
    if (row_terms)
      for (size_t c = 0; c < cols; ++c)
        out[c] = (int32_t)((uint32_t)acc[c] + col_term[c] -
                           (uint32_t)b_zero[c] * sum);
    else
      for (size_t c = 0; c < cols; ++c)
        out[c] = (int32_t)((uint32_t)acc[c] + col_term[c]);
    if (p->output == ONNXC_QGEMM_OUTPUT_S32)
      continue;
    if (p->output == ONNXC_QGEMM_OUTPUT_Q8) {
      const float *q_scale = p->q_scale + j0;
      const int32_t *q_bias = p->q_bias + j0;
      uint8_t *y = (uint8_t *)p->c + (ptrdiff_t)(i0 + r) * p->ldc + j0;
#ifdef QGEMM_REQUANTIZE_ROW
      /* The ISA's own loop, for the same bytes (RequantizeAvx512.h). */
      QGEMM_REQUANTIZE_ROW(acc, cols, q_bias, q_scale, p, y);
#else
      const int32_t lo = p->y_signed ? -128 : 0, hi = p->y_signed ? 127 : 255;
      for (size_t c = 0; c < cols; ++c)
        y[c] = onnxc_requantize(acc[c], q_bias[c], q_scale[c], p->y_zero_point,
                                lo, hi);
#endif
      continue;
    }
    float *y = (float *)p->c + (ptrdiff_t)(i0 + r) * p->ldc + j0;
    if (p->bias) {
      const float *bias = p->bias + j0;
      for (size_t c = 0; c < cols; ++c)
        y[c] = (float)acc[c] * scale[c] + bias[c];
    } else {
      for (size_t c = 0; c < cols; ++c)
        y[c] = (float)acc[c] * scale[c];
    }
  }
}
