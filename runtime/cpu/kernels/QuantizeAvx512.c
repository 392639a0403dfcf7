/*===- QuantizeAvx512.c - Rows of dynamic quantization (avx512)
 *---------------===*
 *
 * QuantizeImpl.h compiled for avx512 (runtime/cpu/CMakeLists.txt); Quantize.c
 * picks the table that matches the GEMM's ISA.
 *
 *===----------------------------------------------------------------------===*/

#define QUANTIZE_ROWS onnxc_quantize_rows_avx512
#include "QuantizeImpl.h"
