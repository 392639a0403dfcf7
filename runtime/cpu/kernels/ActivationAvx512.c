/*===- ActivationAvx512.c - Activation rows, AVX-512 -----------------------===*
 *
 * ActivationImpl.h with 16-float vectors, compiled with -mavx512f
 * (runtime/cpu/CMakeLists.txt); Activation.c calls it only when the GEMM
 * runs AVX-512 (so the CPU has it).
 *
 *===----------------------------------------------------------------------===*/

#define ACT_LANES 16
#define ACT_FUNCTION onnxc_activation_row_avx512
#include "ActivationImpl.h"
