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

static int32_t matmul_integer(onnxc_unranked_memref *a_ref,
                              onnxc_unranked_memref *b_ref,
                              onnxc_unranked_memref *a_zero_ref,
                              onnxc_unranked_memref *b_zero_ref,
                              onnxc_unranked_memref *y_ref,
                              onnxc_qgemm_packed_b **slot, int32_t flags) {
  onnxc_byte_view a, b, y, a_zero, b_zero;
  if (!onnxc_read_byte_view(a_ref, 1, &a) ||
      !onnxc_read_byte_view(b_ref, 1, &b) ||
      !onnxc_read_byte_view(y_ref, 4, &y))
    return ONNXC_KERNEL_BAD_OPERANDS;
  int64_t y_count = count(&y);
  if (y_count == 0)
    return ONNXC_KERNEL_OK;
  memset(y.data, 0, (size_t)y_count * sizeof(int32_t));
  if (a.rank < 1 || b.rank != 2 || !dense(&a) || !dense(&b) || !dense(&y))
    return ONNXC_KERNEL_BAD_OPERANDS;
  int64_t k = a.size[a.rank - 1], n = b.size[1];
  int64_t m = count(&a) / (k ? k : 1);
  if (k == 0) /* A is empty along K: every sum is 0, and so is Y. */
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
  p.output = ONNXC_QGEMM_OUTPUT_S32;
  p.c = y.data;
  p.ldc = n;
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
  return matmul_integer(a, b, a_zero_point, b_zero_point, y, NULL, flags);
}

int32_t _mlir_ciface_onnxc_rt_matmul_integer_packed(
    onnxc_unranked_memref *a, onnxc_unranked_memref *b,
    onnxc_unranked_memref *a_zero_point, onnxc_unranked_memref *b_zero_point,
    onnxc_unranked_memref *y, onnxc_memref1 *slot, int32_t flags) {
  onnxc_qgemm_packed_b **cache =
      slot && slot->size >= 1
          ? (onnxc_qgemm_packed_b **)((int64_t *)slot->aligned + slot->offset)
          : NULL;
  return matmul_integer(a, b, a_zero_point, b_zero_point, y, cache, flags);
}
