/*===- QGemmAvx2.c - The AVX2 8-bit micro-kernel (x86-64 only) ------------===*
 *
 * A 6 x 16 tile: 12 ymm accumulators of int32, two ymm rows of B per step.
 * Operands are widened to int16 when packed, and each step is vpmaddwd
 * (two products summed per lane, exact) + vpaddd. vpmaddubsw would take
 * the bytes as they are at twice the rate, but it saturates its 16-bit
 * sums of two u8 x s8 products (255 * 127 * 2 > 32767): a wrong answer
 * for some weights, so it is not used. Compiled with -mavx2; called only
 * when the CPU has it (QGemm.c).
 *
 *===----------------------------------------------------------------------===*/

#include "QGemm.h"
#include "QGemmKernels.h"

#include <immintrin.h>
#include <string.h>

enum { MR = 6, NR = 16, GROUP = 2 };

#define QGEMM_STORE avx2_store
#define QGEMM_NR NR
#include "QGemmStoreImpl.h"

static inline __m256i broadcast_word(const int16_t *p) {
  int32_t word;
  memcpy(&word, p, sizeof word);
  return _mm256_set1_epi32(word);
}

#define MADD_ROW(r)                                                            \
  do {                                                                         \
    __m256i av = broadcast_word(ag + (r)*GROUP);                               \
    c##r##0 = _mm256_add_epi32(c##r##0, _mm256_madd_epi16(av, b0));            \
    c##r##1 = _mm256_add_epi32(c##r##1, _mm256_madd_epi16(av, b1));            \
  } while (0)

#define STORE_ROW(r)                                                           \
  do {                                                                         \
    _mm256_storeu_si256((__m256i *)(c + (r)*NR), c##r##0);                     \
    _mm256_storeu_si256((__m256i *)(c + (r)*NR + 8), c##r##1);                 \
  } while (0)

static void avx2_6x16(size_t groups, const void *a, const void *b, int32_t *c,
                      size_t mr) {
  (void)mr;
  const int16_t *pa = a, *pb = b;
  __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00,
          c20 = c00, c21 = c00, c30 = c00, c31 = c00, c40 = c00, c41 = c00,
          c50 = c00, c51 = c00;
  for (size_t g = 0; g < groups; ++g) {
    const int16_t *ag = pa + g * MR * GROUP;
    const int16_t *bg = pb + g * NR * GROUP;
    __m256i b0 = _mm256_loadu_si256((const __m256i *)bg);
    __m256i b1 = _mm256_loadu_si256((const __m256i *)(bg + 16));
    MADD_ROW(0);
    MADD_ROW(1);
    MADD_ROW(2);
    MADD_ROW(3);
    MADD_ROW(4);
    MADD_ROW(5);
  }
  STORE_ROW(0);
  STORE_ROW(1);
  STORE_ROW(2);
  STORE_ROW(3);
  STORE_ROW(4);
  STORE_ROW(5);
}

const onnxc_qgemm_variant onnxc_qgemm_avx2_variant = {
    ONNXC_QGEMM_ISA_AVX2, MR, NR, GROUP, 2, avx2_6x16, avx2_store};
