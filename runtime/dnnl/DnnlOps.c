/*===- DnnlOps.c - Eltwise and normalizations through oneDNN -------------===*
 *
 * Ops whose layout is all that matters are folded to the fewest dims
 * before they reach oneDNN (eltwise to one dim, batch norm to [N, C,
 * spatial], layer norm to [rows, D]), so a cache entry serves every rank
 * that folds alike. (No softmax: oneDNN 2.6's does not make a row with a
 * NaN or +inf all NaN as ONNX does; targets/dnnl refuses it.)
 *
 *===----------------------------------------------------------------------===*/

#include "DnnlInternal.h"

#include <string.h>

/* The product of t's sizes in [begin, end). */
static int64_t volume(const onnxc_dnnl_tensor *t, int begin, int end) {
  int64_t v = 1;
  for (int i = begin; i < end; ++i)
    v *= t->size[i];
  return v;
}

/* One op: its folded dims and its parameters, all part of the key. */
typedef struct folded_op {
  int rank;
  int64_t dims[4];
  dnnl_alg_kind_t alg;
  float alpha, beta; /* eltwise's; epsilon in alpha for the norms */
  unsigned flags;    /* the norms' dnnl_normalization_flags_t */
} folded_op;

static int folded_key(onnxc_dnnl_key *key, const folded_op *op) {
  int ok = onnxc_dnnl_key_add(key, op->rank) &&
           onnxc_dnnl_key_add(key, op->alg) &&
           onnxc_dnnl_key_add_float(key, op->alpha) &&
           onnxc_dnnl_key_add_float(key, op->beta) &&
           onnxc_dnnl_key_add(key, op->flags);
  for (int i = 0; ok && i < op->rank; ++i)
    ok = onnxc_dnnl_key_add(key, op->dims[i]);
  return ok;
}

/* Runs `op` through the slot's cache: the request's remaining fields. */
static int32_t run_folded(onnxc_unranked_memref *slot, const folded_op *op,
                          onnxc_dnnl_create_pd_fn create_pd, int num_args,
                          const int *arg_ids, void *const *handles) {
  onnxc_dnnl_request request = {
      .create_pd = create_pd, .op = op, .num_args = num_args, .packed_arg = -1};
  memcpy(request.arg_ids, arg_ids, (size_t)num_args * sizeof *arg_ids);
  if (!folded_key(&request.key, op))
    return ONNXC_DNNL_ERROR_UNSUPPORTED;
  return onnxc_dnnl_run(slot, &request, handles);
}

/*===----------------------------------------------------------------------===*
 * Eltwise
 *===----------------------------------------------------------------------===*/

static dnnl_status_t eltwise_pd(const void *context, dnnl_primitive_attr_t attr,
                                dnnl_engine_t engine,
                                dnnl_primitive_desc_t *pd) {
  const folded_op *op = context;
  dnnl_memory_desc_t md;
  dnnl_eltwise_desc_t desc;
  dnnl_status_t s = onnxc_dnnl_plain_md(&md, 1, op->dims);
  if (s == dnnl_success)
    s = dnnl_eltwise_forward_desc_init(&desc, dnnl_forward_inference, op->alg,
                                       &md, op->alpha, op->beta);
  if (s == dnnl_success)
    s = dnnl_primitive_desc_create(pd, &desc, attr, engine, NULL);
  return s;
}

int32_t _mlir_ciface_onnxc_dnnl_eltwise_f32(onnxc_unranked_memref *slot,
                                            onnxc_unranked_memref *x_ref,
                                            onnxc_unranked_memref *y_ref,
                                            int32_t activation, float alpha,
                                            float beta) {
  onnxc_dnnl_tensor x, y;
  if (!onnxc_dnnl_read(x_ref, 0, ONNXC_MAX_RANK, &x) ||
      !onnxc_dnnl_read(y_ref, 0, ONNXC_MAX_RANK, &y))
    return ONNXC_DNNL_ERROR_ARGUMENT;
  if (!onnxc_dnnl_same_shape(&x, &y))
    return ONNXC_DNNL_ERROR_SHAPE;
  folded_op op = {.rank = 1, .dims = {x.count}};
  if (!onnxc_dnnl_activation(activation, alpha, beta, &op.alg, &op.alpha,
                             &op.beta))
    return ONNXC_DNNL_ERROR_ACTIVATION;
  if (y.count == 0)
    return 0;
  if (op.alg == dnnl_alg_kind_undef) { /* the identity */
    if (x.data != y.data)
      memmove(y.data, x.data, (size_t)y.count * sizeof(float));
    return 0;
  }
  static const int args[] = {DNNL_ARG_SRC, DNNL_ARG_DST};
  void *handles[] = {x.data, y.data};
  return run_folded(slot, &op, eltwise_pd, 2, args, handles);
}

/*===----------------------------------------------------------------------===*
 * BatchNormalization and LayerNormalization
 *===----------------------------------------------------------------------===*/

static dnnl_status_t batchnorm_pd(const void *context,
                                  dnnl_primitive_attr_t attr,
                                  dnnl_engine_t engine,
                                  dnnl_primitive_desc_t *pd) {
  const folded_op *op = context;
  dnnl_memory_desc_t md;
  dnnl_batch_normalization_desc_t desc;
  /* [N, C, rest, 1]: as 4-D, oneDNN takes its ncsp kernel; as 3-D, its
   * reference loop (about 6x slower). */
  dnnl_status_t s = onnxc_dnnl_plain_md(&md, 4, op->dims);
  if (s == dnnl_success)
    s = dnnl_batch_normalization_forward_desc_init(
        &desc, dnnl_forward_inference, &md, op->alpha, op->flags);
  if (s == dnnl_success)
    s = dnnl_primitive_desc_create(pd, &desc, attr, engine, NULL);
  return s;
}

/* Whether `t` is [size]. */
static int is_vector(const onnxc_unranked_memref *m, int64_t size,
                     onnxc_dnnl_tensor *t) {
  return onnxc_dnnl_read(m, 1, 1, t) && t->size[0] == size;
}

int32_t _mlir_ciface_onnxc_dnnl_batchnorm_f32(
    onnxc_unranked_memref *slot, onnxc_unranked_memref *x_ref,
    onnxc_unranked_memref *scale_ref, onnxc_unranked_memref *bias_ref,
    onnxc_unranked_memref *mean_ref, onnxc_unranked_memref *var_ref,
    onnxc_unranked_memref *y_ref, float epsilon) {
  onnxc_dnnl_tensor x, y, scale, bias, mean, var;
  if (!onnxc_dnnl_read(x_ref, 2, ONNXC_MAX_RANK, &x) ||
      !onnxc_dnnl_read(y_ref, 2, ONNXC_MAX_RANK, &y))
    return ONNXC_DNNL_ERROR_ARGUMENT;
  int64_t c = x.size[1];
  if (!onnxc_dnnl_same_shape(&x, &y) || !is_vector(scale_ref, c, &scale) ||
      !is_vector(bias_ref, c, &bias) || !is_vector(mean_ref, c, &mean) ||
      !is_vector(var_ref, c, &var))
    return ONNXC_DNNL_ERROR_SHAPE;
  if (y.count == 0)
    return 0;
  folded_op op = {.rank = 4,
                  .dims = {x.size[0], c, volume(&x, 2, x.rank), 1},
                  .alpha = epsilon,
                  .flags =
                      dnnl_use_global_stats | dnnl_use_scale | dnnl_use_shift};
  static const int args[] = {DNNL_ARG_SRC,   DNNL_ARG_MEAN,  DNNL_ARG_VARIANCE,
                             DNNL_ARG_SCALE, DNNL_ARG_SHIFT, DNNL_ARG_DST};
  void *handles[] = {x.data,     mean.data, var.data,
                     scale.data, bias.data, y.data};
  return run_folded(slot, &op, batchnorm_pd, 6, args, handles);
}

static dnnl_status_t layernorm_pd(const void *context,
                                  dnnl_primitive_attr_t attr,
                                  dnnl_engine_t engine,
                                  dnnl_primitive_desc_t *pd) {
  const folded_op *op = context;
  dnnl_memory_desc_t md;
  dnnl_layer_normalization_desc_t desc;
  dnnl_status_t s = onnxc_dnnl_plain_md(&md, 2, op->dims);
  if (s == dnnl_success)
    s = dnnl_layer_normalization_forward_desc_init(
        &desc, dnnl_forward_inference, &md, NULL, op->alpha, op->flags);
  if (s == dnnl_success)
    s = dnnl_primitive_desc_create(pd, &desc, attr, engine, NULL);
  return s;
}

int32_t _mlir_ciface_onnxc_dnnl_layernorm_f32(onnxc_unranked_memref *slot,
                                              onnxc_unranked_memref *x_ref,
                                              onnxc_unranked_memref *scale_ref,
                                              onnxc_unranked_memref *bias_ref,
                                              onnxc_unranked_memref *y_ref,
                                              int32_t flags, float epsilon) {
  onnxc_dnnl_tensor x, y, scale, bias = {0};
  int has_bias = (flags & ONNXC_DNNL_LAYERNORM_BIAS) != 0;
  if (!onnxc_dnnl_read(x_ref, 1, ONNXC_MAX_RANK, &x) ||
      !onnxc_dnnl_read(y_ref, 1, ONNXC_MAX_RANK, &y) || (flags & ~1))
    return ONNXC_DNNL_ERROR_ARGUMENT;
  int64_t d = x.size[x.rank - 1];
  if (!onnxc_dnnl_same_shape(&x, &y) || !is_vector(scale_ref, d, &scale) ||
      (has_bias && !is_vector(bias_ref, d, &bias)))
    return ONNXC_DNNL_ERROR_SHAPE;
  if (y.count == 0)
    return 0;
  folded_op op = {.rank = 2,
                  .dims = {volume(&x, 0, x.rank - 1), d},
                  .alpha = epsilon,
                  .flags = dnnl_use_scale | (has_bias ? dnnl_use_shift : 0)};
  static const int args[] = {DNNL_ARG_SRC, DNNL_ARG_DST, DNNL_ARG_SCALE,
                             DNNL_ARG_SHIFT};
  void *handles[] = {x.data, y.data, scale.data, bias.data};
  return run_folded(slot, &op, layernorm_pd, has_bias ? 4 : 3, args, handles);
}
