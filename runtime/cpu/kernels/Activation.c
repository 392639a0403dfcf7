/*===- Activation.c - Dispatch of the activation rows ---------------------===*
 *
 * The rows follow the GEMM's ISA (onnxc_sgemm_current_isa), which has
 * already checked the CPU.
 *
 *===----------------------------------------------------------------------===*/

#include "Activation.h"
#include "ActivationKernels.h"
#include "Gemm.h"

static onnxc_activation_row_fn activation_row(void) {
  switch (onnxc_sgemm_current_isa()) {
#if ONNXC_HAVE_X86_KERNELS
  case ONNXC_SGEMM_ISA_AVX512:
    return onnxc_activation_row_avx512;
  case ONNXC_SGEMM_ISA_AVX2:
    return onnxc_activation_row_avx2;
#endif
  default:
    return onnxc_activation_row_portable;
  }
}

void onnxc_activation_apply(int32_t kind, float alpha, float beta, float *y,
                            size_t rows, size_t cols, ptrdiff_t ld) {
  if (kind == ONNXC_ACTIVATION_NONE || !rows || !cols)
    return;
  onnxc_activation_row_fn row = activation_row();
  if ((ptrdiff_t)cols == ld) {
    row(kind, alpha, beta, y, rows * cols);
    return;
  }
  for (size_t i = 0; i < rows; ++i)
    row(kind, alpha, beta, y + (ptrdiff_t)i * ld, cols);
}
