/*===- MatMulInteger.c - MatMulInteger of lowered code through int8 GEMM --===*
 *
 * The CPU lowering (targets/cpu/lowering/MatMulIntegerCall.cpp) turns
 * onnx.MatMulInteger with a 2-D B into one call here: A's leading dims
 * fold into the rows of one GEMM, B is packed (once, for a weight), and
 * the zero points become the GEMM's corrections.
 *
 *===----------------------------------------------------------------------===*/

#include "CpuRuntime.h"
#include "MemrefView.h"
#include "kernels/QGemm.h"

#include <stdlib.h>
#include <string.h>

/* Whether `v` is dense row-major. */
static int dense(const onnxc_byte_view *v) {
  int64_t expected = 1;
  for (int d = v->rank - 1; d >= 0; --d) {
    if (v->size[d] != 1 && v->stride[d] != expected)
      return 0;
    expected *= v->size[d];
  }
  return 1;
}

static int64_t count(const onnxc_byte_view *v) {
  int64_t total = 1;
  for (int d = 0; d < v->rank; ++d)
    total *= v->size[d];
  return total;
}

static int32_t zero_point(const onnxc_byte_view *v, int64_t index,
                          int is_signed) {
  return is_signed ? (int32_t)((const int8_t *)v->data)[index]
                   : (int32_t)((const uint8_t *)v->data)[index];
}

/* QLinearMatMul's requantization: per column of Y, the multiplier
 * a_scale * b_scale[j] / y_scale (in f32, as ONNX Runtime computes it);
 * and Y's zero point and signedness. */
typedef struct requantization {
  const float *scale;       /* [N] */
  const int32_t *zero_bias; /* [N] zeros: QLinearMatMul has no bias */
  int32_t y_zero;
  int y_signed;
} requantization;

/* Y = (A - a_zero)(B - b_zero): int32 sums, or with `rq` requantized to
 * 8 bits. */
static int32_t matmul_integer(onnxc_unranked_memref *a_ref,
                              onnxc_unranked_memref *b_ref,
                              onnxc_unranked_memref *a_zero_ref,
                              onnxc_unranked_memref *b_zero_ref,
                              onnxc_unranked_memref *y_ref,
                              onnxc_qgemm_packed_b **slot, int32_t flags,
                              const requantization *rq) {
  onnxc_byte_view a, b, y, a_zero, b_zero;
  size_t y_element = rq ? 1 : sizeof(int32_t);
  if (!onnxc_read_byte_view(a_ref, 1, &a) ||
      !onnxc_read_byte_view(b_ref, 1, &b) ||
      !onnxc_read_byte_view(y_ref, (int64_t)y_element, &y))
    return ONNXC_KERNEL_BAD_OPERANDS;
  int64_t y_count = count(&y);
  if (y_count == 0)
    return ONNXC_KERNEL_OK;
  memset(y.data, 0, (size_t)y_count * y_element);
  if (a.rank < 1 || b.rank != 2 || !dense(&a) || !dense(&b) || !dense(&y))
    return ONNXC_KERNEL_BAD_OPERANDS;
  int64_t k = a.size[a.rank - 1], n = b.size[1];
  /* With K = 0, A has no elements: the rows are Y's. */
  int64_t m = k ? count(&a) / k : (n ? y_count / n : 0);
  if (k == 0 && !rq) /* A is empty along K: every sum is 0, and so is Y. */
    return ONNXC_KERNEL_OK;
  if (b.size[0] != k || y.size[y.rank - 1] != n || y_count != m * n)
    return ONNXC_KERNEL_BAD_OPERANDS;

  int a_signed = (flags & ONNXC_MATMUL_INTEGER_A_SIGNED) != 0;
  int b_signed = (flags & ONNXC_MATMUL_INTEGER_B_SIGNED) != 0;
  onnxc_qgemm_params p;
  memset(&p, 0, sizeof p);
  p.a = a.data;
  p.lda = k;
  p.a_signed = a_signed;
  p.output = rq ? ONNXC_QGEMM_OUTPUT_Q8 : ONNXC_QGEMM_OUTPUT_S32;
  p.c = y.data;
  p.ldc = n;
  if (rq) {
    p.q_scale = rq->scale;
    p.q_bias = rq->zero_bias;
    p.y_zero_point = rq->y_zero;
    p.y_signed = rq->y_signed;
  }
  if ((flags & ONNXC_MATMUL_INTEGER_A_ZERO) &&
      onnxc_read_byte_view(a_zero_ref, 1, &a_zero)) {
    if (count(&a_zero) != 1)
      return ONNXC_KERNEL_BAD_OPERANDS;
    p.a_zero_point = zero_point(&a_zero, 0, a_signed);
  }
  int32_t scalar_b_zero = 0, *column_b_zero = NULL;
  if ((flags & ONNXC_MATMUL_INTEGER_B_ZERO) &&
      onnxc_read_byte_view(b_zero_ref, 1, &b_zero)) {
    int64_t zeros = count(&b_zero);
    if (zeros == 1) {
      scalar_b_zero = zero_point(&b_zero, 0, b_signed);
      p.b_zero_point = &scalar_b_zero;
    } else if (zeros == n && b_zero.rank == 1) {
      column_b_zero = malloc((size_t)n * sizeof(int32_t));
      if (!column_b_zero)
        return ONNXC_KERNEL_OUT_OF_MEMORY;
      for (int64_t j = 0; j < n; ++j)
        column_b_zero[j] = zero_point(&b_zero, j * b_zero.stride[0], b_signed);
      p.b_zero_point = column_b_zero;
      p.b_zero_point_stride = 1;
    } else {
      return ONNXC_KERNEL_BAD_OPERANDS;
    }
  }

  const onnxc_qgemm_packed_b *packed =
      slot ? onnxc_qgemm_packed_b_cached(slot, (size_t)k, (size_t)n, b.data, n,
                                         1, b_signed)
           : NULL;
  onnxc_qgemm_packed_b *own = NULL;
  if (!packed)
    packed = own =
        onnxc_qgemm_pack_b((size_t)k, (size_t)n, b.data, n, 1, b_signed);
  /* Out of memory for the packed copies: the plain loop needs none. */
  if (!packed || onnxc_qgemm((size_t)m, packed, &p, 0) != 0)
    onnxc_qgemm_reference((size_t)m, (size_t)n, (size_t)k, b.data, n, 1,
                          b_signed, &p);
  onnxc_qgemm_free_packed_b(own);
  free(column_b_zero);
  return ONNXC_KERNEL_OK;
}

int32_t _mlir_ciface_onnxc_rt_matmul_integer(
    onnxc_unranked_memref *a, onnxc_unranked_memref *b,
    onnxc_unranked_memref *a_zero_point, onnxc_unranked_memref *b_zero_point,
    onnxc_unranked_memref *y, int32_t flags) {
  return matmul_integer(a, b, a_zero_point, b_zero_point, y, NULL, flags, NULL);
}

int32_t _mlir_ciface_onnxc_rt_matmul_integer_packed(
    onnxc_unranked_memref *a, onnxc_unranked_memref *b,
    onnxc_unranked_memref *a_zero_point, onnxc_unranked_memref *b_zero_point,
    onnxc_unranked_memref *y, onnxc_memref1 *slot, int32_t flags) {
  onnxc_qgemm_packed_b **cache =
      slot && slot->size >= 1
          ? (onnxc_qgemm_packed_b **)((int64_t *)slot->aligned + slot->offset)
          : NULL;
  return matmul_integer(a, b, a_zero_point, b_zero_point, y, cache, flags,
                        NULL);
}

/* One f32 value of a scale tensor: element `index`, or its only one. */
static int scale_at(onnxc_unranked_memref *ref, int64_t index, int64_t count,
                    float *out) {
  onnxc_byte_view v;
  if (!onnxc_read_byte_view(ref, 4, &v))
    return 0;
  int64_t total = 1;
  for (int d = 0; d < v.rank; ++d)
    total *= v.size[d];
  if (total != 1 && (total != count || v.rank != 1))
    return 0;
  *out = ((const float *)v.data)[total == 1 ? 0 : index * v.stride[0]];
  return 1;
}

int32_t _mlir_ciface_onnxc_rt_qlinear_matmul(
    onnxc_unranked_memref *a, onnxc_unranked_memref *a_scale,
    onnxc_unranked_memref *a_zero_point, onnxc_unranked_memref *b,
    onnxc_unranked_memref *b_scale, onnxc_unranked_memref *b_zero_point,
    onnxc_unranked_memref *y_scale, onnxc_unranked_memref *y_zero_point,
    onnxc_unranked_memref *y, onnxc_memref1 *slot, int32_t flags) {
  onnxc_byte_view b_view, y_zero;
  float as, ys;
  if (!onnxc_read_byte_view(b, 1, &b_view) || b_view.rank != 2 ||
      !scale_at(a_scale, 0, 1, &as) || !scale_at(y_scale, 0, 1, &ys) ||
      !onnxc_read_byte_view(y_zero_point, 1, &y_zero) || count(&y_zero) != 1)
    return ONNXC_KERNEL_BAD_OPERANDS;
  int64_t n = b_view.size[1];
  float *scales = malloc((size_t)(n ? n : 1) * sizeof(float));
  int32_t *zeros = calloc((size_t)(n ? n : 1), sizeof(int32_t));
  if (!scales || !zeros) {
    free(scales);
    free(zeros);
    return ONNXC_KERNEL_OUT_OF_MEMORY;
  }
  requantization rq = {scales, zeros, 0,
                       (flags & ONNXC_QLINEAR_MATMUL_Y_SIGNED) != 0};
  rq.y_zero = zero_point(&y_zero, 0, rq.y_signed);
  int32_t status = ONNXC_KERNEL_OK;
  for (int64_t j = 0; j < n && status == ONNXC_KERNEL_OK; ++j) {
    float bs;
    if (!scale_at(b_scale, j, n, &bs))
      status = ONNXC_KERNEL_BAD_OPERANDS;
    float product = as * bs, quotient = product / ys; /* f32 steps */
    scales[j] = quotient;
  }
  if (status == ONNXC_KERNEL_OK)
    status = matmul_integer(
        a, b, a_zero_point, b_zero_point, y,
        slot && slot->size >= 1
            ? (onnxc_qgemm_packed_b **)((int64_t *)slot->aligned + slot->offset)
            : NULL,
        flags | ONNXC_MATMUL_INTEGER_A_ZERO | ONNXC_MATMUL_INTEGER_B_ZERO, &rq);
  free(scales);
  free(zeros);
  return status;
}
