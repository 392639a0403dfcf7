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

#include <stdlib.h>
#include <string.h>

typedef struct matmul_op {
  int rank;
  dnnl_dims_t a, a_strides, b, b_strides, y, bias;
  int32_t flags; /* ONNXC_DNNL_MATMUL_* */
  float alpha;
  int32_t activation;
  float act_alpha, act_beta;
  /* f32 throughout, or 8-bit A and B with an 8-bit (requantized) or int32
   * Y. */
  dnnl_data_type_t a_type, b_type, y_type;
  /* Requantized: scales[n] (one, or one per column) and zero points of A
   * and Y given at run time; `quantized` without scales: an int32 Y. */
  int quantized, num_scales, a_zero, y_zero;
  const float *scales;
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

/* The output scales and the run-time zero points of a quantized product. */
static dnnl_status_t quantized_matmul_attr(const matmul_op *op,
                                           dnnl_primitive_attr_t attr) {
  static const int32_t runtime = DNNL_RUNTIME_S32_VAL;
  dnnl_status_t s = dnnl_success;
  if (op->num_scales)
    s = dnnl_primitive_attr_set_output_scales(
        attr, op->num_scales, op->num_scales > 1 ? 1 << (op->rank - 1) : 0,
        op->scales);
  if (s == dnnl_success && op->a_zero)
    s = dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0, &runtime);
  if (s == dnnl_success && op->y_zero)
    s = dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_DST, 1, 0, &runtime);
  return s;
}

static dnnl_status_t matmul_attr(const matmul_op *op,
                                 dnnl_primitive_attr_t attr) {
  if (op->quantized)
    return quantized_matmul_attr(op, attr);
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
                                                     op->a_type, op->a_strides);
  if (s == dnnl_success && (op->flags & ONNXC_DNNL_MATMUL_CONST_B))
    s = dnnl_memory_desc_init_by_tag(&b, op->rank, op->b, op->b_type,
                                     dnnl_format_tag_any);
  else if (s == dnnl_success)
    s = dnnl_memory_desc_init_by_strides(&b, op->rank, op->b, op->b_type,
                                         op->b_strides);
  if (s == dnnl_success)
    s = onnxc_dnnl_plain_md_of(&y, op->rank, op->y, op->y_type);
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
           onnxc_dnnl_key_add(key, op->rank) &&
           onnxc_dnnl_key_add(key, op->a_type) &&
           onnxc_dnnl_key_add(key, op->b_type) &&
           onnxc_dnnl_key_add(key, op->y_type) &&
           onnxc_dnnl_key_add(key, op->quantized) &&
           onnxc_dnnl_key_add(key, op->num_scales) &&
           onnxc_dnnl_key_add(key, op->a_zero) &&
           onnxc_dnnl_key_add(key, op->y_zero);
  for (int d = 0; ok && d < op->rank; ++d)
    ok = onnxc_dnnl_key_add(key, op->a[d]) &&
         onnxc_dnnl_key_add(key, op->b[d]) &&
         onnxc_dnnl_key_add(key, op->y[d]) &&
         onnxc_dnnl_key_add(key, op->bias[d]);
  if (ok && (op->flags & ONNXC_DNNL_MATMUL_CONST_B))
    ok = onnxc_dnnl_key_add(key, (int64_t)(intptr_t)b->data);
  key->extra = op->scales;
  key->extra_bytes = (size_t)op->num_scales * sizeof(float);
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
                  .act_beta = act_beta,
                  .a_type = dnnl_f32,
                  .b_type = dnnl_f32,
                  .y_type = dnnl_f32};
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

/*===----------------------------------------------------------------------===*
 * QLinearMatMul, MatMulInteger
 *===----------------------------------------------------------------------===*/

/* The sizes of the 8-bit (or, for an int32 Y, 4-byte) operands, read. */
static int read_quantized_operands(onnxc_unranked_memref *a_ref,
                                   onnxc_unranked_memref *b_ref,
                                   onnxc_unranked_memref *y_ref, int integer,
                                   onnxc_dnnl_tensor *a, onnxc_dnnl_tensor *b,
                                   onnxc_dnnl_tensor *y) {
  return onnxc_dnnl_read_elements(a_ref, 1, 2, ONNXC_MAX_RANK, a) &&
         onnxc_dnnl_read_elements(b_ref, 1, 2, ONNXC_MAX_RANK, b) &&
         onnxc_dnnl_read_elements(y_ref, integer ? 4 : 1, 2, ONNXC_MAX_RANK, y);
}

/* The execution arguments: A, B, Y, then the run-time zero points of A and
 * Y that the attributes ask for (a one-element s32 memory each). */
static void quantized_matmul_arguments(onnxc_dnnl_request *request,
                                       const matmul_op *op, void **handles,
                                       const dnnl_memory_desc_t *zero_md,
                                       int32_t *a_zero, int32_t *y_zero) {
  int n = 3;
  if (op->a_zero) {
    request->arg_ids[n] = DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC;
    request->given_md[n] = zero_md;
    handles[n++] = a_zero;
  }
  if (op->y_zero) {
    request->arg_ids[n] = DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST;
    request->given_md[n] = zero_md;
    handles[n++] = y_zero;
  }
  request->num_args = n;
}

int32_t _mlir_ciface_onnxc_dnnl_qlinear_matmul(
    onnxc_unranked_memref *slot, onnxc_unranked_memref *a_ref,
    onnxc_unranked_memref *a_scale, onnxc_unranked_memref *a_zero_ref,
    onnxc_unranked_memref *b_ref, onnxc_unranked_memref *b_scale,
    onnxc_unranked_memref *b_zero_ref, onnxc_unranked_memref *y_scale,
    onnxc_unranked_memref *y_zero_ref, onnxc_unranked_memref *y_ref,
    int32_t flags) {
  onnxc_dnnl_tensor a, b, y;
  int integer = (flags & ONNXC_DNNL_QMATMUL_INTEGER) != 0;
  if (!read_quantized_operands(a_ref, b_ref, y_ref, integer, &a, &b, &y) ||
      (flags & ~255))
    return ONNXC_DNNL_ERROR_ARGUMENT;
  if (a.rank > y.rank || b.rank > y.rank)
    return ONNXC_DNNL_ERROR_SHAPE;
  if (y.rank > DNNL_MAX_NDIMS)
    return ONNXC_DNNL_ERROR_UNSUPPORTED;
  int32_t vnni = onnxc_dnnl_require_vnni();
  if (vnni != 0)
    return vnni;
  int64_t columns = y.size[y.rank - 1];
  if (!onnxc_dnnl_zero_weights(b_zero_ref, flags & ONNXC_DNNL_QMATMUL_B_ZERO,
                               columns))
    return ONNXC_DNNL_ERROR_UNSUPPORTED;
  int32_t a_zero, y_zero;
  if (!onnxc_dnnl_zero_point(a_zero_ref, flags & ONNXC_DNNL_QMATMUL_A_ZERO,
                             flags & ONNXC_DNNL_QMATMUL_A_SIGNED, &a_zero) ||
      !onnxc_dnnl_zero_point(y_zero_ref,
                             !integer && (flags & ONNXC_DNNL_QMATMUL_Y_ZERO),
                             flags & ONNXC_DNNL_QMATMUL_Y_SIGNED, &y_zero))
    return ONNXC_DNNL_ERROR_ARGUMENT;

  matmul_op op = {
      .rank = y.rank,
      .flags =
          (flags & ONNXC_DNNL_QMATMUL_CONST_B) ? ONNXC_DNNL_MATMUL_CONST_B : 0,
      .alpha = 1.0f,
      .a_type = (flags & ONNXC_DNNL_QMATMUL_A_SIGNED) ? dnnl_s8 : dnnl_u8,
      .b_type = dnnl_s8,
      .y_type = integer                                 ? dnnl_s32
                : (flags & ONNXC_DNNL_QMATMUL_Y_SIGNED) ? dnnl_s8
                                                        : dnnl_u8,
      .quantized = 1,
      /* Zero points go at run time (a dynamically quantized A has a new
       * one on every call): whether there is one is part of the key. */
      .a_zero = (flags & ONNXC_DNNL_QMATMUL_A_ZERO) != 0,
      .y_zero = !integer && (flags & ONNXC_DNNL_QMATMUL_Y_ZERO) != 0};
  dnnl_dims_t unused;
  onnxc_dnnl_tensor no_bias = {.rank = 0};
  logical_dims(&a, y.rank, 0, op.a, op.a_strides);
  logical_dims(&b, y.rank, 0, op.b, op.b_strides);
  logical_dims(&y, y.rank, 0, op.y, unused);
  logical_dims(&no_bias, y.rank, 0, op.bias, unused);
  int32_t status = check_matmul(&op);
  if (status != 0 || y.count == 0)
    return status;
  if (a.count == 0) /* K == 0 */
    return ONNXC_DNNL_ERROR_UNSUPPORTED;

  /* Most products have at most a few thousand columns: their scales live
   * on the stack. */
  float stack_scales[1024];
  float *scales = NULL;
  if (!integer) {
    scales = columns <= 1024 ? stack_scales
                             : malloc((size_t)columns * sizeof(float));
    if (!scales)
      return ONNXC_DNNL_ERROR_MEMORY;
    if (!onnxc_dnnl_output_scales(a_scale, b_scale, y_scale, columns, scales,
                                  &op.num_scales))
      status = ONNXC_DNNL_ERROR_SHAPE;
    op.scales = scales;
  }
  onnxc_dnnl_request request = {
      .create_pd = matmul_pd,
      .op = &op,
      .arg_ids = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST},
      .packed_arg = -1};
  void *handles[5] = {a.data, b.data, y.data};
  dnnl_memory_desc_t zero_md;
  const dnnl_dims_t one = {1};
  if (status == 0 && dnnl_memory_desc_init_by_tag(&zero_md, 1, one, dnnl_s32,
                                                  dnnl_a) != dnnl_success)
    status = ONNXC_DNNL_ERROR_ARGUMENT;
  if (status == 0 && !matmul_key(&request.key, &op, &b))
    status = ONNXC_DNNL_ERROR_UNSUPPORTED;
  if (status == 0 && (op.flags & ONNXC_DNNL_MATMUL_CONST_B)) {
    request.packed_arg = 1;
    if (dnnl_memory_desc_init_by_strides(&request.packed_from, op.rank, op.b,
                                         dnnl_s8, op.b_strides) != dnnl_success)
      status = ONNXC_DNNL_ERROR_ARGUMENT;
  }
  if (status == 0) {
    quantized_matmul_arguments(&request, &op, handles, &zero_md, &a_zero,
                               &y_zero);
    status = onnxc_dnnl_run(slot, &request, handles);
  }
  if (scales != stack_scales)
    free(scales);
  return status;
}
