/*===- GemmKernels.h - The micro-kernel interface (private) ----------------===*
 *
 * A micro-kernel multiplies one packed MR x kc panel of A (column after
 * column: a[p * MR + r]) by one packed kc x NR panel of B (row after row:
 * b[p * NR + c]) and stores the top-left mr x nr corner of the result:
 *   C[r][c] = alpha * sum + beta * C[r][c]   (beta == 0: C is not read).
 * Panels are zero-padded to MR and NR, so the kernel always computes a full
 * tile. C is row-major with leading dimension ldc.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_KERNELS_GEMMKERNELS_H
#define ONNXC_RUNTIME_CPU_KERNELS_GEMMKERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*onnxc_sgemm_ukernel_fn)(size_t kc, const float *a,
                                       const float *b, float *c, ptrdiff_t ldc,
                                       size_t mr, size_t nr, float alpha,
                                       float beta);

/* The kernel for a B packed once (a model's weights), which comes from
 * memory rather than from a block just packed into L2. As its k loop runs
 * it also fetches lines into L2 from `next`: at step p the two lines at
 * next + p * next_step bytes (NULL: none). The caller points `next` at the
 * panel it reads after this one, in the share of it this call should
 * fetch, so that the fetch from memory is spread over the calls that
 * precede that panel's first use. */
typedef void (*onnxc_sgemm_streamed_fn)(size_t kc, const float *a,
                                        const float *b, float *c, ptrdiff_t ldc,
                                        size_t mr, size_t nr, float alpha,
                                        float beta, const float *next,
                                        size_t next_step);

/* A few rows of C without packing: B is read once, straight from the
 * caller's memory.
 *   C[i][j] = alpha * sum_p A[i][p] B[p][j] + beta * C[i][j]
 * (beta == 0: C is not read), A[i][p] = a[i * a_rs + p * a_cs].
 * small_n: B[p][j] = b[p * ldb + j] (rows of B scaled and summed), used up
 *          to ONNXC_SGEMM_SMALL_M_N rows (past that, the passes over B
 *          that the accumulator registers force cost more than packing);
 * small_t: B[p][j] = b[j * ldb + p] and a_cs == 1 (dot products along K,
 *          PyTorch's Linear: Gemm with transB = 1), used up to
 *          ONNXC_SGEMM_SMALL_M_T rows: packing an [N, K] B costs more than
 *          a few more passes over it. */
enum { ONNXC_SGEMM_SMALL_M_N = 4, ONNXC_SGEMM_SMALL_M_T = 16 };

typedef void (*onnxc_sgemm_small_fn)(size_t m, size_t n, size_t k, float alpha,
                                     const float *a, ptrdiff_t a_rs,
                                     ptrdiff_t a_cs, const float *b,
                                     ptrdiff_t ldb, float beta, float *c,
                                     ptrdiff_t ldc);

/* A micro-kernel with its tile and cache-block sizes. */
typedef struct onnxc_sgemm_variant {
  int isa; /* onnxc_sgemm_isa */
  size_t mr, nr;
  size_t mc, kc, nc; /* block sizes: MC, NC multiples of MR, NR */
  onnxc_sgemm_ukernel_fn kernel;
  /* The small-M kernels; NULL: the portable ones. */
  onnxc_sgemm_small_fn small_n, small_t;
  /* `kernel` for a B packed once (onnxc_sgemm_streamed_fn); NULL: kernel. */
  onnxc_sgemm_streamed_fn streamed_kernel;
} onnxc_sgemm_variant;

extern const onnxc_sgemm_variant onnxc_sgemm_portable_variant;
#if ONNXC_HAVE_X86_KERNELS
extern const onnxc_sgemm_variant onnxc_sgemm_avx2_variant;
extern const onnxc_sgemm_variant onnxc_sgemm_avx512_variant;
#endif
#if ONNXC_HAVE_NEON_KERNELS
extern const onnxc_sgemm_variant onnxc_sgemm_neon_variant;
#endif

/* The variant of `isa` (onnxc_sgemm_isa), or NULL when this CPU or build
 * lacks it: for the micro-kernel benchmark (bench/gemm). */
const onnxc_sgemm_variant *onnxc_sgemm_variant_for_isa(int32_t isa);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ONNXC_RUNTIME_CPU_KERNELS_GEMMKERNELS_H */
