/*===- QGemmAvx512Vnni.c - The AVX-512 VNNI 8-bit micro-kernel ------------===*
 *
 * A 12 x 32 tile: 24 zmm accumulators of int32, two zmm of B (32 columns x
 * 4 bytes of K) per step and one broadcast word of A per row, each step
 * 24 vpdpbusd (u8 B x s8 A, four products summed into each lane without
 * saturation). The k loop is unrolled twice: its own few instructions per
 * step cost 10-20% of the rate on a 4-wide front end (bench/gemm
 * BM_QgemmMicroKernel). A last panel of a few rows skips the rows past
 * them.
 * Compiled with -mavx512f -mavx512vl -mavx512bw -mavx512vnni; called only
 * when the CPU has them (QGemm.c).
 *
 *===----------------------------------------------------------------------===*/

#include "QGemm.h"
#include "QGemmKernels.h"
#include "RequantizeAvx512.h"

#include <immintrin.h>
#include <string.h>

enum { MR = 12, NR = 32, GROUP = 4 };

/* The Q8 epilogue's row, 16 lanes at a time with a masked last vector: a
 * width that is not a multiple of the vector (MobileNet's 24 channels)
 * took a scalar tail per row that cost more than the rest of the store. */
static inline void vnni_requantize_row(const int32_t *acc, size_t cols,
                                       const int32_t *bias,
                                       const float *multiplier,
                                       const onnxc_qgemm_params *p,
                                       uint8_t *y) {
  onnxc_requantize_range range =
      onnxc_requantize_range_of(p->y_zero_point, p->y_signed);
  for (size_t c = 0; c < cols; c += 16) {
    int n = cols - c < 16 ? (int)(cols - c) : 16;
    __mmask16 mask = (__mmask16)(n == 16 ? 0xFFFF : (1u << n) - 1);
    onnxc_requantize16_avx512(_mm512_maskz_loadu_epi32(mask, acc + c), n,
                              bias + c, multiplier + c, &range, y + c);
  }
}

#define QGEMM_STORE vnni_store
#define QGEMM_NR NR
#define QGEMM_REQUANTIZE_ROW(acc, cols, bias, multiplier, p, y)                \
  vnni_requantize_row(acc, cols, bias, multiplier, p, y)
#include "QGemmStoreImpl.h"

static inline __m512i broadcast_word(const int8_t *p) {
  int32_t word;
  memcpy(&word, p, sizeof word);
  return _mm512_set1_epi32(word);
}

#define DOT_ROW(r)                                                             \
  do {                                                                         \
    if ((r) < rows) {                                                          \
      __m512i av = broadcast_word(ag + (r)*GROUP);                             \
      c##r##0 = _mm512_dpbusd_epi32(c##r##0, b0, av);                          \
      c##r##1 = _mm512_dpbusd_epi32(c##r##1, b1, av);                          \
    }                                                                          \
  } while (0)

#define STORE_ROW(r)                                                           \
  do {                                                                         \
    if ((r) < rows) {                                                          \
      _mm512_storeu_si512(c + (r)*NR, c##r##0);                                \
      _mm512_storeu_si512(c + (r)*NR + 16, c##r##1);                           \
    }                                                                          \
  } while (0)

/* `rows` (4, 8 or 12, a constant) of the panel's 12 rows. */
static inline __attribute__((always_inline)) void
vnni_rows_x32(size_t groups, const int8_t *pa, const uint8_t *pb, int32_t *c,
              const size_t rows) {
  __m512i c00 = _mm512_setzero_si512(), c01 = c00, c10 = c00, c11 = c00,
          c20 = c00, c21 = c00, c30 = c00, c31 = c00, c40 = c00, c41 = c00,
          c50 = c00, c51 = c00, c60 = c00, c61 = c00, c70 = c00, c71 = c00,
          c80 = c00, c81 = c00, c90 = c00, c91 = c00, c100 = c00, c101 = c00,
          c110 = c00, c111 = c00;
#pragma GCC unroll 2
  for (size_t g = 0; g < groups; ++g) {
    const int8_t *ag = pa + g * MR * GROUP;
    const uint8_t *bg = pb + g * NR * GROUP;
    __m512i b0 = _mm512_loadu_si512(bg);
    __m512i b1 = _mm512_loadu_si512(bg + 64);
    DOT_ROW(0);
    DOT_ROW(1);
    DOT_ROW(2);
    DOT_ROW(3);
    DOT_ROW(4);
    DOT_ROW(5);
    DOT_ROW(6);
    DOT_ROW(7);
    DOT_ROW(8);
    DOT_ROW(9);
    DOT_ROW(10);
    DOT_ROW(11);
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

static void vnni_12x32(size_t groups, const void *a, const void *b, int32_t *c,
                       size_t mr) {
  if (mr <= 4)
    vnni_rows_x32(groups, a, b, c, 4);
  else if (mr <= 8)
    vnni_rows_x32(groups, a, b, c, 8);
  else
    vnni_rows_x32(groups, a, b, c, 12);
}

const onnxc_qgemm_variant onnxc_qgemm_avx512_vnni_variant = {
    ONNXC_QGEMM_ISA_AVX512_VNNI, MR, NR, GROUP, 1, vnni_12x32, vnni_store};
