/*===- Gemm.h - Packed float32 GEMM with fused epilogues ------------------===*
 *
 * C = activation(alpha * op(A) op(B) + beta * C + bias_scale * bias
 *                + residual)
 *
 * op(X) is X or its transpose. Matrices are row-major with leading
 * dimensions (lda, ldb, ldc) that may exceed their widths. The work is split
 * into KC x NC blocks of packed B (kept in L2) and MR x KC panels of packed A
 * (kept in L1), multiplied by register-blocked micro-kernels chosen at run
 * time for the CPU (AVX-512, AVX2/FMA, AArch64 NEON or portable C), and
 * spread over the runtime's thread pool (runtime/cpu/ThreadPool.h).
 *
 * Private to onnxc: the lowering of MatMul/Gemm calls it through
 * runtime/cpu/MatMul.c; the unit tests and the benchmark call it directly.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_KERNELS_GEMM_H
#define ONNXC_RUNTIME_CPU_KERNELS_GEMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The activations of onnxc.FusedMatMul / FusedGemm (compiler/dialect/onnxc). */
typedef enum onnxc_activation {
  ONNXC_ACTIVATION_NONE = 0,
  ONNXC_ACTIVATION_RELU = 1,
  ONNXC_ACTIVATION_LEAKY_RELU = 2, /* x < 0 ? alpha * x : x */
  ONNXC_ACTIVATION_CLIP = 3,       /* min(max(x, alpha), beta) */
  ONNXC_ACTIVATION_SIGMOID = 4,
  ONNXC_ACTIVATION_TANH = 5,
  ONNXC_ACTIVATION_HARD_SIGMOID = 6, /* max(0, min(1, alpha * x + beta)) */
  ONNXC_ACTIVATION_GELU = 7,         /* 0.5 x (1 + erf(x / sqrt 2)) */
  ONNXC_ACTIVATION_FAST_GELU = 8,    /* tanh approximation of Gelu */
  ONNXC_ACTIVATION_SILU = 9,         /* x * sigmoid(x) */
  ONNXC_ACTIVATION_HARD_SWISH = 10   /* x * max(0, min(1, alpha * x + beta)) */
} onnxc_activation;

/* What happens to each element after the product. A zeroed struct (or a
 * NULL pointer) means nothing. */
typedef struct onnxc_sgemm_epilogue {
  /* bias[i * bias_row_stride + j * bias_col_stride] is added to C[i][j],
   * scaled by bias_scale: row stride 0 is a per-column bias ([N]), column
   * stride 0 a per-row bias ([M]), both 0 a scalar. */
  const float *bias;
  ptrdiff_t bias_row_stride;
  ptrdiff_t bias_col_stride;
  float bias_scale;
  /* residual[i * residual_ld + j] is added before the activation. It must
   * not overlap C. */
  const float *residual;
  ptrdiff_t residual_ld;
  int32_t activation; /* onnxc_activation */
  float activation_alpha;
  float activation_beta;
} onnxc_sgemm_epilogue;

/* C (M x N) = epilogue(alpha * op(A) op(B) + beta * C). op(A) is M x K, op(B)
 * is K x N. beta == 0 never reads C (it may hold NaNs). Uses up to the thread
 * pool's thread count. */
void onnxc_sgemm(int trans_a, int trans_b, size_t m, size_t n, size_t k,
                 float alpha, const float *a, ptrdiff_t lda, const float *b,
                 ptrdiff_t ldb, float beta, float *c, ptrdiff_t ldc,
                 const onnxc_sgemm_epilogue *epilogue);

/* The same with A and B given by element strides: op(A)[i][p] is
 * a[i * a_row_stride + p * a_col_stride] (likewise B), so transposes and
 * broadcast (stride 0) operands need no copy. `max_threads` caps the threads
 * used (<= 0: the pool's count). */
void onnxc_sgemm_strided(size_t m, size_t n, size_t k, float alpha,
                         const float *a, ptrdiff_t a_row_stride,
                         ptrdiff_t a_col_stride, const float *b,
                         ptrdiff_t b_row_stride, ptrdiff_t b_col_stride,
                         float beta, float *c, ptrdiff_t ldc,
                         const onnxc_sgemm_epilogue *epilogue, int max_threads);

/* A copy of a constant B packed for the micro-kernels (opaque). */
typedef struct onnxc_sgemm_packed_b onnxc_sgemm_packed_b;

/* onnxc_sgemm_strided for a B that never changes (a weight): `slot` (NULL:
 * none) is a zero-initialized pointer kept by the caller for this B, one per
 * call site; it is only accessed atomically. The first call of more than
 * 4 rows packs all of B once into the slot (the runtime frees it at
 * unload); later calls skip B's packing. Calls of up to 4 rows read B as
 * it is. Calls with other operands than the packed ones (another
 * ISA forced, another B) pack per call as usual. Safe from many threads. */
void onnxc_sgemm_strided_cached(size_t m, size_t n, size_t k, float alpha,
                                const float *a, ptrdiff_t a_row_stride,
                                ptrdiff_t a_col_stride, const float *b,
                                ptrdiff_t b_row_stride, ptrdiff_t b_col_stride,
                                float beta, float *c, ptrdiff_t ldc,
                                const onnxc_sgemm_epilogue *epilogue,
                                int max_threads, onnxc_sgemm_packed_b **slot);

/* onnxc_sgemm_strided for a B the compiler packed (GemmPackedLayout.h) in
 * the layout of ISA `packed_isa` (onnxc_sgemm_isa): `packed_b` holds the
 * packed K x N op(B). When the running variant has that layout the product
 * reads it as it is: no packing of B at all. Otherwise (an artifact run on
 * another CPU than it was compiled for, or a forced ISA) B is repacked
 * once for this variant into `slot` (as onnxc_sgemm_strided_cached does);
 * with no slot or no memory, B is read through its layout, slowly. Safe
 * from many threads. */
void onnxc_sgemm_prepacked(size_t m, size_t n, size_t k, float alpha,
                           const float *a, ptrdiff_t a_row_stride,
                           ptrdiff_t a_col_stride, const float *packed_b,
                           int32_t packed_isa, float beta, float *c,
                           ptrdiff_t ldc, const onnxc_sgemm_epilogue *epilogue,
                           int max_threads, onnxc_sgemm_packed_b **slot);

/* The plain triple loop (double accumulation) everything is tested against. */
void onnxc_sgemm_reference(int trans_a, int trans_b, size_t m, size_t n,
                           size_t k, float alpha, const float *a, ptrdiff_t lda,
                           const float *b, ptrdiff_t ldb, float beta, float *c,
                           ptrdiff_t ldc, const onnxc_sgemm_epilogue *epilogue);

/* The activation on one value, as the kernels apply it. */
float onnxc_apply_activation(float x, const onnxc_sgemm_epilogue *epilogue);

/* ---- Micro-kernel variants (tests and the benchmark) -------------------- */

typedef enum onnxc_sgemm_isa {
  ONNXC_SGEMM_ISA_AUTO = 0, /* the best the CPU supports */
  ONNXC_SGEMM_ISA_PORTABLE = 1,
  ONNXC_SGEMM_ISA_AVX2 = 2,
  ONNXC_SGEMM_ISA_AVX512 = 3,
  ONNXC_SGEMM_ISA_NEON = 4 /* AArch64 AdvSIMD: always there on AArch64 */
} onnxc_sgemm_isa;

/* Whether this build has `isa` and the CPU runs it. */
int onnxc_sgemm_isa_supported(int32_t isa);
/* Forces every later call to use `isa` (AUTO: back to the best). Returns 0
 * when `isa` is not supported (nothing changes). Not thread-safe: a test
 * hook. */
int onnxc_sgemm_force_isa(int32_t isa);
/* The variant calls use now, and its name ("avx512", ...). */
int32_t onnxc_sgemm_current_isa(void);
const char *onnxc_sgemm_isa_name(int32_t isa);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ONNXC_RUNTIME_CPU_KERNELS_GEMM_H */
