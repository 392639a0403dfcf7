/*===- QuantizeImpl.h - Rows of dynamic quantization, one ISA -------------===*
 *
 * Included by QuantizePortable.c, QuantizeAvx2.c and QuantizeAvx512.c with
 * QUANTIZE_ROWS set to the table's name; plain loops the vectorizer widens
 * to the file's ISA (-O3). Rounding half to even is (v + 1.5 * 2^23) -
 * 1.5 * 2^23, exact for |v| < 2^22 (v is clamped to that first), so no ISA
 * needs a rounding instruction; the compiler keeps the two additions
 * (no -ffast-math).
 *
 *===----------------------------------------------------------------------===*/

#include "QuantizeKernels.h"

enum { LANES = 16 };

static void quantize_range(const float *x, size_t count, float *min_out,
                           float *max_out) {
  float lo[LANES], hi[LANES];
  for (int l = 0; l < LANES; ++l)
    lo[l] = hi[l] = 0.0f; /* the range always holds 0 */
  size_t i = 0;
  for (; i + LANES <= count; i += LANES)
    for (int l = 0; l < LANES; ++l) {
      float v = x[i + l];
      lo[l] = v < lo[l] ? v : lo[l]; /* a NaN compares false: skipped */
      hi[l] = v > hi[l] ? v : hi[l];
    }
  for (; i < count; ++i) {
    float v = x[i];
    lo[0] = v < lo[0] ? v : lo[0];
    hi[0] = v > hi[0] ? v : hi[0];
  }
  float mn = lo[0], mx = hi[0];
  for (int l = 1; l < LANES; ++l) {
    mn = lo[l] < mn ? lo[l] : mn;
    mx = hi[l] > mx ? hi[l] : mx;
  }
  *min_out = mn;
  *max_out = mx;
}

static void quantize_values(const float *x, size_t count, float scale,
                            float zero_point, uint8_t *y) {
  const float magic = 12582912.0f, limit = 4194304.0f;
  for (size_t i = 0; i < count; ++i) {
    float q = x[i] / scale;
    q = q > limit ? limit : q;
    q = q < -limit ? -limit : q;
    q = (q + magic) - magic;
    q += zero_point;
    q = q > 0.0f ? q : 0.0f; /* NaN: 0 */
    q = q < 255.0f ? q : 255.0f;
    y[i] = (uint8_t)(int32_t)q;
  }
}

const onnxc_quantize_rows QUANTIZE_ROWS = {quantize_range, quantize_values};
