/*===- ActivationVector.h - The activations on one vector, any width -----===*
 *
 * Included with ACT_LANES (floats per vector) set by ActivationImpl.h and by
 * the per-ISA convolution kernels, which apply act_activation to their
 * accumulators in registers; each includer is compiled for its ISA, so the
 * vector type below becomes that ISA's registers.
 *
 * exp(x) = 2^n p(r), x = n ln2 + r, |r| <= ln2 / 2, p a degree-5 fit
 * (relative error 1.1e-7 before rounding, 1.8e-7 evaluated in float: a
 * degree-6 fit's 3e-9 is lost to float rounding anyway, and its extra FMA
 * cost SiLU 12%, measured in a loop of its own on Zen 3); 2^n is applied
 * with scalef (AVX-512) or as two normal powers of two, so that overflow
 * gives inf and underflow is gradual. tanh is x P(x^2) below |x| = 0.625
 * and 1 - 2 / (exp(2|x|) + 1) above; erf is x P(x^2) below |x| = 1 and a
 * degree-14 polynomial on [1, 3.92] above (erf rounds to 1 past 3.92). The
 * coefficients are least-squares fits (minimax-weighted) to the functions
 * on those intervals.
 * The clamps keep x when it is NaN (act_min, act_max), so every activation
 * maps NaN to NaN.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_KERNELS_ACTIVATIONVECTOR_H
#define ONNXC_RUNTIME_CPU_KERNELS_ACTIVATIONVECTOR_H

#include "Gemm.h"

#include <math.h>
#include <stdint.h>
#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

typedef float act_vec __attribute__((vector_size(ACT_LANES * sizeof(float))));
typedef int32_t act_mask
    __attribute__((vector_size(ACT_LANES * sizeof(float))));
typedef uint32_t act_bits
    __attribute__((vector_size(ACT_LANES * sizeof(float))));

#define ACT_INLINE static inline __attribute__((always_inline))

ACT_INLINE act_vec act_splat(float f) {
  act_vec v = {0};
  return v + f;
}

/* mask ? a : b, lane by lane. */
ACT_INLINE act_vec act_select(act_mask mask, act_vec a, act_vec b) {
  return (act_vec)((mask & (act_mask)a) | (~mask & (act_mask)b));
}

ACT_INLINE act_vec act_abs(act_vec x) {
  return (act_vec)((act_bits)x & 0x7fffffffu);
}

/* |magnitude| with the sign of `sign`. */
ACT_INLINE act_vec act_copysign(act_vec magnitude, act_vec sign) {
  return (act_vec)(((act_bits)magnitude & 0x7fffffffu) |
                   ((act_bits)sign & 0x80000000u));
}

/* min(c, x) and max(c, x) for a constant c; x when x is NaN (the x86
 * min/max return their second operand when either is NaN). */
ACT_INLINE act_vec act_min(act_vec c, act_vec x) {
#if ACT_LANES == 16 && defined(__AVX512F__)
  return (act_vec)_mm512_min_ps((__m512)c, (__m512)x);
#elif ACT_LANES == 8 && defined(__AVX2__)
  return (act_vec)_mm256_min_ps((__m256)c, (__m256)x);
#else
  return act_select(x > c, c, x);
#endif
}

ACT_INLINE act_vec act_max(act_vec c, act_vec x) {
#if ACT_LANES == 16 && defined(__AVX512F__)
  return (act_vec)_mm512_max_ps((__m512)c, (__m512)x);
#elif ACT_LANES == 8 && defined(__AVX2__)
  return (act_vec)_mm256_max_ps((__m256)c, (__m256)x);
#else
  return act_select(x < c, c, x);
#endif
}

/* 1 / d for d >= 1 (inf and NaN too). AVX-512: the 14-bit estimate and one
 * Newton step (relative error ~2^-28 before rounding), a fraction of a
 * division's cost; the step is skipped for d = inf, whose estimate is the
 * exact 0 (the step would make inf * 0 = NaN of it). */
ACT_INLINE act_vec act_recip(act_vec d) {
#if ACT_LANES == 16 && defined(__AVX512F__)
  __m512 r = _mm512_rcp14_ps((__m512)d);
  __m512 e = _mm512_fnmadd_ps((__m512)d, r, _mm512_set1_ps(1.0f));
  __mmask16 finite =
      _mm512_cmp_ps_mask((__m512)d, _mm512_set1_ps(INFINITY), _CMP_LT_OQ);
  return (act_vec)_mm512_mask_fmadd_ps(r, finite, e, r);
#else
  return act_splat(1.0f) / d;
#endif
}

/* exp(x - n ln2) for x log2(e) rounded to the integer n: r = x - n ln2 with
 * ln2 in two parts (the first has 9 significant bits, so n times it is
 * exact), then p(r). */
ACT_INLINE act_vec act_exp_reduced(act_vec x, act_vec n) {
  act_vec r = x - n * 0.693359375f;
  r = r - n * -2.12194440054690583e-4f;
  act_vec p = act_splat(8.312487043e-03f);
  p = p * r + 4.189005494e-02f;
  p = p * r + 1.666711420e-01f;
  p = p * r + 4.999923110e-01f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return p;
}

#if ACT_LANES == 16 && defined(__AVX512F__)
/* exp(x) for x the caller has clamped: n = round(x log2(e)), p(r), and
 * scalef (2^n p; overflow gives inf, a result under FLT_MIN a denormal,
 * which the callers' clamps rule out). */
ACT_INLINE act_vec act_exp_scalef(act_vec x) {
  act_vec n = (act_vec)_mm512_roundscale_ps((__m512)(x * 1.44269504088896341f),
                                            _MM_FROUND_TO_NEAREST_INT |
                                                _MM_FROUND_NO_EXC);
  return (act_vec)_mm512_scalef_ps((__m512)act_exp_reduced(x, n), (__m512)n);
}
#endif

/* exp(x); 0 below -87.3, where the result would leave the normal range: a
 * denormal result takes the CPU's slow path (about 25x per lane, measured
 * on the softmax's exp), and a Sigmoid of x > 87 computes exp(-x). NaN
 * compares false, so it stays NaN. */
ACT_INLINE act_vec act_exp(act_vec x) {
  act_mask underflow = x < act_splat(-87.33654f);
  x = act_min(act_splat(89.0f), x);
  x = act_max(act_splat(-87.33654f), x);
#if ACT_LANES == 16 && defined(__AVX512F__)
  return act_select(underflow, act_splat(0.0f), act_exp_scalef(x));
#else
  /* Adding 1.5 * 2^23 rounds x log2(e) to an integer n held in the low
   * mantissa bits of t. */
  const float shifter = 12582912.0f;
  act_vec t = x * 1.44269504088896341f + shifter;
  act_vec n = t - shifter;
  act_bits k = (act_bits)t - (act_bits)act_splat(shifter);
  act_vec p = act_exp_reduced(x, n);
  act_bits k1 = (act_bits)((act_mask)k >> 1), k2 = k - k1;
  act_vec s1 = (act_vec)((k1 + 127u) << 23), s2 = (act_vec)((k2 + 127u) << 23);
  return act_select(underflow, act_splat(0.0f), p * s1 * s2);
#endif
}

#if !(ACT_LANES == 16 && defined(__AVX512F__))
/* exp(x) for x the caller has clamped to where 2^n is one power of two
 * (n <= 128; n = 128 gives +inf): one scale factor and no underflow
 * select, about 5 of act_exp's ~29 operations per vector. For the
 * sigmoid and SiLU, whose exp(-x) needs no more. */
ACT_INLINE act_vec act_exp_one_scale(act_vec x) {
  const float shifter = 12582912.0f;
  act_vec t = x * 1.44269504088896341f + shifter;
  act_vec n = t - shifter;
  act_bits k = (act_bits)t - (act_bits)act_splat(shifter);
  return act_exp_reduced(x, n) * (act_vec)((k + 127u) << 23);
}
#endif

#if ACT_LANES == 16 && defined(__AVX512F__)
/* exp(-x) for the sigmoid and SiLU: x is clamped to [-88.8, 87.33], where
 * exp(-x) is a normal number or, from x = -88.7 down, +inf (scalef's
 * overflow; act_recip makes 0 of it). The clamp stands in for act_exp's
 * underflow compare and select, and -x folds into the reduction's FMA: a
 * sigmoid of 17 vector operations where act_recip(act_exp(-x) + 1) took
 * 19 (GCC 12). EfficientNet-B0, whose SiLU rows were 19% of a run at
 * batch 1: 0.970 of the time on 1 thread, 0.961 on 2 (same-process A/B,
 * median of 200 pair ratios). NaN passes through the clamp. */
ACT_INLINE act_vec act_exp_negated(act_vec x) {
  return act_exp_scalef(
      -act_max(act_splat(-88.8f), act_min(act_splat(87.33654f), x)));
}
#endif

ACT_INLINE act_vec act_sigmoid(act_vec x) {
#if ACT_LANES == 16 && defined(__AVX512F__)
  return act_recip(act_exp_negated(x) + 1.0f);
#else
  /* exp(-x) with -x clamped to [-87.3, 87.3], where exp(-x) + 1 stays
   * finite. Below x = -87.3 the sigmoid is under FLT_MIN and comes out as
   * 0 (one select, and NaN compares false). */
  act_vec e = act_exp_one_scale(
      act_min(act_splat(87.33654f), act_max(act_splat(-87.33654f), -x)));
  return act_select(x < act_splat(-87.33654f), act_splat(0.0f),
                    act_recip(e + 1.0f));
#endif
}

/* x sigmoid(x). */
ACT_INLINE act_vec act_silu(act_vec x) {
#if ACT_LANES == 16 && defined(__AVX512F__)
  return x * act_sigmoid(x);
#else
  /* x / (exp(-x) + 1): the division takes x for act_sigmoid's 1, which
   * saves the product by x and the select for x < -87.3 (SiLU in a loop of
   * its own on Zen 3: 14% less time). -x is clamped to [-87.3, 88.8]: from
   * 88.4 on, n = 128 makes 2^n, and so exp(-x), +inf, and x / inf gives -0
   * for a finite x (x sigmoid(x) is under FLT_MIN there) and NaN for -inf,
   * as -inf * 0 does. */
  act_vec e = act_exp_one_scale(
      act_min(act_splat(88.8f), act_max(act_splat(-87.33654f), -x)));
  return x / (e + 1.0f);
#endif
}

ACT_INLINE act_vec act_tanh(act_vec x) {
  act_vec a = act_abs(x);
  act_vec s = x * x;
  act_vec p = act_splat(-5.659979768e-03f);
  p = p * s + 2.059097961e-02f;
  p = p * s + -5.372106656e-02f;
  p = p * s + 1.333112717e-01f;
  p = p * s + -3.333325982e-01f;
  p = p * s + 1.0f;
  act_vec small = x * p;
  /* tanh rounds to 1 past |x| = 9.01; the clamp keeps exp finite. */
  act_vec ac = act_min(act_splat(9.5f), a);
  act_vec big = act_splat(1.0f) - act_recip(act_exp(ac + ac) + 1.0f) * 2.0f;
  return act_select(a < act_splat(0.625f), small, act_copysign(big, x));
}

ACT_INLINE act_vec act_erf(act_vec x) {
  act_vec a = act_abs(x);
  act_vec s = x * x;
  act_vec p = act_splat(7.853853458e-05f);
  p = p * s + -8.010191377e-04f;
  p = p * s + 5.188327283e-03f;
  p = p * s + -2.685381100e-02f;
  p = p * s + 1.128358543e-01f;
  p = p * s + -3.761262596e-01f;
  p = p * s + 1.128379107e+00f;
  act_vec small = x * p;
  /* [1, 3.92] mapped onto u in [-1, 1]. */
  act_vec clamped = act_min(act_splat(3.92f), a);
  act_vec u = clamped * 0.684931507f + -1.684931507f;
  act_vec q = act_splat(2.181183518e-04f);
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
  q = act_min(act_splat(1.0f), q);
  return act_select(a < act_splat(1.0f), small, act_copysign(q, x));
}

/* Activation `kind` on one vector; `kind` is a constant where this is
 * inlined, so the switch folds away. */
ACT_INLINE act_vec act_activation(int32_t kind, act_vec x, float alpha,
                                  float beta) {
  switch (kind) {
  case ONNXC_ACTIVATION_RELU:
    return act_max(act_splat(0.0f), x);
  case ONNXC_ACTIVATION_LEAKY_RELU:
    return act_select(x < act_splat(0.0f), x * alpha, x);
  case ONNXC_ACTIVATION_CLIP:
    return act_min(act_splat(beta), act_max(act_splat(alpha), x));
  case ONNXC_ACTIVATION_SIGMOID:
    return act_sigmoid(x);
  case ONNXC_ACTIVATION_TANH:
    return act_tanh(x);
  case ONNXC_ACTIVATION_HARD_SIGMOID:
  case ONNXC_ACTIVATION_HARD_SWISH: {
    act_vec v = x * alpha + beta;
    v = act_max(act_splat(0.0f), act_min(act_splat(1.0f), v));
    return kind == ONNXC_ACTIVATION_HARD_SWISH ? x * v : v;
  }
  case ONNXC_ACTIVATION_GELU:
    return x * 0.5f * (act_erf(x * 0.70710678118654752f) + 1.0f);
  case ONNXC_ACTIVATION_FAST_GELU: {
    /* x (1 + tanh(u)) / 2 = x sigmoid(2u): one exp and one division where
     * tanh has both and a second polynomial, and no 1 + tanh(u) cancelling
     * towards 0 for negative u. */
    act_vec twice_inner =
        (x + x * x * x * 0.044715f) * (2.0f * 0.79788456080286536f);
    return x * act_sigmoid(twice_inner);
  }
  case ONNXC_ACTIVATION_SILU:
    return act_silu(x);
  default:
    return x;
  }
}

#endif /* ONNXC_RUNTIME_CPU_KERNELS_ACTIVATIONVECTOR_H */
