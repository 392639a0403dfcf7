/*===- GemmPackedLayout.h - Where each element of a packed B lives --------===*
 *
 * The GEMM (Gemm.c) multiplies panels of B packed for its micro-kernel. A
 * whole packed B (a weight) is laid out block by block, as the compute
 * tasks read it:
 *
 *   for jc in N by NC:              block column: NC columns (the last fewer)
 *     for pc in K by KC:            block row: KC rows (the last fewer)
 *       for each NR-wide panel q:   its kc rows of NR floats, zero-padded
 *
 * so op(B)[p][j] is at jc * K + panels(jc) * NR * pc + q * NR * kc
 * + (p - pc) * NR + (j - jc - q * NR), where panels(jc) is the number of
 * NR panels in block column jc and kc the height of block row pc.
 *
 * Only NR, KC and NC decide the layout; they are an ISA's micro-kernel
 * parameters and are defined here, once, for the ISAs the compiler packs
 * for: the variants (GemmAvx512.c, GemmAvx2.c, GemmNeon.c) take them from
 * here, and the compiler (targets/cpu/transforms/PrepackGemmWeights.cpp)
 * includes this header to pack constant weights at compile time, so an
 * artifact's first run does not. Plain C, usable from C++.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_KERNELS_GEMMPACKEDLAYOUT_H
#define ONNXC_RUNTIME_CPU_KERNELS_GEMMPACKEDLAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* The micro-kernel and block parameters that fix each ISA's layout. */
enum {
  ONNXC_SGEMM_AVX512_NR = 32,
  ONNXC_SGEMM_AVX512_KC = 384,
  ONNXC_SGEMM_AVX512_NC = 1024,
  ONNXC_SGEMM_AVX2_NR = 16,
  ONNXC_SGEMM_AVX2_KC = 256,
  ONNXC_SGEMM_AVX2_NC = 1024,
  ONNXC_SGEMM_NEON_NR = 8,
  ONNXC_SGEMM_NEON_KC = 256,
  ONNXC_SGEMM_NEON_NC = 512
};

typedef struct onnxc_sgemm_b_layout {
  size_t nr, kc, nc;
} onnxc_sgemm_b_layout;

/* The layout of ISA `isa` (onnxc_sgemm_isa in Gemm.h: 2 AVX2, 3 AVX-512,
 * 4 NEON). 0 for an ISA whose layout is not fixed here (the portable
 * kernel's NR depends on how the runtime was compiled). */
static inline int onnxc_sgemm_b_layout_for_isa(int32_t isa,
                                               onnxc_sgemm_b_layout *out) {
  switch (isa) {
  case 2:
    out->nr = ONNXC_SGEMM_AVX2_NR;
    out->kc = ONNXC_SGEMM_AVX2_KC;
    out->nc = ONNXC_SGEMM_AVX2_NC;
    return 1;
  case 3:
    out->nr = ONNXC_SGEMM_AVX512_NR;
    out->kc = ONNXC_SGEMM_AVX512_KC;
    out->nc = ONNXC_SGEMM_AVX512_NC;
    return 1;
  case 4:
    out->nr = ONNXC_SGEMM_NEON_NR;
    out->kc = ONNXC_SGEMM_NEON_KC;
    out->nc = ONNXC_SGEMM_NEON_NC;
    return 1;
  default:
    return 0;
  }
}

/* Floats in a packed K x N B: every panel is NR wide. */
static inline size_t onnxc_sgemm_packed_b_floats(const onnxc_sgemm_b_layout *l,
                                                 size_t n, size_t k) {
  return (n + l->nr - 1) / l->nr * l->nr * k;
}

/* The index of op(B)[p][j] in a packed K x N B. */
static inline size_t onnxc_sgemm_packed_b_index(const onnxc_sgemm_b_layout *l,
                                                size_t n, size_t k, size_t p,
                                                size_t j) {
  size_t jc = j / l->nc * l->nc, pc = p / l->kc * l->kc;
  size_t width = n - jc < l->nc ? n - jc : l->nc;
  size_t height = k - pc < l->kc ? k - pc : l->kc;
  size_t panels = (width + l->nr - 1) / l->nr;
  size_t q = (j - jc) / l->nr;
  return jc * k + panels * l->nr * pc + q * l->nr * height + (p - pc) * l->nr +
         (j - jc - q * l->nr);
}

/* Packs op(B) (K x N; op(B)[p][j] = b[p * row_stride + j * col_stride]) into
 * `dst` (onnxc_sgemm_packed_b_floats of them), block by block in the order
 * described above: the plain definition of the layout, which the runtime's
 * packing is tested against and the compiler packs weights with. */
static inline void onnxc_sgemm_pack_b_layout(const onnxc_sgemm_b_layout *l,
                                             const float *b, size_t n, size_t k,
                                             ptrdiff_t row_stride,
                                             ptrdiff_t col_stride, float *dst) {
  for (size_t jc = 0; jc < n; jc += l->nc) {
    size_t width = n - jc < l->nc ? n - jc : l->nc;
    for (size_t pc = 0; pc < k; pc += l->kc) {
      size_t height = k - pc < l->kc ? k - pc : l->kc;
      for (size_t j0 = jc; j0 < jc + width; j0 += l->nr)
        for (size_t p = pc; p < pc + height; ++p)
          for (size_t c = 0; c < l->nr; ++c, ++dst)
            *dst = j0 + c < jc + width ? b[(ptrdiff_t)p * row_stride +
                                           (ptrdiff_t)(j0 + c) * col_stride]
                                       : 0.0f;
    }
  }
}

#endif /* ONNXC_RUNTIME_CPU_KERNELS_GEMMPACKEDLAYOUT_H */
