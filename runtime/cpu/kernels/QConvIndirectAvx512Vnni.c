/*===- QConvIndirectAvx512Vnni.c - The indirect int8 conv micro-kernel ----===*
 *
 * A 12 x 32 tile as the int8 GEMM's (24 zmm of int32 sums, two zmm of W per
 * step), but A is read where it lies: each step broadcasts one four-byte
 * group of channels of each row's input pixel (u8, vpdpbusd's unsigned
 * operand) against 32 columns of s8 W, so neither the window nor the sign
 * of X is rewritten. After the last tap the sums lose W's zero-point term
 * (when W is asymmetric) and are requantized in registers
 * (RequantizeAvx512.h) and written as bytes.
 * Compiled with -mavx512f -mavx512vl -mavx512bw -mavx512vnni; called only
 * when the CPU has them (QConvIndirect.c).
 *
 *===----------------------------------------------------------------------===*/

#include "QConvIndirect.h"
#include "RequantizeAvx512.h"

#include <immintrin.h>
#include <string.h>

enum { MR = ONNXC_QCONV_INDIRECT_MR, NR = ONNXC_QCONV_INDIRECT_NR };

static inline __m512i broadcast_group(const uint8_t *p) {
  int32_t word;
  memcpy(&word, p, sizeof word);
  return _mm512_set1_epi32(word);
}

#define DOT_ROW(r)                                                             \
  do {                                                                         \
    if ((r) < rows) {                                                          \
      __m512i av = broadcast_group(p##r + q * 4);                              \
      c##r##0 = _mm512_dpbusd_epi32(c##r##0, av, b0);                          \
      c##r##1 = _mm512_dpbusd_epi32(c##r##1, av, b1);                          \
    }                                                                          \
  } while (0)

#define ROW_POINTER(r)                                                         \
  const uint8_t *p##r = (r) < rows ? row_of[(r)] + t->offset : NULL

#define STORE_ROW(r)                                                           \
  do {                                                                         \
    if ((r) < rows && (r) < t->mr) {                                           \
      uint8_t *y = t->y + (ptrdiff_t)(r)*t->ldy;                               \
      if (t->row_sum) {                                                        \
        __m512i sum = _mm512_set1_epi32(t->row_sum[(r)]);                      \
        c##r##0 = _mm512_sub_epi32(c##r##0, _mm512_mullo_epi32(sum, zw0));     \
        c##r##1 = _mm512_sub_epi32(c##r##1, _mm512_mullo_epi32(sum, zw1));     \
      }                                                                        \
      onnxc_requantize16_avx512(c##r##0, low, t->bias, t->multiplier, &range,  \
                                y);                                            \
      if (high > 0)                                                            \
        onnxc_requantize16_avx512(c##r##1, high, t->bias + 16,                 \
                                  t->multiplier + 16, &range, y + 16);         \
    }                                                                          \
  } while (0)

/* `rows` (4, 8 or 12, a constant) of the tile's 12. */
static inline __attribute__((always_inline)) void
indirect_rows(const onnxc_qconv_indirect_tile *t, const size_t rows) {
  __m512i c00 = _mm512_setzero_si512(), c01 = c00, c10 = c00, c11 = c00,
          c20 = c00, c21 = c00, c30 = c00, c31 = c00, c40 = c00, c41 = c00,
          c50 = c00, c51 = c00, c60 = c00, c61 = c00, c70 = c00, c71 = c00,
          c80 = c00, c81 = c00, c90 = c00, c91 = c00, c100 = c00, c101 = c00,
          c110 = c00, c111 = c00;
  const int8_t *panel = t->panel;
  for (size_t tap = 0; tap < t->taps; ++tap) {
    const uint8_t *const *row_of = t->rows + tap * MR;
    ROW_POINTER(0);
    ROW_POINTER(1);
    ROW_POINTER(2);
    ROW_POINTER(3);
    ROW_POINTER(4);
    ROW_POINTER(5);
    ROW_POINTER(6);
    ROW_POINTER(7);
    ROW_POINTER(8);
    ROW_POINTER(9);
    ROW_POINTER(10);
    ROW_POINTER(11);
#pragma GCC unroll 2
    for (size_t q = 0; q < t->groups; ++q) {
      __m512i b0 = _mm512_loadu_si512(panel);
      __m512i b1 = _mm512_loadu_si512(panel + 64);
      panel += NR * 4;
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
  }
  onnxc_requantize_range range =
      onnxc_requantize_range_of(t->y_zero, t->y_signed);
  __m512i zw0 = _mm512_setzero_si512(), zw1 = zw0;
  if (t->row_sum) {
    zw0 = _mm512_loadu_si512(t->w_zero);
    zw1 = _mm512_loadu_si512(t->w_zero + 16);
  }
  int low = t->cols < 16 ? (int)t->cols : 16;
  int high = t->cols > 16 ? (int)t->cols - 16 : 0;
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

void onnxc_qconv_indirect_tile_vnni(const onnxc_qconv_indirect_tile *tile) {
  if (tile->mr <= 4)
    indirect_rows(tile, 4);
  else if (tile->mr <= 8)
    indirect_rows(tile, 8);
  else
    indirect_rows(tile, 12);
}
