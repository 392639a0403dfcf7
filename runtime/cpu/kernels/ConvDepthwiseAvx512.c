/*===- ConvDepthwiseAvx512.c - Depthwise plane kernel, avx512 --------------===*
 *
 * ConvDepthwiseImpl.h with 16-float vectors, compiled for avx512
 * (runtime/cpu/CMakeLists.txt); Conv.c calls it only when the CPU has it.
 *
 *===----------------------------------------------------------------------===*/

#define DW_LANES 16
#define DW_FUNCTION onnxc_dw_plane_avx512
#include "ConvDepthwiseImpl.h"
