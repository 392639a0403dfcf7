/*===- QGemmKernels.h - The 8-bit micro-kernel interface (private) --------===*
 *
 * K is cut into groups of `group` values that one 32-bit lane holds: four
 * bytes for the 8-bit kernels, two int16 for the 16-bit one. A packed
 * panel of A is MR rows, group after group, each row's group one 32-bit
 * word: a[(g * MR + r) * 4 bytes]. A packed panel of B is NR columns,
 * group after group: b[(g * NR + c) * 4 bytes]. A holds s8 values
 * (-128..127), B u8 values (0..255), widened to int16 for 16-bit kernels;
 * padding is zero. (So A, read one word at a time, is the signed operand
 * of vpdpbusd, which is the one it can broadcast from memory.) A micro-kernel
 *writes the full MR x NR tile of sums (row stride NR) into `c`; `mr` says how
 *many rows are real (it may skip the rest).
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_KERNELS_QGEMMKERNELS_H
#define ONNXC_RUNTIME_CPU_KERNELS_QGEMMKERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*onnxc_qgemm_ukernel_fn)(size_t groups, const void *a,
                                       const void *b, int32_t *c, size_t mr);

/* The epilogue of one tile: rows x cols of `tile` (row stride NR) plus the
 * zero-point terms (col_term[c], and -b_zero[c] * row_sum[r] when
 * row_terms), then C's element at (i0 + r, j0 + c) as params->output says
 * (F32: times scale[c], plus params->bias[j0 + c]). Sums wrap. */
typedef void (*onnxc_qgemm_store_fn)(int32_t *tile, size_t rows, size_t cols,
                                     const int32_t *row_sum,
                                     const uint32_t *col_term,
                                     const int32_t *b_zero, int row_terms,
                                     const float *scale,
                                     const struct onnxc_qgemm_params *params,
                                     size_t i0, size_t j0);

typedef struct onnxc_qgemm_variant {
  int isa; /* onnxc_qgemm_isa */
  size_t mr, nr;
  size_t group;        /* K values per 32-bit lane: 4 or 2 */
  size_t element_size; /* bytes per packed value: 1 or 2 */
  onnxc_qgemm_ukernel_fn kernel;
  onnxc_qgemm_store_fn store; /* QGemmStoreImpl.h for the kernel's ISA */
} onnxc_qgemm_variant;

extern const onnxc_qgemm_variant onnxc_qgemm_portable_variant;
#if ONNXC_HAVE_X86_KERNELS
extern const onnxc_qgemm_variant onnxc_qgemm_avx2_variant;
extern const onnxc_qgemm_variant onnxc_qgemm_avx512_vnni_variant;
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ONNXC_RUNTIME_CPU_KERNELS_QGEMMKERNELS_H */
