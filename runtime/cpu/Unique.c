/*===- Unique.c - ONNX Unique for CPU artifacts ---------------------------===*
 *
 * The lowering of onnx.Unique (targets/cpu/lowering/Detection.cpp) calls one
 * entry point per element type through MLIR's C interface (memref arguments
 * arrive as pointers to their 1-D descriptors):
 *
 *   int64_t _mlir_ciface_onnxc_rt_unique_<T>(
 *       onnxc_memref1 *x,         the input, dense, viewed as [outer, len,
 *inner] int64_t outer, int64_t len, int64_t inner, int32_t sorted,     1:
 *ascending slices; 0: order of first occurrence onnxc_memref1 *y,         room
 *for outer * len * inner elements onnxc_memref1 *indices,   room for len i64
 *       onnxc_memref1 *inverse,   len i64
 *       onnxc_memref1 *counts)    room for len i64
 *   returns U, the number of distinct slices; y holds [outer, U, inner].
 *
 * <T> is f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64 or bool.
 * The slices are the `len` sub-tensors x[:, k, :] (the whole input is
 * [1, n, 1] when Unique has no axis), compared lexicographically in row-major
 * order. NaN sorts above every number and equals NaN (as numpy's unique).
 *
 *===----------------------------------------------------------------------===*/

#include "CpuRuntime.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int (*compare_fn)(const char *lhs, const char *rhs);

#define COMPARE_INT(NAME, TYPE)                                                \
  static int NAME(const char *lhs, const char *rhs) {                          \
    TYPE a, b;                                                                 \
    memcpy(&a, lhs, sizeof a);                                                 \
    memcpy(&b, rhs, sizeof b);                                                 \
    return (a > b) - (a < b);                                                  \
  }
COMPARE_INT(compare_i8, int8_t)
COMPARE_INT(compare_i16, int16_t)
COMPARE_INT(compare_i32, int32_t)
COMPARE_INT(compare_i64, int64_t)
COMPARE_INT(compare_u8, uint8_t)
COMPARE_INT(compare_u16, uint16_t)
COMPARE_INT(compare_u32, uint32_t)
COMPARE_INT(compare_u64, uint64_t)

static int compare_doubles(double a, double b) {
  int a_nan = a != a, b_nan = b != b;
  if (a_nan || b_nan)
    return a_nan - b_nan;
  return (a > b) - (a < b);
}

static int compare_f32(const char *lhs, const char *rhs) {
  float a, b;
  memcpy(&a, lhs, sizeof a);
  memcpy(&b, rhs, sizeof b);
  return compare_doubles(a, b);
}

static int compare_f64(const char *lhs, const char *rhs) {
  double a, b;
  memcpy(&a, lhs, sizeof a);
  memcpy(&b, rhs, sizeof b);
  return compare_doubles(a, b);
}

static float bf16_to_float(uint16_t bits) {
  uint32_t wide = (uint32_t)bits << 16;
  float value;
  memcpy(&value, &wide, sizeof value);
  return value;
}

static float f16_to_float(uint16_t bits) {
  uint32_t sign = (uint32_t)(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  uint32_t wide;
  if (exponent == 0x1f) { /* inf, NaN */
    wide = sign | 0x7f800000 | (mantissa << 13);
  } else if (exponent != 0) {
    wide = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    wide = sign;
  } else { /* subnormal: normalize */
    exponent = 113;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      --exponent;
    }
    wide = sign | (exponent << 23) | ((mantissa & 0x3ff) << 13);
  }
  float value;
  memcpy(&value, &wide, sizeof value);
  return value;
}

static int compare_bf16(const char *lhs, const char *rhs) {
  uint16_t a, b;
  memcpy(&a, lhs, sizeof a);
  memcpy(&b, rhs, sizeof b);
  return compare_doubles(bf16_to_float(a), bf16_to_float(b));
}

static int compare_f16(const char *lhs, const char *rhs) {
  uint16_t a, b;
  memcpy(&a, lhs, sizeof a);
  memcpy(&b, rhs, sizeof b);
  return compare_doubles(f16_to_float(a), f16_to_float(b));
}

/* The input viewed as `len` slices of outer x inner elements. */
typedef struct slices {
  const char *data;
  int64_t elem_size, outer, len, inner;
  compare_fn compare;
} slices;

static int compare_slices(const slices *s, int64_t i, int64_t j) {
  for (int64_t o = 0; o < s->outer; ++o) {
    const char *a = s->data + ((o * s->len + i) * s->inner) * s->elem_size;
    const char *b = s->data + ((o * s->len + j) * s->inner) * s->elem_size;
    for (int64_t e = 0; e < s->inner; ++e) {
      int order = s->compare(a + e * s->elem_size, b + e * s->elem_size);
      if (order)
        return order;
    }
  }
  return 0;
}

/* Stable merge sort of slice numbers (equal slices keep ascending order). */
static void sort_slices(const slices *s, int64_t *keys, int64_t *scratch,
                        int64_t n) {
  if (n < 2)
    return;
  int64_t half = n / 2;
  sort_slices(s, keys, scratch, half);
  sort_slices(s, keys + half, scratch, n - half);
  int64_t a = 0, b = half, k = 0;
  while (a < half && b < n)
    scratch[k++] =
        compare_slices(s, keys[b], keys[a]) < 0 ? keys[b++] : keys[a++];
  while (a < half)
    scratch[k++] = keys[a++];
  while (b < n)
    scratch[k++] = keys[b++];
  memcpy(keys, scratch, (size_t)n * sizeof *keys);
}

static int64_t unique(onnxc_memref1 *x, int64_t elem_size, compare_fn compare,
                      int64_t outer, int64_t len, int64_t inner, int32_t sorted,
                      onnxc_memref1 *y, onnxc_memref1 *indices,
                      onnxc_memref1 *inverse, onnxc_memref1 *counts) {
  slices s = {(const char *)x->aligned + x->offset * elem_size,
              elem_size,
              outer,
              len,
              inner,
              compare};
  int64_t *first = (int64_t *)indices->aligned + indices->offset;
  int64_t *inv = (int64_t *)inverse->aligned + inverse->offset;
  int64_t *count = (int64_t *)counts->aligned + counts->offset;
  if (len <= 0)
    return 0;
  int64_t *order = malloc((size_t)len * 3 * sizeof(int64_t));
  if (!order)
    return 0;
  int64_t *scratch = order + len, *position = order + 2 * len;
  for (int64_t k = 0; k < len; ++k)
    order[k] = k;
  sort_slices(&s, order, scratch, len);

  /* Groups of equal slices in ascending order; the first member of each is
   * its first occurrence (the sort is stable). */
  int64_t num_unique = 0;
  for (int64_t k = 0; k < len; ++k) {
    if (k == 0 || compare_slices(&s, order[k - 1], order[k]) != 0) {
      first[num_unique] = order[k];
      count[num_unique] = 0;
      ++num_unique;
    }
    ++count[num_unique - 1];
    inv[order[k]] = num_unique - 1;
  }

  if (!sorted) {
    /* Renumber the groups by first occurrence: scanning the input in order,
     * a slice whose group has not been seen yet opens the next position. */
    for (int64_t g = 0; g < num_unique; ++g)
      position[g] = -1;
    int64_t next = 0;
    for (int64_t k = 0; k < len; ++k)
      if (position[inv[k]] < 0)
        position[inv[k]] = next++;
    for (int64_t g = 0; g < num_unique; ++g) {
      scratch[position[g]] = first[g];
      order[position[g]] = count[g];
    }
    memcpy(first, scratch, (size_t)num_unique * sizeof *first);
    memcpy(count, order, (size_t)num_unique * sizeof *count);
    for (int64_t k = 0; k < len; ++k)
      inv[k] = position[inv[k]];
  }

  char *out = (char *)y->aligned + y->offset * elem_size;
  size_t slice_bytes = (size_t)(inner * elem_size);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t u = 0; u < num_unique; ++u)
      memcpy(out + (o * num_unique + u) * slice_bytes,
             s.data + (o * len + first[u]) * slice_bytes, slice_bytes);
  free(order);
  return num_unique;
}

#define UNIQUE_ENTRY(SUFFIX, ELEM_SIZE, COMPARE)                               \
  int64_t _mlir_ciface_onnxc_rt_unique_##SUFFIX(                               \
      onnxc_memref1 *x, int64_t outer, int64_t len, int64_t inner,             \
      int32_t sorted, onnxc_memref1 *y, onnxc_memref1 *indices,                \
      onnxc_memref1 *inverse, onnxc_memref1 *counts) {                         \
    return unique(x, ELEM_SIZE, COMPARE, outer, len, inner, sorted, y,         \
                  indices, inverse, counts);                                   \
  }
UNIQUE_ENTRY(f16, 2, compare_f16)
UNIQUE_ENTRY(bf16, 2, compare_bf16)
UNIQUE_ENTRY(f32, 4, compare_f32)
UNIQUE_ENTRY(f64, 8, compare_f64)
UNIQUE_ENTRY(i8, 1, compare_i8)
UNIQUE_ENTRY(i16, 2, compare_i16)
UNIQUE_ENTRY(i32, 4, compare_i32)
UNIQUE_ENTRY(i64, 8, compare_i64)
UNIQUE_ENTRY(u8, 1, compare_u8)
UNIQUE_ENTRY(u16, 2, compare_u16)
UNIQUE_ENTRY(u32, 4, compare_u32)
UNIQUE_ENTRY(u64, 8, compare_u64)
UNIQUE_ENTRY(bool, 1, compare_u8)
