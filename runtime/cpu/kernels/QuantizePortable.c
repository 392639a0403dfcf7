/*===- QuantizePortable.c - Rows of dynamic quantization (portable)
 *---------------===*
 *
 * QuantizeImpl.h compiled for portable (runtime/cpu/CMakeLists.txt); Quantize.c
 * picks the table that matches the GEMM's ISA.
 *
 *===----------------------------------------------------------------------===*/

#define QUANTIZE_ROWS onnxc_quantize_rows_portable
#include "QuantizeImpl.h"
