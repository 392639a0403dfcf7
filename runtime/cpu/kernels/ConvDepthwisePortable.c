/*===- ConvDepthwisePortable.c - Depthwise plane kernel, portable ----------===*
 *
 * ConvDepthwiseImpl.h with 4-float vectors, compiled for portable
 * (runtime/cpu/CMakeLists.txt); Conv.c calls it only when the CPU has it.
 *
 *===----------------------------------------------------------------------===*/

#define DW_LANES 4
#define DW_FUNCTION onnxc_dw_plane_portable
#include "ConvDepthwiseImpl.h"
