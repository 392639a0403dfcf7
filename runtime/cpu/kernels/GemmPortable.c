/*===- GemmPortable.c - The portable C micro-kernel ------------------------===*
 *
 * Plain C that any target compiles; the accumulator tile is small enough for
 * the compiler to keep in vector registers (NEON, SSE) and vectorize along
 * NR. Used where no ISA-specific kernel exists (RISC-V, old x86; AArch64
 * has GemmNeon.c).
 *
 *===----------------------------------------------------------------------===*/

#include "Gemm.h"
#include "GemmKernels.h"

/* 4 x 16 fills half of AArch64's 32 NEON registers; baseline x86-64 has only
 * 16 SSE registers, where 4 x 16 would spill. */
#if defined(__x86_64__) || defined(__i386__)
enum { MR = 4, NR = 8 };
#else
enum { MR = 4, NR = 16 };
#endif

static void portable_kernel(size_t kc, const float *a, const float *b, float *c,
                            ptrdiff_t ldc, size_t mr, size_t nr, float alpha,
                            float beta) {
  float acc[MR][NR] = {{0}};
  for (size_t p = 0; p < kc; ++p) {
    for (int r = 0; r < MR; ++r) {
      float av = a[r];
      for (int j = 0; j < NR; ++j)
        acc[r][j] += av * b[j];
    }
    a += MR;
    b += NR;
  }
  for (size_t r = 0; r < mr; ++r) {
    float *row = c + (ptrdiff_t)r * ldc;
    if (beta == 0.0f) {
      for (size_t j = 0; j < nr; ++j)
        row[j] = alpha * acc[r][j];
    } else {
      for (size_t j = 0; j < nr; ++j)
        row[j] = alpha * acc[r][j] + beta * row[j];
    }
  }
}

const onnxc_sgemm_variant onnxc_sgemm_portable_variant = {
    ONNXC_SGEMM_ISA_PORTABLE, MR, NR, 48, 256, 1024, portable_kernel};
