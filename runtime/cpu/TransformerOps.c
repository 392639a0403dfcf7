/*===- TransformerOps.c - Softmax, layer norm, attention of lowered code ---===*
 *
 * Entry points for the calls that targets/cpu/lowering/{Softmax,LayerNorm,
 * Attention}Call.cpp emit, on unranked memrefs so one function serves every
 * rank. These read the descriptors (sizes, strides; 0 strides where an
 * operand broadcasts), split the rows over the thread pool and call the
 * kernels of kernels/Transformer.h.
 *
 *===----------------------------------------------------------------------===*/

#include "CpuRuntime.h"
#include "MemrefView.h"
#include "ThreadPool.h"
#include "kernels/Transformer.h"

#include <math.h>
#include <string.h>

typedef onnxc_f32_view view;

static int64_t elements(const view *v) {
  int64_t total = 1;
  for (int d = 0; d < v->rank; ++d)
    total *= v->size[d];
  return total;
}

static void fill_nan(const view *y) {
  int64_t total = elements(y);
  for (int64_t i = 0; i < total; ++i)
    y->data[i] = NAN;
}

/* Strides of `b` broadcast onto the shape of `x` (right-aligned; 0 where b
 * lacks a dim or has size 1). Returns 0 when b does not broadcast. */
static int broadcast_strides(const view *b, const view *x, int64_t *stride) {
  if (b->rank > x->rank)
    return 0;
  for (int d = 0; d < x->rank; ++d) {
    int bd = d - (x->rank - b->rank);
    if (bd < 0 || b->size[bd] == 1) {
      stride[d] = 0;
      continue;
    }
    if (b->size[bd] != x->size[d])
      return 0;
    stride[d] = b->stride[bd];
  }
  return 1;
}

/* Offset of row `row` (an index over all dims but the last) in a tensor of
 * x's leading sizes with these strides. */
static int64_t row_offset(const view *x, const int64_t *stride, int64_t row) {
  int64_t offset = 0;
  for (int d = x->rank - 2; d >= 0; --d) {
    int64_t i = row % x->size[d];
    row /= x->size[d];
    offset += i * stride[d];
  }
  return offset;
}

/* Rows per task: about 16K elements, at least one row. */
static int64_t rows_per_task(int64_t n) {
  int64_t rows = 16384 / (n > 0 ? n : 1);
  return rows > 0 ? rows : 1;
}

/* ---- Softmax --------------------------------------------------------------
 */

typedef struct softmax_job {
  view x, bias, y;
  int has_bias;
  int64_t bias_stride[ONNXC_MAX_RANK];
  int64_t rows, n, chunk;
} softmax_job;

static void softmax_task(void *context, size_t task, int worker) {
  (void)worker;
  const softmax_job *job = context;
  int64_t n = job->n, last = job->x.rank - 1;
  int64_t end = ((int64_t)task + 1) * job->chunk;
  if (end > job->rows)
    end = job->rows;
  for (int64_t r = (int64_t)task * job->chunk; r < end; ++r) {
    const float *x = job->x.data + row_offset(&job->x, job->x.stride, r);
    float *y = job->y.data + r * n;
    const float *bias = NULL;
    if (job->has_bias) {
      bias = job->bias.data + row_offset(&job->x, job->bias_stride, r);
      if (job->bias_stride[last] == 0 && n > 1) {
        /* One bias value for the whole row: spread it over y, which the
         * kernel may read as the bias while writing it. */
        float value = *bias;
        for (int64_t j = 0; j < n; ++j)
          y[j] = value;
        bias = y;
      }
    }
    onnxc_softmax_row((size_t)n, x, bias, y, 0);
  }
}

void _mlir_ciface_onnxc_rt_softmax_f32(onnxc_unranked_memref *x_ref,
                                       onnxc_unranked_memref *bias_ref,
                                       onnxc_unranked_memref *y_ref,
                                       int32_t flags) {
  softmax_job job;
  memset(&job, 0, sizeof job);
  if (!onnxc_read_f32_view(x_ref, &job.x) || !onnxc_read_f32_view(y_ref, &job.y) ||
      job.x.rank < 1 || job.y.rank != job.x.rank)
    return;
  job.has_bias = (flags & ONNXC_ROWS_BIAS) != 0;
  int last = job.x.rank - 1;
  if ((job.has_bias &&
       (!onnxc_read_f32_view(bias_ref, &job.bias) ||
        !broadcast_strides(&job.bias, &job.x, job.bias_stride))) ||
      (job.x.size[last] > 1 && job.x.stride[last] != 1) ||
      (job.has_bias && job.bias_stride[last] != 0 &&
       job.bias_stride[last] != 1)) {
    fill_nan(&job.y);
    return;
  }
  job.n = job.x.size[last];
  job.rows = job.n ? elements(&job.x) / job.n : 0;
  if (!job.rows)
    return;
  job.chunk = rows_per_task(job.n);
  onnxc_parallel_for((size_t)((job.rows + job.chunk - 1) / job.chunk), 0,
                     softmax_task, &job);
}

/* ---- Layer normalization --------------------------------------------------
 */

typedef struct layer_norm_job {
  view x, skip, y;
  const float *bias, *gamma, *beta;
  float epsilon;
  int64_t rows, n, chunk;
} layer_norm_job;

static void layer_norm_task(void *context, size_t task, int worker) {
  (void)worker;
  const layer_norm_job *job = context;
  int64_t n = job->n;
  int64_t end = ((int64_t)task + 1) * job->chunk;
  if (end > job->rows)
    end = job->rows;
  for (int64_t r = (int64_t)task * job->chunk; r < end; ++r) {
    const float *x = job->x.data + row_offset(&job->x, job->x.stride, r);
    const float *skip =
        job->skip.data
            ? job->skip.data + row_offset(&job->x, job->skip.stride, r)
            : NULL;
    onnxc_layer_norm_row((size_t)n, x, skip, job->bias, job->gamma, job->beta,
                         job->epsilon, job->y.data + r * n, NULL);
  }
}

/* Whether v holds exactly n elements laid out contiguously. */
static int is_vector(const view *v, int64_t n) {
  if (elements(v) != n)
    return 0;
  int64_t expected = 1;
  for (int d = v->rank - 1; d >= 0; --d) {
    if (v->size[d] == 1)
      continue;
    if (v->stride[d] != expected)
      return 0;
    expected *= v->size[d];
  }
  return 1;
}

void _mlir_ciface_onnxc_rt_layer_norm_f32(onnxc_unranked_memref *x_ref,
                                          onnxc_unranked_memref *skip_ref,
                                          onnxc_unranked_memref *bias_ref,
                                          onnxc_unranked_memref *gamma_ref,
                                          onnxc_unranked_memref *beta_ref,
                                          onnxc_unranked_memref *y_ref,
                                          int32_t flags, float epsilon) {
  layer_norm_job job;
  memset(&job, 0, sizeof job);
  view gamma, beta, bias;
  if (!onnxc_read_f32_view(x_ref, &job.x) || !onnxc_read_f32_view(y_ref, &job.y) ||
      !onnxc_read_f32_view(gamma_ref, &gamma) || job.x.rank < 1 ||
      job.y.rank != job.x.rank)
    return;
  int last = job.x.rank - 1;
  job.n = job.x.size[last];
  int ok = (job.n <= 1 || job.x.stride[last] == 1) && is_vector(&gamma, job.n);
  job.gamma = gamma.data;
  if (ok && (flags & ONNXC_ROWS_SKIP)) {
    ok = onnxc_read_f32_view(skip_ref, &job.skip) && job.skip.rank == job.x.rank &&
         (job.n <= 1 || job.skip.stride[last] == 1);
    for (int d = 0; ok && d < job.x.rank; ++d)
      ok = job.skip.size[d] == job.x.size[d];
  }
  if (ok && (flags & ONNXC_ROWS_BIAS)) {
    ok = onnxc_read_f32_view(bias_ref, &bias) && is_vector(&bias, job.n);
    job.bias = bias.data;
  }
  if (ok && (flags & ONNXC_ROWS_BETA)) {
    ok = onnxc_read_f32_view(beta_ref, &beta) && is_vector(&beta, job.n);
    job.beta = beta.data;
  }
  if (!ok) {
    fill_nan(&job.y);
    return;
  }
  job.epsilon = epsilon;
  job.rows = job.n ? elements(&job.x) / job.n : 0;
  if (!job.rows)
    return;
  job.chunk = rows_per_task(job.n);
  onnxc_parallel_for((size_t)((job.rows + job.chunk - 1) / job.chunk), 0,
                     layer_norm_task, &job);
}

/* ---- Attention ------------------------------------------------------------
 */

/* A [batch, seq, heads, size] view seen as [batch, heads, seq, size]. */
static void swap_heads_and_seq(view *v) {
  if (v->rank != 4)
    return;
  int64_t size = v->size[1], stride = v->stride[1];
  v->size[1] = v->size[2];
  v->stride[1] = v->stride[2];
  v->size[2] = size;
  v->stride[2] = stride;
}

void _mlir_ciface_onnxc_rt_attention_f32(onnxc_unranked_memref *q_ref,
                                         onnxc_unranked_memref *k_ref,
                                         onnxc_unranked_memref *v_ref,
                                         onnxc_unranked_memref *mask_ref,
                                         onnxc_unranked_memref *y_ref,
                                         int32_t flags, float scale) {
  view q, k, v, y, mask;
  if (!onnxc_read_f32_view(q_ref, &q) || !onnxc_read_f32_view(k_ref, &k) || !onnxc_read_f32_view(v_ref, &v) ||
      !onnxc_read_f32_view(y_ref, &y) || y.rank != 4)
    return;
  if (flags & ONNXC_ATTENTION_Q_SEQ_MAJOR)
    swap_heads_and_seq(&q);
  if (flags & ONNXC_ATTENTION_K_SEQ_MAJOR)
    swap_heads_and_seq(&k);
  if (flags & ONNXC_ATTENTION_V_SEQ_MAJOR)
    swap_heads_and_seq(&v);
  int ok = q.rank == 4 && k.rank == 4 && v.rank == 4 &&
           q.size[0] == k.size[0] && k.size[0] == v.size[0] &&
           k.size[1] == v.size[1] && k.size[2] == v.size[2] &&
           q.size[3] == k.size[3] && y.size[0] == q.size[0] &&
           y.size[1] == q.size[1] && y.size[2] == q.size[2] &&
           y.size[3] == v.size[3] && k.size[1] > 0 &&
           q.size[1] % k.size[1] == 0 && (y.size[3] <= 1 || y.stride[3] == 1);
  onnxc_attention_args a;
  memset(&a, 0, sizeof a);
  if (ok && (flags & ONNXC_ATTENTION_MASK)) {
    /* The mask broadcasts onto [batch, q_heads, q_len, mask_len] with
     * mask_len <= kv_len (ONNX pads a short mask with -inf). */
    view scores = {0};
    scores.rank = 4;
    scores.size[0] = q.size[0];
    scores.size[1] = q.size[1];
    scores.size[2] = q.size[2];
    ok = onnxc_read_f32_view(mask_ref, &mask) && mask.rank >= 1 && mask.rank <= 4;
    if (ok) {
      int64_t len = mask.size[mask.rank - 1];
      scores.size[3] = len;
      int64_t stride[4] = {0, 0, 0, 0};
      ok = len <= k.size[2] && broadcast_strides(&mask, &scores, stride);
      a.mask = mask.data;
      a.mask_stride[0] = stride[0];
      a.mask_stride[1] = stride[1];
      a.mask_stride[2] = stride[2];
      a.mask_col_stride = stride[3];
      a.mask_len = (size_t)len;
    }
  }
  if (!ok) {
    fill_nan(&y);
    return;
  }
  a.batch = (size_t)q.size[0];
  a.q_heads = (size_t)q.size[1];
  a.kv_heads = (size_t)k.size[1];
  a.q_len = (size_t)q.size[2];
  a.kv_len = (size_t)k.size[2];
  a.head_size = (size_t)q.size[3];
  a.v_head_size = (size_t)v.size[3];
  a.q = q.data;
  a.k = k.data;
  a.v = v.data;
  for (int d = 0; d < 4; ++d) {
    a.q_stride[d] = q.stride[d];
    a.k_stride[d] = k.stride[d];
    a.v_stride[d] = v.stride[d];
  }
  a.y = y.data;
  a.y_stride[0] = y.stride[0];
  a.y_stride[1] = y.stride[1];
  a.y_stride[2] = y.stride[2];
  a.scale = scale;
  if (onnxc_attention_f32(&a, 0) != 0)
    fill_nan(&y);
}
