/*===- QGemm.h - 8-bit integer GEMM with packed weights -------------------===*
 *
 *   acc[i][j] = sum_p (A[i][p] - a_zero_point) * (B[p][j] - b_zero_point[j])
 *
 * in int32 (wrapping, as ONNX's MatMulInteger), with A and B each u8 or s8,
 * then one epilogue: acc itself (s32), or acc * a_scale * b_scale[j] +
 * bias[j] as f32 (dynamic quantization's MatMulIntegerToFloat). B (a
 * weight) is packed once for the running micro-kernel with its column
 * sums; the kernels multiply u8 by s8 (an s8 A and a u8 B are shifted by
 * 128, and their zero points with them), and the zero points come in as
 * row and column corrections in the epilogue, so the inner loop is plain
 * products. Results are exact: no kernel saturates an intermediate (unlike
 * AVX2's vpmaddubsw), so every ISA gives the same bits.
 *
 * Private to onnxc: lowered MatMulInteger calls it through
 * runtime/cpu/MatMulInteger.c; the unit tests and the benchmark call it
 * directly.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_KERNELS_QGEMM_H
#define ONNXC_RUNTIME_CPU_KERNELS_QGEMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum onnxc_qgemm_isa {
  ONNXC_QGEMM_ISA_AUTO = 0, /* the best the CPU supports */
  ONNXC_QGEMM_ISA_PORTABLE = 1,
  ONNXC_QGEMM_ISA_AVX2 = 2,       /* 16-bit products (vpmaddwd) */
  ONNXC_QGEMM_ISA_AVX512_VNNI = 3 /* u8 x s8 dot products (vpdpbusd) */
} onnxc_qgemm_isa;

typedef enum onnxc_qgemm_output_kind {
  ONNXC_QGEMM_OUTPUT_S32 = 0,
  ONNXC_QGEMM_OUTPUT_F32 = 1,
  ONNXC_QGEMM_OUTPUT_Q8 = 2 /* requantized to u8 or s8 */
} onnxc_qgemm_output_kind;

/* One product's A, zero points and output. */
typedef struct onnxc_qgemm_params {
  const void *a; /* M x K bytes: A[i][p] = a[i * lda + p] */
  ptrdiff_t lda;
  int a_signed;         /* A holds s8 (else u8) */
  int32_t a_zero_point; /* in A's type's range */
  /* B's zero point for column j: b_zero_point[j * b_zero_point_stride]
   * (stride 0: one for all), in B's type's range; NULL: 0. */
  const int32_t *b_zero_point;
  ptrdiff_t b_zero_point_stride;
  int32_t output; /* onnxc_qgemm_output_kind */
  void *c;        /* M x N int32_t or float, row stride ldc elements */
  ptrdiff_t ldc;
  /* F32 output: C = (float)acc * (a_scale * b_scale[j * b_scale_stride])
   * + bias[j] (bias NULL: none). */
  float a_scale;
  const float *b_scale;
  ptrdiff_t b_scale_stride;
  const float *bias;
  /* Q8 output (QLinearConv / QLinearMatMul): C (bytes) =
   * onnxc_requantize(acc, q_bias[j], q_scale[j], ...): s8 when y_signed,
   * else u8. q_bias[j] is the int32 bias (0 without one). */
  const float *q_scale;
  const int32_t *q_bias;
  int32_t y_zero_point;
  int y_signed;
} onnxc_qgemm_params;

/* One requantized 8-bit output as ONNX Runtime computes it (MLAS's
 * requantization, which its QLinearConv, QLinearMatMul and depthwise
 * kernels share): v = (float)(acc + bias) * scale in f32, clamped to
 * [lo - zero, hi - zero], rounded half to even, plus zero; [lo, hi] is the
 * output type's range. The ONNX reference computes the product in f64; the
 * two differ by one step where the f32 product rounds across a half
 * (docs/internals.md). Inline so that loops over it vectorize; their files
 * are compiled with -ffp-contract=off. A NaN scale gives lo. */
static inline uint8_t onnxc_requantize(int32_t acc, int32_t bias, float scale,
                                       int32_t zero, int32_t lo, int32_t hi) {
  const float magic = 12582912.0f; /* 1.5 * 2^23: rounds |v| < 2^22 */
  float v = (float)(int32_t)((uint32_t)acc + (uint32_t)bias) * scale;
  float low = (float)(lo - zero), high = (float)(hi - zero);
  v = v >= low ? v : low;
  v = v <= high ? v : high;
  v = (v + magic) - magic;
  return (uint8_t)((int32_t)v + zero);
}

/* A K x N B packed for a micro-kernel (opaque). */
typedef struct onnxc_qgemm_packed_b onnxc_qgemm_packed_b;

/* Packs B[p][j] = b[p * b_rs + j * b_cs] (s8 when b_signed, else u8) for
 * the running micro-kernel. NULL when out of memory. */
onnxc_qgemm_packed_b *onnxc_qgemm_pack_b(size_t k, size_t n, const void *b,
                                         ptrdiff_t b_rs, ptrdiff_t b_cs,
                                         int b_signed);
void onnxc_qgemm_free_packed_b(onnxc_qgemm_packed_b *packed);

/* The copy of this B in `*slot` (a zero-initialized pointer kept by the
 * caller, one per call site; accessed atomically): packed and published on
 * first use, freed when the program or artifact unloads. NULL when the
 * slot holds another B or another micro-kernel's copy (a forced ISA), or
 * memory runs out: the caller then packs for itself. Safe from many
 * threads. */
const onnxc_qgemm_packed_b *
onnxc_qgemm_packed_b_cached(onnxc_qgemm_packed_b **slot, size_t k, size_t n,
                            const void *b, ptrdiff_t b_rs, ptrdiff_t b_cs,
                            int b_signed);

/* C (M x N) = the product of `params`' A with the packed B, through the
 * epilogue. Uses up to `max_threads` threads of the pool (<= 0: all).
 * Returns 0, or -1 when out of memory for packing A (nothing written). */
int onnxc_qgemm(size_t m, const onnxc_qgemm_packed_b *b,
                const onnxc_qgemm_params *params, int max_threads);

/* The plain loop (int64 sums, then wrapped to int32) everything is tested
 * against; B as for onnxc_qgemm_pack_b. */
void onnxc_qgemm_reference(size_t m, size_t n, size_t k, const void *b,
                           ptrdiff_t b_rs, ptrdiff_t b_cs, int b_signed,
                           const onnxc_qgemm_params *params);

/* Whether this build has `isa` and the CPU runs it. */
int onnxc_qgemm_isa_supported(int32_t isa);
/* Makes later packing use `isa` (AUTO: the best). 0 when unsupported.
 * Not thread-safe: a test hook. */
int onnxc_qgemm_force_isa(int32_t isa);
const char *onnxc_qgemm_isa_name(int32_t isa);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ONNXC_RUNTIME_CPU_KERNELS_QGEMM_H */
