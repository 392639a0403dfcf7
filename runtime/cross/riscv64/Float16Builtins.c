/*===- Float16Builtins.c - float16 <-> float for RV64GC without Zfh -------===*
 *
 * LLVM lowers float16 conversions on RISC-V CPUs without Zfh(min) to calls
 * of __extendhfsf2 and __truncsfhf2, which Debian bookworm's gcc 12 libgcc
 * lacks (gcc 13 added them). The half crosses in an FP register: its 16 bits
 * are the low bits of the float register's bit pattern, in and out, so the
 * C signatures use float and move bits. IEEE 754 binary16, round to nearest
 * even, NaNs stay quiet NaNs.
 *
 *===----------------------------------------------------------------------===*/
#include <stdint.h>
#include <string.h>

float __extendhfsf2(float boxed);
float __truncsfhf2(float value);

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static float float_of(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

float __extendhfsf2(float boxed) {
  uint32_t h = bits_of(boxed) & 0xffffu;
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) /* inf, NaN (quieted) */
    return float_of(sign | 0x7f800000u | (mantissa ? 0x400000u : 0) |
                    mantissa << 13);
  if (exponent == 0) {
    if (mantissa == 0)
      return float_of(sign);
    /* Subnormal half: normalize into a float. */
    exponent = 113; /* 127 - 15 + 1 */
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      --exponent;
    }
    return float_of(sign | exponent << 23 | (mantissa & 0x3ffu) << 13);
  }
  return float_of(sign | (exponent + 112) << 23 | mantissa << 13);
}

float __truncsfhf2(float value) {
  uint32_t f = bits_of(value);
  uint32_t sign = (f >> 16) & 0x8000u;
  uint32_t exponent = (f >> 23) & 0xffu;
  uint32_t mantissa = f & 0x7fffffu;
  uint32_t h;
  if (exponent == 0xff) {
    h = sign | 0x7c00u | (mantissa ? 0x200u | mantissa >> 13 : 0);
  } else if (exponent > 142) { /* >= 2^16: overflows to infinity */
    h = sign | 0x7c00u;
  } else if (exponent >= 113) { /* normal half */
    h = sign | (exponent - 112) << 10 | mantissa >> 13;
    uint32_t rest = mantissa & 0x1fffu;
    /* Round to nearest even; a carry into the exponent is still right. */
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
      ++h;
  } else if (exponent >= 102) { /* subnormal half */
    uint32_t full = mantissa | 0x800000u;
    uint32_t shift = 126 - exponent; /* 14..24 */
    h = sign | full >> shift;
    uint32_t rest = full & ((1u << shift) - 1);
    uint32_t half_way = 1u << (shift - 1);
    if (rest > half_way || (rest == half_way && (h & 1u)))
      ++h;
  } else { /* rounds to zero */
    h = sign;
  }
  return float_of(0xffff0000u | h);
}
