/*===- Activation.h - Fused activations on blocks of floats ---------------===*
 *
 * The epilogue activations of the GEMM and convolution kernels
 * (onnxc_activation in Gemm.h) applied in place to a strided block of rows,
 * vectorized for AVX-512, AVX2/FMA and portable C, chosen at run time with
 * the GEMM's ISA (onnxc_sgemm_current_isa, so onnxc_sgemm_force_isa switches
 * these too). Exp, tanh and erf are polynomial approximations within a few
 * ulp of libm's; each activation keeps the value its formula takes in IEEE
 * arithmetic at +-inf and NaN (NaN in, NaN out).
 *
 * Private to onnxc: the kernels call it; the unit tests compare every ISA
 * with the reference.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_KERNELS_ACTIVATION_H
#define ONNXC_RUNTIME_CPU_KERNELS_ACTIVATION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y[i * ld + j] = activation(y[i * ld + j]) for i < rows, j < cols, with
 * `kind` an onnxc_activation and alpha, beta its parameters (Gemm.h). */
void onnxc_activation_apply(int32_t kind, float alpha, float beta, float *y,
                            size_t rows, size_t cols, ptrdiff_t ld);

/* The same with libm (erff, expf, tanhf), one value at a time. */
void onnxc_activation_apply_reference(int32_t kind, float alpha, float beta,
                                      float *y, size_t rows, size_t cols,
                                      ptrdiff_t ld);
float onnxc_activation_reference(int32_t kind, float alpha, float beta,
                                 float x);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ONNXC_RUNTIME_CPU_KERNELS_ACTIVATION_H */
