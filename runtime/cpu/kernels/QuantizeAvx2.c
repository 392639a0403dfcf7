/*===- QuantizeAvx2.c - Rows of dynamic quantization (avx2) ---------------===*
 *
 * QuantizeImpl.h compiled for avx2 (runtime/cpu/CMakeLists.txt); Quantize.c
 * picks the table that matches the GEMM's ISA.
 *
 *===----------------------------------------------------------------------===*/

#define QUANTIZE_ROWS onnxc_quantize_rows_avx2
#include "QuantizeImpl.h"
