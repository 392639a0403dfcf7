/*===- Quantize.h - Dynamic quantization of f32 activations to u8 --------===*
 *
 * ONNX DynamicQuantizeLinear: the range [min(0, min x), max(0, max x)]
 * mapped onto [0, 255],
 *   scale = range / 255 (1 / 255 when the range is empty),
 *   zero_point = round(clamp(-min / scale, 0, 255)),
 *   y = clamp(round(x / scale) + zero_point, 0, 255),
 * rounding half to even, x / scale a true division (as ONNX Runtime's):
 * the same bits as the ONNX reference. NaNs are left out of the range and
 * quantize to 0. Two passes over x (the range, then the values), each
 * spread over the thread pool, with the rows of the GEMM's ISA.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_KERNELS_QUANTIZE_H
#define ONNXC_RUNTIME_CPU_KERNELS_QUANTIZE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Quantizes x[0, count) into y; returns the scale and zero point. */
void onnxc_dynamic_quantize_u8(const float *x, size_t count, uint8_t *y,
                               float *scale, uint8_t *zero_point);

/* The same, one element at a time: what the tests compare with. */
void onnxc_dynamic_quantize_u8_reference(const float *x, size_t count,
                                         uint8_t *y, float *scale,
                                         uint8_t *zero_point);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ONNXC_RUNTIME_CPU_KERNELS_QUANTIZE_H */
