/*===- ConvDepthwiseAvx2.c - Depthwise plane kernel, avx2 ------------------===*
 *
 * ConvDepthwiseImpl.h with 8-float vectors, compiled for avx2
 * (runtime/cpu/CMakeLists.txt); Conv.c calls it only when the CPU has it.
 *
 *===----------------------------------------------------------------------===*/

#define DW_LANES 8
#define DW_FUNCTION onnxc_dw_plane_avx2
#include "ConvDepthwiseImpl.h"
