/*===- ActivationImpl.h - The activation row kernel, any vector width -----===*
 *
 * Included by Activation<Isa>.c with ACT_LANES (floats per vector) and
 * ACT_FUNCTION (the onnxc_activation_row_<isa> it defines) set; each of
 * those files is compiled for its ISA, so the vector type below becomes that
 * ISA's registers. Every value, the tail's too (padded into one vector), goes
 * through the same arithmetic.
 *
 * exp(x) = 2^n p(r), x = n ln2 + r, |r| <= ln2 / 2, p the degree-7 Taylor
 * polynomial (truncation below 1e-8); 2^n is applied as two normal powers
 * of two so that overflow gives inf and underflow is gradual. tanh is
 * x P(x^2) below |x| = 0.625 and 1 - 2 / (exp(2|x|) + 1) above; erf is
 * x P(x^2) below |x| = 1 and a degree-14 polynomial on [1, 3.92] above
 * (erf rounds to 1 past 3.92). The coefficients are least-squares fits
 * (minimax-weighted) to the functions on those intervals. Selects, not
 * min/max, do the clamps: a NaN fails every comparison, so it goes through
 * unchanged and every activation maps NaN to NaN.
 *
 *===----------------------------------------------------------------------===*/

#include "ActivationKernels.h"
#include "Gemm.h"

#include <string.h>

typedef float act_vec __attribute__((vector_size(ACT_LANES * sizeof(float))));
typedef int32_t act_mask
    __attribute__((vector_size(ACT_LANES * sizeof(float))));
typedef uint32_t act_bits
    __attribute__((vector_size(ACT_LANES * sizeof(float))));

#define ACT_INLINE static inline __attribute__((always_inline))

ACT_INLINE act_vec splat(float f) {
  act_vec v = {0};
  return v + f;
}

/* mask ? a : b, lane by lane. */
ACT_INLINE act_vec select(act_mask mask, act_vec a, act_vec b) {
  return (act_vec)((mask & (act_mask)a) | (~mask & (act_mask)b));
}

ACT_INLINE act_vec abs_v(act_vec x) {
  return (act_vec)((act_bits)x & 0x7fffffffu);
}

/* |magnitude| with the sign of `sign`. */
ACT_INLINE act_vec copysign_v(act_vec magnitude, act_vec sign) {
  return (act_vec)(((act_bits)magnitude & 0x7fffffffu) |
                   ((act_bits)sign & 0x80000000u));
}

ACT_INLINE act_vec exp_v(act_vec x) {
  x = select(x > splat(89.0f), splat(89.0f), x);
  x = select(x < splat(-104.0f), splat(-104.0f), x);
  /* Adding 1.5 * 2^23 rounds x log2(e) to an integer n held in the low
   * mantissa bits of t. */
  const float shifter = 12582912.0f;
  act_vec t = x * 1.44269504088896341f + shifter;
  act_vec n = t - shifter;
  act_bits k = (act_bits)t - (act_bits)splat(shifter);
  act_vec r = x - n * 0.693359375f;
  r = r - n * -2.12194440054690583e-4f;
  act_vec p = splat(1.98412698e-4f);
  p = p * r + 1.38888889e-3f;
  p = p * r + 8.33333333e-3f;
  p = p * r + 4.16666667e-2f;
  p = p * r + 1.66666667e-1f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  act_bits k1 = (act_bits)((act_mask)k >> 1), k2 = k - k1;
  act_vec s1 = (act_vec)((k1 + 127u) << 23), s2 = (act_vec)((k2 + 127u) << 23);
  return p * s1 * s2;
}

ACT_INLINE act_vec sigmoid_v(act_vec x) {
  return splat(1.0f) / (exp_v(-x) + 1.0f);
}

ACT_INLINE act_vec tanh_v(act_vec x) {
  act_vec a = abs_v(x);
  act_vec s = x * x;
  act_vec p = splat(-5.659979768e-03f);
  p = p * s + 2.059097961e-02f;
  p = p * s + -5.372106656e-02f;
  p = p * s + 1.333112717e-01f;
  p = p * s + -3.333325982e-01f;
  p = p * s + 1.0f;
  act_vec small = x * p;
  act_vec big = splat(1.0f) - splat(2.0f) / (exp_v(a + a) + 1.0f);
  return select(a < splat(0.625f), small, copysign_v(big, x));
}

ACT_INLINE act_vec erf_v(act_vec x) {
  act_vec a = abs_v(x);
  act_vec s = x * x;
  act_vec p = splat(7.853853458e-05f);
  p = p * s + -8.010191377e-04f;
  p = p * s + 5.188327283e-03f;
  p = p * s + -2.685381100e-02f;
  p = p * s + 1.128358543e-01f;
  p = p * s + -3.761262596e-01f;
  p = p * s + 1.128379107e+00f;
  act_vec small = x * p;
  /* [1, 3.92] mapped onto u in [-1, 1]. */
  act_vec clamped = select(a > splat(3.92f), splat(3.92f), a);
  act_vec u = clamped * 0.684931507f + -1.684931507f;
  act_vec q = splat(2.181183518e-04f);
  q = q * u + 1.457092549e-05f;
  q = q * u + -1.623504562e-03f;
  q = q * u + 1.582277124e-03f;
  q = q * u + 3.334045643e-03f;
  q = q * u + -9.024739265e-03f;
  q = q * u + 7.349438500e-03f;
  q = q * u + 6.491441745e-03f;
  q = q * u + -2.844818495e-02f;
  q = q * u + 4.510812834e-02f;
  q = q * u + -4.504719004e-02f;
  q = q * u + 3.059980646e-02f;
  q = q * u + -1.392898709e-02f;
  q = q * u + 3.878111020e-03f;
  q = q * u + 9.994966388e-01f;
  q = select(q > splat(1.0f), splat(1.0f), q);
  return select(a < splat(1.0f), small, copysign_v(q, x));
}

/* Activation `kind` on one vector; `kind` is a constant where this is
 * inlined, so the switch folds away. */
ACT_INLINE act_vec activation_v(int32_t kind, act_vec x, float alpha,
                                float beta) {
  switch (kind) {
  case ONNXC_ACTIVATION_RELU:
    return select(x < splat(0.0f), splat(0.0f), x);
  case ONNXC_ACTIVATION_LEAKY_RELU:
    return select(x < splat(0.0f), x * alpha, x);
  case ONNXC_ACTIVATION_CLIP:
    x = select(x < splat(alpha), splat(alpha), x);
    return select(x > splat(beta), splat(beta), x);
  case ONNXC_ACTIVATION_SIGMOID:
    return sigmoid_v(x);
  case ONNXC_ACTIVATION_TANH:
    return tanh_v(x);
  case ONNXC_ACTIVATION_HARD_SIGMOID:
  case ONNXC_ACTIVATION_HARD_SWISH: {
    act_vec v = x * alpha + beta;
    v = select(v > splat(1.0f), splat(1.0f), v);
    v = select(v < splat(0.0f), splat(0.0f), v);
    return kind == ONNXC_ACTIVATION_HARD_SWISH ? x * v : v;
  }
  case ONNXC_ACTIVATION_GELU:
    return x * 0.5f * (erf_v(x * 0.70710678118654752f) + 1.0f);
  case ONNXC_ACTIVATION_FAST_GELU: {
    act_vec inner = (x + x * x * x * 0.044715f) * 0.79788456080286536f;
    return x * 0.5f * (tanh_v(inner) + 1.0f);
  }
  case ONNXC_ACTIVATION_SILU:
    return x * sigmoid_v(x);
  default:
    return x;
  }
}

ACT_INLINE void activation_row(int32_t kind, float alpha, float beta,
                               float *y, size_t n) {
  size_t i = 0;
  for (; i + ACT_LANES <= n; i += ACT_LANES) {
    act_vec x;
    memcpy(&x, y + i, sizeof x);
    x = activation_v(kind, x, alpha, beta);
    memcpy(y + i, &x, sizeof x);
  }
  if (i < n) {
    act_vec x = {0};
    memcpy(&x, y + i, (n - i) * sizeof(float));
    x = activation_v(kind, x, alpha, beta);
    memcpy(y + i, &x, (n - i) * sizeof(float));
  }
}

#define ACT_ROW_CASE(KIND)                                                     \
  case KIND:                                                                   \
    activation_row(KIND, alpha, beta, y, n);                                   \
    break

void ACT_FUNCTION(int32_t kind, float alpha, float beta, float *y, size_t n) {
  switch (kind) {
    ACT_ROW_CASE(ONNXC_ACTIVATION_RELU);
    ACT_ROW_CASE(ONNXC_ACTIVATION_LEAKY_RELU);
    ACT_ROW_CASE(ONNXC_ACTIVATION_CLIP);
    ACT_ROW_CASE(ONNXC_ACTIVATION_SIGMOID);
    ACT_ROW_CASE(ONNXC_ACTIVATION_TANH);
    ACT_ROW_CASE(ONNXC_ACTIVATION_HARD_SIGMOID);
    ACT_ROW_CASE(ONNXC_ACTIVATION_GELU);
    ACT_ROW_CASE(ONNXC_ACTIVATION_FAST_GELU);
    ACT_ROW_CASE(ONNXC_ACTIVATION_SILU);
    ACT_ROW_CASE(ONNXC_ACTIVATION_HARD_SWISH);
  default:
    break;
  }
}
