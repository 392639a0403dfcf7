/*===- ActivationKernels.h - Per-ISA activation rows (private) ------------===*
 *
 * onnxc_activation_row_<isa>(kind, alpha, beta, y, n) applies activation
 * `kind` to y[0, n) in place (see Activation.h). The convolution kernels of
 * one ISA call theirs directly; everything else goes through
 * onnxc_activation_apply.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_KERNELS_ACTIVATIONKERNELS_H
#define ONNXC_RUNTIME_CPU_KERNELS_ACTIVATIONKERNELS_H

#include <stddef.h>
#include <stdint.h>

typedef void (*onnxc_activation_row_fn)(int32_t kind, float alpha, float beta,
                                        float *y, size_t n);

void onnxc_activation_row_portable(int32_t kind, float alpha, float beta,
                                   float *y, size_t n);
#if ONNXC_HAVE_X86_KERNELS
void onnxc_activation_row_avx2(int32_t kind, float alpha, float beta, float *y,
                               size_t n);
void onnxc_activation_row_avx512(int32_t kind, float alpha, float beta,
                                 float *y, size_t n);
#endif

#endif /* ONNXC_RUNTIME_CPU_KERNELS_ACTIVATIONKERNELS_H */
