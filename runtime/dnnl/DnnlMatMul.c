/*===- DnnlMatMul.c - MatMul / Gemm through oneDNN's matmul ---------------===*
 *
 * numpy MatMul on ranks 2..12: A and B are padded with leading unit dims to
 * Y's rank, which oneDNN's matmul broadcasts; Gemm's transposes are strides
 * on the last two dims. alpha is an output scale, the bias a binary add
 * post-op (any shape that broadcasts onto Y), then the activation. A
 * constant B is reordered once into the layout the matmul prefers.
 *
 *===----------------------------------------------------------------------===*/

#include "DnnlInternal.h"

#include <string.h>

typedef struct matmul_op {
  int rank;
  dnnl_dims_t a, a_strides, b, b_strides, y, bias;
  int32_t flags;
  float alpha;
  int32_t activation;
  float act_alpha, act_beta;
} matmul_op;

/* `t` seen at `rank` dims (leading unit dims added), its last two dims
 * swapped when `trans`. */
static void logical_dims(const onnxc_dnnl_tensor *t, int rank, int trans,
                         int64_t *dims, int64_t *strides) {
  int lead = rank - t->rank;
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    dims[i] = i >= lead ? t->size[i - lead] : 1;
    strides[i] = stride;
    stride *= dims[i];
  }
  if (trans) {
    int64_t d = dims[rank - 1], s = strides[rank - 1];
    dims[rank - 1] = dims[rank - 2];
    strides[rank - 1] = strides[rank - 2];
    dims[rank - 2] = d;
    strides[rank - 2] = s;
  }
}

static dnnl_status_t matmul_attr(const matmul_op *op,
                                 dnnl_primitive_attr_t attr) {
  dnnl_status_t s = dnnl_success;
  if (op->alpha != 1.0f)
    s = dnnl_primitive_attr_set_output_scales(attr, 1, 0, &op->alpha);
  dnnl_post_ops_t post_ops;
  if (s == dnnl_success)
    s = dnnl_post_ops_create(&post_ops);
  if (s != dnnl_success)
    return s;
  if (op->flags & ONNXC_DNNL_MATMUL_BIAS) {
    dnnl_memory_desc_t bias;
    s = onnxc_dnnl_plain_md(&bias, op->rank, op->bias);
    if (s == dnnl_success)
      s = dnnl_post_ops_append_binary(post_ops, dnnl_binary_add, &bias);
  }
  if (s == dnnl_success)
    s = onnxc_dnnl_append_activation(post_ops, op->activation, op->act_alpha,
                                     op->act_beta);
  if (s == dnnl_success)
    s = dnnl_primitive_attr_set_post_ops(attr, post_ops);
  dnnl_post_ops_destroy(post_ops);
  return s;
}

static dnnl_status_t matmul_pd(const void *context, dnnl_primitive_attr_t attr,
                               dnnl_engine_t engine,
                               dnnl_primitive_desc_t *pd) {
  const matmul_op *op = context;
  dnnl_memory_desc_t a, b, y;
  dnnl_matmul_desc_t desc;
  dnnl_status_t s = dnnl_memory_desc_init_by_strides(&a, op->rank, op->a,
                                                     dnnl_f32, op->a_strides);
  if (s == dnnl_success && (op->flags & ONNXC_DNNL_MATMUL_CONST_B))
    s = dnnl_memory_desc_init_by_tag(&b, op->rank, op->b, dnnl_f32,
                                     dnnl_format_tag_any);
  else if (s == dnnl_success)
    s = dnnl_memory_desc_init_by_strides(&b, op->rank, op->b, dnnl_f32,
                                         op->b_strides);
  if (s == dnnl_success)
    s = onnxc_dnnl_plain_md(&y, op->rank, op->y);
  if (s == dnnl_success)
    s = dnnl_matmul_desc_init(&desc, &a, &b, NULL, &y);
  if (s == dnnl_success)
    s = matmul_attr(op, attr);
  if (s == dnnl_success)
    s = dnnl_primitive_desc_create(pd, &desc, attr, engine, NULL);
  return s;
}

/* Checks that op(A) op(B) (+ bias) gives Y's shape. */
static int32_t check_matmul(const matmul_op *op) {
  int r = op->rank;
  if (op->a[r - 1] != op->b[r - 2] || op->y[r - 2] != op->a[r - 2] ||
      op->y[r - 1] != op->b[r - 1])
    return ONNXC_DNNL_ERROR_SHAPE;
  for (int d = 0; d < r - 2; ++d) {
    int64_t y = op->y[d], a = op->a[d], b = op->b[d];
    if ((a != 1 && a != y) || (b != 1 && b != y) ||
        (y != 1 && a != y && b != y))
      return ONNXC_DNNL_ERROR_SHAPE;
  }
  for (int d = 0; d < r; ++d)
    if (op->bias[d] != 1 && op->bias[d] != op->y[d])
      return ONNXC_DNNL_ERROR_SHAPE;
  return 0;
}

static int matmul_key(onnxc_dnnl_key *key, const matmul_op *op,
                      const onnxc_dnnl_tensor *b) {
  int ok = onnxc_dnnl_key_add(key, op->flags) &&
           onnxc_dnnl_key_add_float(key, op->alpha) &&
           onnxc_dnnl_key_add(key, op->activation) &&
           onnxc_dnnl_key_add_float(key, op->act_alpha) &&
           onnxc_dnnl_key_add_float(key, op->act_beta) &&
           onnxc_dnnl_key_add(key, op->rank);
  for (int d = 0; ok && d < op->rank; ++d)
    ok = onnxc_dnnl_key_add(key, op->a[d]) &&
         onnxc_dnnl_key_add(key, op->b[d]) &&
         onnxc_dnnl_key_add(key, op->y[d]) &&
         onnxc_dnnl_key_add(key, op->bias[d]);
  if (ok && (op->flags & ONNXC_DNNL_MATMUL_CONST_B))
    ok = onnxc_dnnl_key_add(key, (int64_t)(intptr_t)b->data);
  return ok;
}

int32_t _mlir_ciface_onnxc_dnnl_matmul_f32(
    onnxc_unranked_memref *slot, onnxc_unranked_memref *a_ref,
    onnxc_unranked_memref *b_ref, onnxc_unranked_memref *bias_ref,
    onnxc_unranked_memref *y_ref, int32_t flags, float alpha,
    int32_t activation, float act_alpha, float act_beta) {
  onnxc_dnnl_tensor a, b, y, bias = {0};
  int has_bias = (flags & ONNXC_DNNL_MATMUL_BIAS) != 0;
  if (!onnxc_dnnl_read(a_ref, 2, ONNXC_MAX_RANK, &a) ||
      !onnxc_dnnl_read(b_ref, 2, ONNXC_MAX_RANK, &b) ||
      !onnxc_dnnl_read(y_ref, 2, ONNXC_MAX_RANK, &y) ||
      (has_bias && !onnxc_dnnl_read(bias_ref, 0, ONNXC_MAX_RANK, &bias)) ||
      (flags & ~15))
    return ONNXC_DNNL_ERROR_ARGUMENT;
  if (a.rank > y.rank || b.rank > y.rank || bias.rank > y.rank)
    return ONNXC_DNNL_ERROR_SHAPE;
  if (y.rank > DNNL_MAX_NDIMS)
    return ONNXC_DNNL_ERROR_UNSUPPORTED;
  if (!onnxc_dnnl_activation_supported(activation, act_alpha, act_beta))
    return ONNXC_DNNL_ERROR_ACTIVATION;

  matmul_op op = {.rank = y.rank,
                  .flags = flags,
                  .alpha = alpha,
                  .activation = activation,
                  .act_alpha = act_alpha,
                  .act_beta = act_beta};
  dnnl_dims_t unused;
  logical_dims(&a, y.rank, flags & ONNXC_DNNL_MATMUL_TRANS_A, op.a,
               op.a_strides);
  logical_dims(&b, y.rank, flags & ONNXC_DNNL_MATMUL_TRANS_B, op.b,
               op.b_strides);
  logical_dims(&y, y.rank, 0, op.y, unused);
  logical_dims(&bias, y.rank, 0, op.bias, unused); /* all 1 when absent */
  int32_t status = check_matmul(&op);
  if (status != 0 || y.count == 0)
    return status;
  if (a.count == 0) /* K == 0: Y would be the bias alone */
    return ONNXC_DNNL_ERROR_UNSUPPORTED;

  onnxc_dnnl_request request = {
      .create_pd = matmul_pd,
      .op = &op,
      .num_args = 3,
      .arg_ids = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST,
                  DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1},
      .packed_arg = -1};
  if (!matmul_key(&request.key, &op, &b))
    return ONNXC_DNNL_ERROR_UNSUPPORTED;
  if ((flags & ONNXC_DNNL_MATMUL_CONST_B) &&
      dnnl_memory_desc_init_by_strides(&request.packed_from, op.rank, op.b,
                                       dnnl_f32, op.b_strides) == dnnl_success)
    request.packed_arg = 1;
  else if (flags & ONNXC_DNNL_MATMUL_CONST_B)
    return ONNXC_DNNL_ERROR_ARGUMENT;
  if (has_bias)
    request.num_args = 4;
  void *handles[4] = {a.data, b.data, y.data, bias.data};
  return onnxc_dnnl_run(slot, &request, handles);
}
