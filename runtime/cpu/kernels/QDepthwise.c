/*===- QDepthwise.c - The portable NHWC depthwise row, and the dispatch ---===*/

#include "QDepthwise.h"
#include "CpuFeatures.h"
#include "QGemm.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_THREAD__)
/* The loop over channels widens to the CPU's vectors: baseline x86-64 has no
 * 32-bit vector multiply. */
#define ONNXC_VECTOR_CLONES                                                    \
  __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define ONNXC_VECTOR_CLONES
#endif

ONNXC_VECTOR_CLONES
void onnxc_qdepthwise_nhwc_row_portable(const onnxc_qdepthwise_params *p,
                                        int64_t oy, uint8_t *y, int32_t *acc) {
  int64_t c = p->c;
  const int32_t lo = p->y_signed ? -128 : 0, hi = p->y_signed ? 127 : 255;
  /* An s8 byte read as u8 and flipped is x + 128: subtract both. */
  int32_t x_flip = p->x_signed ? 128 : 0, offset = x_flip + p->x_zero;
  for (int64_t ox = 0; ox < p->ow; ++ox, y += c) {
    memset(acc, 0, (size_t)c * sizeof(int32_t));
    for (int64_t i = 0; i < p->kh; ++i) {
      int64_t iy = oy * p->stride_h - p->pad_top + i * p->dilation_h;
      if (iy < 0 || iy >= p->h)
        continue;
      for (int64_t j = 0; j < p->kw; ++j) {
        int64_t ix = ox * p->stride_w - p->pad_left + j * p->dilation_w;
        if (ix < 0 || ix >= p->w)
          continue;
        const uint8_t *px = p->x + (iy * p->w + ix) * c;
        const int32_t *wt = p->tap_weights + (i * p->kw + j) * c;
        for (int64_t ch = 0; ch < c; ++ch)
          acc[ch] += wt[ch] * ((int32_t)(px[ch] ^ x_flip) - offset);
      }
    }
    for (int64_t ch = 0; ch < c; ++ch)
      y[ch] = onnxc_requantize(acc[ch], p->bias[ch], p->multiplier[ch],
                               p->y_zero, lo, hi);
  }
}

int onnxc_qdepthwise_avx512_supported(void) {
#if defined(ONNXC_HAVE_X86_KERNELS)
  return (onnxc_x86_features() & ONNXC_X86_AVX512_VNNI) != 0;
#else
  return 0;
#endif
}

void onnxc_qdepthwise_nhwc_row(const onnxc_qdepthwise_params *p, int64_t oy,
                               uint8_t *y, int32_t *scratch) {
#if defined(ONNXC_HAVE_X86_KERNELS)
  if (onnxc_qdepthwise_avx512_supported()) {
    onnxc_qdepthwise_nhwc_row_avx512(p, oy, y);
    return;
  }
#endif
  onnxc_qdepthwise_nhwc_row_portable(p, oy, y, scratch);
}
