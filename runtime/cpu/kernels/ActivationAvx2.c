/*===- ActivationAvx2.c - Activation rows, AVX2/FMA ------------------------===*
 *
 * ActivationImpl.h with 8-float vectors, compiled with -mavx2 -mfma
 * (runtime/cpu/CMakeLists.txt); Activation.c calls it only when the GEMM
 * runs AVX2 (so the CPU has it).
 *
 *===----------------------------------------------------------------------===*/

#define ACT_LANES 8
#define ACT_FUNCTION onnxc_activation_row_avx2
#include "ActivationImpl.h"
