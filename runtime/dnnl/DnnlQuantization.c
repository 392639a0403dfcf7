/*===- DnnlQuantization.c - What the dnnl glue's int8 calls share ---------===*
 *
 * Reading the scales and zero points of ONNX's quantized ops (QLinearConv,
 * QLinearMatMul, MatMulInteger) into the values oneDNN's attributes take,
 * and whether oneDNN's int8 kernels are exact on this CPU.
 *
 *===----------------------------------------------------------------------===*/

#include "DnnlInternal.h"

int onnxc_dnnl_zero_point(const onnxc_unranked_memref *m, int present,
                          int is_signed, int32_t *zero) {
  onnxc_dnnl_tensor t;
  *zero = 0;
  if (!present)
    return 1;
  if (!onnxc_dnnl_read_elements(m, 1, 0, 1, &t) || t.count != 1)
    return 0;
  *zero = is_signed ? *(const int8_t *)t.data : *(const uint8_t *)t.data;
  return 1;
}

int onnxc_dnnl_zero_weights(const onnxc_unranked_memref *m, int present,
                            int64_t channels) {
  onnxc_dnnl_tensor t;
  if (!present)
    return 1;
  if (!onnxc_dnnl_read_elements(m, 1, 0, 1, &t) ||
      (t.count != 1 && t.count != channels))
    return 0;
  for (int64_t i = 0; i < t.count; ++i)
    if (((const int8_t *)t.data)[i] != 0)
      return 0;
  return 1;
}

int onnxc_dnnl_output_scales(const onnxc_unranked_memref *x_ref,
                             const onnxc_unranked_memref *w_ref,
                             const onnxc_unranked_memref *y_ref,
                             int64_t channels, float *scales, int *count) {
  onnxc_dnnl_tensor xs, ws, ys;
  if (!onnxc_dnnl_read(x_ref, 0, 1, &xs) || xs.count != 1 ||
      !onnxc_dnnl_read(w_ref, 0, 1, &ws) ||
      (ws.count != 1 && ws.count != channels) ||
      !onnxc_dnnl_read(y_ref, 0, 1, &ys) || ys.count != 1)
    return 0;
  float x_scale = *(const float *)xs.data, y_scale = *(const float *)ys.data;
  const float *w_scale = ws.data;
  for (int64_t m = 0; m < ws.count; ++m)
    scales[m] = x_scale * w_scale[m] / y_scale;
  *count = (int)ws.count;
  return 1;
}

int32_t onnxc_dnnl_require_vnni(void) {
  switch (dnnl_get_effective_cpu_isa()) {
  case dnnl_cpu_isa_avx512_core_vnni:
  case dnnl_cpu_isa_avx512_core_bf16:
  case dnnl_cpu_isa_avx512_core_amx:
  case dnnl_cpu_isa_avx2_vnni:
    return 0;
  default:
    onnxc_rt_library_message(
        "oneDNN's int8 kernels are exact only on CPUs with VNNI "
        "(AVX512-VNNI or AVX-VNNI), which this one lacks; compile the "
        "model without --targets dnnl to run it here");
    return ONNXC_DNNL_ERROR_NO_VNNI;
  }
}
