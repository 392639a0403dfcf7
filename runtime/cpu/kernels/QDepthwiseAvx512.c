/*===- QDepthwiseAvx512.c - The AVX-512 NHWC depthwise row ----------------===*
 *
 * Per output pixel, 64 channels at a time: four zmm of int32 sums stay in
 * registers across the taps (each tap: 16 bytes of X widened per zmm, times
 * its int32 weights), then are requantized and stored as bytes. The
 * last channels take masked loads and stores, so nothing past C is read.
 * Compiled with -mavx512f -mavx512vl -mavx512bw; called
 * only when the CPU has them (QDepthwise.c).
 *
 *===----------------------------------------------------------------------===*/

#include "QDepthwise.h"
#include "RequantizeAvx512.h"

#include <immintrin.h>

enum { LANES = 16, BLOCKS = 4 };

static inline __mmask16 lanes_mask(int64_t n) {
  return (__mmask16)(n >= LANES ? 0xFFFF : n <= 0 ? 0 : (1u << n) - 1);
}

/* acc += ((x ^ flip) - offset) * w for 16 channels of one tap. */
static inline __m512i tap_step(__m512i acc, __m128i x, __m512i w, __m512i flip,
                               __m512i offset) {
  __m512i xv =
      _mm512_sub_epi32(_mm512_xor_si512(_mm512_cvtepu8_epi32(x), flip), offset);
  return _mm512_add_epi32(acc, _mm512_mullo_epi32(xv, w));
}

/* Sums of the channels [c0, c0 + 64) of output pixel (oy, ox); channels
 * past C (masked) read nothing and sum 0. `full`: all 64 are inside C,
 * and the loads need no masks. */
static inline void channel_block(const onnxc_qdepthwise_params *p, int64_t oy,
                                 int64_t ox, int64_t c0, int full,
                                 __m512i acc[BLOCKS]) {
  int64_t n = p->c - c0;
  __mmask16 mask[BLOCKS];
  for (int k = 0; k < BLOCKS; ++k) {
    mask[k] = lanes_mask(n - k * LANES);
    acc[k] = _mm512_setzero_si512();
  }
  /* An s8 byte read as u8 and flipped is x + 128: subtract both. */
  const __m512i flip = _mm512_set1_epi32(p->x_signed ? 128 : 0);
  const __m512i offset = _mm512_set1_epi32((p->x_signed ? 128 : 0) + p->x_zero);
  for (int64_t i = 0; i < p->kh; ++i) {
    int64_t iy = oy * p->stride_h - p->pad_top + i * p->dilation_h;
    if (iy < 0 || iy >= p->h)
      continue;
    for (int64_t j = 0; j < p->kw; ++j) {
      int64_t ix = ox * p->stride_w - p->pad_left + j * p->dilation_w;
      if (ix < 0 || ix >= p->w)
        continue;
      const uint8_t *px = p->x + (iy * p->w + ix) * p->c + c0;
      const int32_t *wt = p->tap_weights + (i * p->kw + j) * p->c + c0;
      if (full) {
        for (int k = 0; k < BLOCKS; ++k)
          acc[k] = tap_step(acc[k],
                            _mm_loadu_si128((const __m128i *)(px + k * LANES)),
                            _mm512_loadu_si512(wt + k * LANES), flip, offset);
        continue;
      }
      for (int k = 0; k < BLOCKS && mask[k]; ++k)
        acc[k] = tap_step(acc[k], _mm_maskz_loadu_epi8(mask[k], px + k * LANES),
                          _mm512_maskz_loadu_epi32(mask[k], wt + k * LANES),
                          flip, offset);
    }
  }
}

void onnxc_qdepthwise_nhwc_row_avx512(const onnxc_qdepthwise_params *p,
                                      int64_t oy, uint8_t *y) {
  onnxc_requantize_range range =
      onnxc_requantize_range_of(p->y_zero, p->y_signed);
  for (int64_t ox = 0; ox < p->ow; ++ox, y += p->c)
    for (int64_t c0 = 0; c0 < p->c; c0 += BLOCKS * LANES) {
      __m512i acc[BLOCKS];
      if (c0 + BLOCKS * LANES <= p->c)
        channel_block(p, oy, ox, c0, 1, acc);
      else
        channel_block(p, oy, ox, c0, 0, acc);
      for (int k = 0; k < BLOCKS; ++k) {
        int64_t first = c0 + k * LANES, n = p->c - first;
        if (n <= 0)
          break;
        onnxc_requantize16_avx512(acc[k], n < LANES ? (int)n : LANES,
                                  p->bias + first, p->multiplier + first,
                                  &range, y + first);
      }
    }
}
