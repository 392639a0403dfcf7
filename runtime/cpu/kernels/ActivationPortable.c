/*===- ActivationPortable.c - Activation rows, portable C ------------------===*
 *
 * ActivationImpl.h with 4-float vectors and the target's baseline ISA
 * (SSE2 on x86-64, AdvSIMD on AArch64): the fallback on every CPU.
 *
 *===----------------------------------------------------------------------===*/

#define ACT_LANES 4
#define ACT_FUNCTION onnxc_activation_row_portable
#include "ActivationImpl.h"
