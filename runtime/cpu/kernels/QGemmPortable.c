/*===- QGemmPortable.c - The plain-C 8-bit micro-kernel -------------------===*
 *
 * A 4 x 16 tile of int32 sums over groups of four s8 x u8 products, in C
 * the vectorizer widens (-O3). Every build has it; the x86-64 kernels
 * replace it where the CPU has them.
 *
 *===----------------------------------------------------------------------===*/

#include "QGemm.h"
#include "QGemmKernels.h"

#include <string.h>

enum { MR = 4, NR = 16, GROUP = 4 };

#define QGEMM_STORE portable_store
#define QGEMM_NR NR
#include "QGemmStoreImpl.h"

static void portable_4x16(size_t groups, const void *a, const void *b,
                          int32_t *c, size_t mr) {
  (void)mr;
  const int8_t *pa = a;
  const uint8_t *pb = b;
  int32_t acc[MR][NR];
  memset(acc, 0, sizeof acc);
  for (size_t g = 0; g < groups; ++g) {
    const int8_t *ag = pa + g * MR * GROUP;
    const uint8_t *bg = pb + g * NR * GROUP;
    for (int r = 0; r < MR; ++r)
      for (int col = 0; col < NR; ++col) {
        int32_t sum = 0;
        for (int t = 0; t < GROUP; ++t)
          sum += (int32_t)ag[r * GROUP + t] * (int32_t)bg[col * GROUP + t];
        acc[r][col] += sum;
      }
  }
  memcpy(c, acc, sizeof acc);
}

const onnxc_qgemm_variant onnxc_qgemm_portable_variant = {
    ONNXC_QGEMM_ISA_PORTABLE, MR, NR, GROUP, 1, portable_4x16, portable_store};
