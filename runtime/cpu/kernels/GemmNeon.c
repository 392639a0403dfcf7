/*===- GemmNeon.c - The AArch64 AdvSIMD micro-kernel (AArch64 only) --------===*
 *
 * A 12 x 8 tile: 24 q-register accumulators (12 rows of two 4-float
 * vectors). Each k step loads the 12 packed A values as three q registers
 * and one row of the packed B panel as two, then does 24 fmla-by-element
 * (vfmaq_laneq_f32): 24 FMAs per 5 loads, 29 of the 32 vector registers
 * live, nothing spilled. 12 x 8 rather than the equally dense 8 x 12
 * because MR = 12 and NR = 8 are tile sizes Gemm.c already packs with
 * constant-trip loops (the AVX-512 MR, the x86 portable NR), and NR = 8
 * wastes less of the N edge. The loop is 32 instructions per k step (GCC
 * 12 -O3) and is not unrolled: with two 128-bit FMA pipes the 24 fmla take
 * 12 cycles while a 4-wide front end issues all 32 in 8, and GCC's unroll
 * by 2 only traded the shared counter updates for register moves.
 *
 * AdvSIMD is part of the AArch64 base ISA, so this is the default there with
 * no run-time check. Tuned by instruction count only: no AArch64 hardware
 * timing exists for it (docs/gemm.md).
 *
 *===----------------------------------------------------------------------===*/

#include "Gemm.h"
#include "GemmKernels.h"
#include "GemmPackedLayout.h"

#include <arm_neon.h>

enum { MR = 12, NR = ONNXC_SGEMM_NEON_NR };

/* Row r of the tile += (its A value, lane l of A vector q) * the B row. */
#define FMA_ROW(r, q, l)                                                       \
  do {                                                                         \
    c##r##0 = vfmaq_laneq_f32(c##r##0, b0, a##q, l);                           \
    c##r##1 = vfmaq_laneq_f32(c##r##1, b1, a##q, l);                           \
  } while (0)

#define STORE_ROW(r)                                                           \
  do {                                                                         \
    if (r < mr) {                                                              \
      float *row = c + (ptrdiff_t)(r)*ldc;                                     \
      float32x4_t v0 = vmulq_n_f32(c##r##0, alpha);                            \
      float32x4_t v1 = vmulq_n_f32(c##r##1, alpha);                            \
      if (nr == NR) {                                                          \
        if (beta != 0.0f) {                                                    \
          v0 = vfmaq_n_f32(v0, vld1q_f32(row), beta);                          \
          v1 = vfmaq_n_f32(v1, vld1q_f32(row + 4), beta);                      \
        }                                                                      \
        vst1q_f32(row, v0);                                                    \
        vst1q_f32(row + 4, v1);                                                \
      } else {                                                                 \
        store_partial(row, nr, v0, v1, beta);                                  \
      }                                                                        \
    }                                                                          \
  } while (0)

/* The first nr (< NR) columns of one row: C is read and written only there,
 * the rest of the row may belong to someone else or be padding. */
static inline void store_partial(float *row, size_t nr, float32x4_t v0,
                                 float32x4_t v1, float beta) {
  float tile[NR];
  vst1q_f32(tile, v0);
  vst1q_f32(tile + 4, v1);
  if (beta != 0.0f) {
    for (size_t j = 0; j < nr; ++j)
      row[j] = beta * row[j] + tile[j];
  } else {
    for (size_t j = 0; j < nr; ++j)
      row[j] = tile[j];
  }
}

static void neon_12x8(size_t kc, const float *a, const float *b, float *c,
                      ptrdiff_t ldc, size_t mr, size_t nr, float alpha,
                      float beta) {
  float32x4_t c00 = vdupq_n_f32(0.0f), c01 = c00, c10 = c00, c11 = c00,
              c20 = c00, c21 = c00, c30 = c00, c31 = c00, c40 = c00, c41 = c00,
              c50 = c00, c51 = c00, c60 = c00, c61 = c00, c70 = c00, c71 = c00,
              c80 = c00, c81 = c00, c90 = c00, c91 = c00;
  float32x4_t c100 = c00, c101 = c00, c110 = c00, c111 = c00;
  /* The C tile is read (beta) and written after the loop: fetch its lines
   * now so the stores do not wait for them. */
  for (size_t r = 0; r < mr; ++r)
    __builtin_prefetch(c + (ptrdiff_t)r * ldc, 1, 3);
  for (size_t p = 0; p < kc; ++p) {
    float32x4_t a0 = vld1q_f32(a), a1 = vld1q_f32(a + 4), a2 = vld1q_f32(a + 8);
    float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4);
    FMA_ROW(0, 0, 0);
    FMA_ROW(1, 0, 1);
    FMA_ROW(2, 0, 2);
    FMA_ROW(3, 0, 3);
    FMA_ROW(4, 1, 0);
    FMA_ROW(5, 1, 1);
    FMA_ROW(6, 1, 2);
    FMA_ROW(7, 1, 3);
    FMA_ROW(8, 2, 0);
    FMA_ROW(9, 2, 1);
    FMA_ROW(10, 2, 2);
    FMA_ROW(11, 2, 3);
    a += MR;
    b += NR;
  }
  STORE_ROW(0);
  STORE_ROW(1);
  STORE_ROW(2);
  STORE_ROW(3);
  STORE_ROW(4);
  STORE_ROW(5);
  STORE_ROW(6);
  STORE_ROW(7);
  STORE_ROW(8);
  STORE_ROW(9);
  STORE_ROW(10);
  STORE_ROW(11);
}

/* KC = 256: the 12 x 256 A panel (12 KiB) stays in a 32-64 KiB L1 with
 * room for the B panel streaming past it (8 KiB). NC = 512: the 256 x 512
 * packed B block (512 KiB) fits the 512 KiB-1 MiB L2 of Cortex-A7x and
 * Neoverse cores. MC = 48 (four A panels), as on x86. No NEON small-M
 * kernels (NULL): few rows use the portable ones. */
const onnxc_sgemm_variant onnxc_sgemm_neon_variant = {
    ONNXC_SGEMM_ISA_NEON, MR,        NR,   48,   ONNXC_SGEMM_NEON_KC,
    ONNXC_SGEMM_NEON_NC,  neon_12x8, NULL, NULL, NULL};
