/*===- DynamicQuantize.c - DynamicQuantizeLinear of lowered code ----------===*
 *
 * The CPU lowering (targets/cpu/lowering/DynamicQuantizeCall.cpp) turns an
 * f32 onnx.DynamicQuantizeLinear into one call here: the two passes of
 * kernels/Quantize.h over the dense input, in place of a scalar reduction
 * and a rounding call per element.
 *
 *===----------------------------------------------------------------------===*/

#include "CpuRuntime.h"
#include "MemrefView.h"
#include "kernels/Quantize.h"

int32_t _mlir_ciface_onnxc_rt_dynamic_quantize_f32(onnxc_unranked_memref *x_ref,
                                                   onnxc_unranked_memref *y_ref,
                                                   onnxc_memref1 *params) {
  onnxc_byte_view x, y;
  if (!params || params->size < 2 || !onnxc_read_byte_view(x_ref, 4, &x) ||
      !onnxc_read_byte_view(y_ref, 1, &y) || x.rank != y.rank)
    return ONNXC_KERNEL_BAD_OPERANDS;
  float *out = (float *)params->aligned + params->offset;
  int64_t count = 1;
  for (int d = 0; d < x.rank; ++d) {
    if (x.size[d] != y.size[d])
      return ONNXC_KERNEL_BAD_OPERANDS;
    count *= x.size[d];
  }
  /* The lowering passes identity-layout buffers: dense. */
  float scale;
  uint8_t zero_point;
  onnxc_dynamic_quantize_u8((const float *)x.data, (size_t)count,
                            (uint8_t *)y.data, &scale, &zero_point);
  out[0] = scale;
  out[1] = (float)zero_point;
  return ONNXC_KERNEL_OK;
}
