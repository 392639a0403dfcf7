/*===- QuantizeKernels.h - Rows of dynamic quantization (private) ---------===*
 *
 * One definition (QuantizeImpl.h) compiled per ISA: the min/max of a row
 * (NaNs skipped), and the quantization of a row with a given scale and
 * zero point.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_KERNELS_QUANTIZEKERNELS_H
#define ONNXC_RUNTIME_CPU_KERNELS_QUANTIZEKERNELS_H

#include <stddef.h>
#include <stdint.h>

typedef struct onnxc_quantize_rows {
  void (*range)(const float *x, size_t count, float *min, float *max);
  void (*quantize)(const float *x, size_t count, float scale, float zero_point,
                   uint8_t *y);
} onnxc_quantize_rows;

extern const onnxc_quantize_rows onnxc_quantize_rows_portable;
#if ONNXC_HAVE_X86_KERNELS
extern const onnxc_quantize_rows onnxc_quantize_rows_avx2;
extern const onnxc_quantize_rows onnxc_quantize_rows_avx512;
#endif

#endif /* ONNXC_RUNTIME_CPU_KERNELS_QUANTIZEKERNELS_H */
