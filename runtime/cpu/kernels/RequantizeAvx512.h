/*===- RequantizeAvx512.h - onnxc_requantize, 16 lanes at a time ---------===*
 *
 * For the AVX-512 (F, VL, BW) files of the int8 kernels: the same f32
 * arithmetic as onnxc_requantize (QGemm.h, ONNX Runtime's), one zmm per 16
 * int32 sums, so that vector and scalar paths give the same bytes.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_KERNELS_REQUANTIZEAVX512_H
#define ONNXC_RUNTIME_CPU_KERNELS_REQUANTIZEAVX512_H

#include <immintrin.h>
#include <stdint.h>

/* An 8-bit output's zero point, and its range less the zero point. */
typedef struct onnxc_requantize_range {
  __m512i zero;
  __m512 lo, hi;
} onnxc_requantize_range;

static inline onnxc_requantize_range onnxc_requantize_range_of(int32_t zero,
                                                               int is_signed) {
  onnxc_requantize_range r;
  r.zero = _mm512_set1_epi32(zero);
  r.lo = _mm512_set1_ps((float)((is_signed ? -128 : 0) - zero));
  r.hi = _mm512_set1_ps((float)((is_signed ? 127 : 255) - zero));
  return r;
}

/* y[i] = onnxc_requantize(acc[i], bias[i], scale[i], ...) for the first n
 * (<= 16) lanes; nothing past them is read or written. */
static inline void onnxc_requantize16_avx512(__m512i acc, int n,
                                             const int32_t *bias,
                                             const float *scale,
                                             const onnxc_requantize_range *r,
                                             uint8_t *y) {
  __mmask16 mask = (__mmask16)(n >= 16 ? 0xFFFF : (1u << n) - 1);
  __m512i sum = _mm512_add_epi32(acc, _mm512_maskz_loadu_epi32(mask, bias));
  __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(sum),
                           _mm512_maskz_loadu_ps(mask, scale));
  /* max(v, lo) gives lo for a NaN v, as the scalar form. */
  v = _mm512_min_ps(_mm512_max_ps(v, r->lo), r->hi);
  __m512i q =
      _mm512_add_epi32(_mm512_cvt_roundps_epi32(v, _MM_FROUND_TO_NEAREST_INT |
                                                       _MM_FROUND_NO_EXC),
                       r->zero);
  /* Every lane is in [-128, 255]: its low byte is the u8 or s8 value. The
   * empty asm keeps the narrowing in a register: folded into a store
   * (vpmovdb to memory) it is microcoded on AMD Zen 4, and was the slowest
   * instruction of the int8 GEMM's epilogue there. */
  __m128i bytes = _mm512_cvtepi32_epi8(q);
  __asm__("" : "+v"(bytes));
  _mm_mask_storeu_epi8(y, mask, bytes);
}

#endif /* ONNXC_RUNTIME_CPU_KERNELS_REQUANTIZEAVX512_H */
