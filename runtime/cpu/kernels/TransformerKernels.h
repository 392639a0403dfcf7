/*===- TransformerKernels.h - Per-ISA row kernels (private) ----------------===*
 *
 * The per-ISA implementations behind onnxc_softmax_row and
 * onnxc_layer_norm_row (see Transformer.h for their contracts).
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_KERNELS_TRANSFORMERKERNELS_H
#define ONNXC_RUNTIME_CPU_KERNELS_TRANSFORMERKERNELS_H

#include <stddef.h>

typedef struct onnxc_row_kernels {
  void (*softmax)(size_t n, const float *x, const float *bias, float *y,
                  int zero_masked);
  void (*layer_norm)(size_t n, const float *x, const float *skip,
                     const float *bias, const float *gamma, const float *beta,
                     float epsilon, float *y, float *sum);
} onnxc_row_kernels;

extern const onnxc_row_kernels onnxc_row_kernels_portable;
#if ONNXC_HAVE_X86_KERNELS
extern const onnxc_row_kernels onnxc_row_kernels_avx2;
extern const onnxc_row_kernels onnxc_row_kernels_avx512;
#endif

#endif /* ONNXC_RUNTIME_CPU_KERNELS_TRANSFORMERKERNELS_H */
