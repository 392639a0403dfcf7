/*===- Transformer.c - Dispatch of the row kernels; attention -------------===*
 *
 * The row kernels follow the GEMM's ISA (onnxc_sgemm_current_isa), which has
 * already checked the CPU. Attention runs one task per (batch, head, block
 * of query rows): the block's scores come from one strided GEMM (Q rows
 * against K read transposed through its strides: nothing is copied), get
 * the mask and the softmax while they are in cache, and are multiplied by V
 * straight into Y.
 *
 *===----------------------------------------------------------------------===*/

#include "Transformer.h"
#include "../ThreadPool.h"
#include "Gemm.h"
#include "TransformerKernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const onnxc_row_kernels *row_kernels(void) {
  switch (onnxc_sgemm_current_isa()) {
#if ONNXC_HAVE_X86_KERNELS
  case ONNXC_SGEMM_ISA_AVX512:
    return &onnxc_row_kernels_avx512;
  case ONNXC_SGEMM_ISA_AVX2:
    return &onnxc_row_kernels_avx2;
#endif
  default:
    return &onnxc_row_kernels_portable;
  }
}

void onnxc_softmax_row(size_t n, const float *x, const float *bias, float *y,
                       int zero_masked) {
  if (n)
    row_kernels()->softmax(n, x, bias, y, zero_masked);
}

void onnxc_layer_norm_row(size_t n, const float *x, const float *skip,
                          const float *bias, const float *gamma,
                          const float *beta, float epsilon, float *y,
                          float *sum) {
  if (n)
    row_kernels()->layer_norm(n, x, skip, bias, gamma, beta, epsilon, y, sum);
}

/* ---- Attention ------------------------------------------------------------
 */

/* Score rows per task: a block of rows x kv_len floats stays within ~256 KiB
 * (L2), at least 8 rows, at most q_len. Each block packs K and V again, and
 * a ragged last block runs short GEMMs: with 128 KiB, ViT-B/16's 197 rows
 * went in blocks of 166 and 31, and its attention took 12% longer (21.7 ms
 * against 19.1 in 12 layers, 1 thread; 12.9 against 11.3 on 2: the
 * profiler, same-process pairs). */
static size_t rows_per_block(size_t q_len, size_t kv_len) {
  size_t rows = (256u * 1024u / sizeof(float)) / (kv_len ? kv_len : 1);
  if (rows < 8)
    rows = 8;
  return rows < q_len ? rows : q_len;
}

typedef struct attention_job {
  const onnxc_attention_args *args;
  const onnxc_row_kernels *kernels;
  size_t block_rows, blocks, group;
  size_t per_worker; /* floats of scratch per worker */
  float *scratch;
} attention_job;

static int all_neg_inf(size_t n, const float *x) {
  for (size_t j = 0; j < n; ++j)
    if (x[j] != -INFINITY)
      return 0;
  return 1;
}

/* The mask row of query row i of (b, h) as kv_len contiguous floats: the
 * mask itself when it is laid out so, else a copy padded with -inf. */
static const float *mask_row(const onnxc_attention_args *a, size_t b, size_t h,
                             size_t i, float *pad) {
  const float *row = a->mask + (ptrdiff_t)b * a->mask_stride[0] +
                     (ptrdiff_t)h * a->mask_stride[1] +
                     (ptrdiff_t)i * a->mask_stride[2];
  if (a->mask_col_stride == 1 && a->mask_len == a->kv_len)
    return row;
  size_t len = a->mask_len < a->kv_len ? a->mask_len : a->kv_len;
  for (size_t j = 0; j < len; ++j)
    pad[j] = row[(ptrdiff_t)j * a->mask_col_stride];
  for (size_t j = len; j < a->kv_len; ++j)
    pad[j] = -INFINITY;
  return pad;
}

static void attention_task(void *context, size_t task, int worker) {
  const attention_job *job = context;
  const onnxc_attention_args *a = job->args;
  size_t block = task % job->blocks, bh = task / job->blocks;
  size_t h = bh % a->q_heads, b = bh / a->q_heads;
  size_t kvh = h / job->group;
  size_t i0 = block * job->block_rows;
  size_t rows =
      a->q_len - i0 < job->block_rows ? a->q_len - i0 : job->block_rows;
  size_t n = a->kv_len;
  float *scores = job->scratch + (size_t)worker * job->per_worker;
  float *pad = scores + job->block_rows * n;

  const float *q = a->q + (ptrdiff_t)b * a->q_stride[0] +
                   (ptrdiff_t)h * a->q_stride[1] +
                   (ptrdiff_t)i0 * a->q_stride[2];
  const float *k =
      a->k + (ptrdiff_t)b * a->k_stride[0] + (ptrdiff_t)kvh * a->k_stride[1];
  const float *v =
      a->v + (ptrdiff_t)b * a->v_stride[0] + (ptrdiff_t)kvh * a->v_stride[1];
  float *y = a->y + (ptrdiff_t)b * a->y_stride[0] +
             (ptrdiff_t)h * a->y_stride[1] + (ptrdiff_t)i0 * a->y_stride[2];

  /* scores = scale * Q K^T: K^T[d][j] = k[j * ks2 + d * ks3]. */
  if (a->head_size)
    onnxc_sgemm_strided(rows, n, a->head_size, a->scale, q, a->q_stride[2],
                        a->q_stride[3], k, a->k_stride[3], a->k_stride[2], 0.0f,
                        scores, (ptrdiff_t)n, NULL, 1);
  else
    memset(scores, 0, rows * n * sizeof(float));
  for (size_t r = 0; r < rows; ++r) {
    float *row = scores + r * n;
    const float *bias = NULL;
    if (a->mask) {
      bias = mask_row(a, b, h, i0 + r, pad);
      if (all_neg_inf(n, bias)) {
        memset(row, 0, n * sizeof(float));
        continue;
      }
    }
    job->kernels->softmax(n, row, bias, row, 1);
  }
  onnxc_sgemm_strided(rows, a->v_head_size, n, 1.0f, scores, (ptrdiff_t)n, 1, v,
                      a->v_stride[2], a->v_stride[3], 0.0f, y, a->y_stride[2],
                      NULL, 1);
}

static void fill_y(const onnxc_attention_args *a, float value) {
  for (size_t b = 0; b < a->batch; ++b)
    for (size_t h = 0; h < a->q_heads; ++h)
      for (size_t i = 0; i < a->q_len; ++i) {
        float *y = a->y + (ptrdiff_t)b * a->y_stride[0] +
                   (ptrdiff_t)h * a->y_stride[1] +
                   (ptrdiff_t)i * a->y_stride[2];
        for (size_t d = 0; d < a->v_head_size; ++d)
          y[d] = value;
      }
}

int onnxc_attention_f32(const onnxc_attention_args *a, int max_threads) {
  if (!a->batch || !a->q_heads || !a->q_len || !a->v_head_size)
    return 0;
  if (!a->kv_len || !a->kv_heads || a->q_heads % a->kv_heads) {
    /* No keys: every probability row is empty, so Y = 0. */
    fill_y(a, a->kv_heads && a->q_heads % a->kv_heads == 0 ? 0.0f : NAN);
    return 0;
  }
  attention_job job = {0};
  job.args = a;
  job.kernels = row_kernels();
  job.group = a->q_heads / a->kv_heads;
  job.block_rows = rows_per_block(a->q_len, a->kv_len);
  job.blocks = (a->q_len + job.block_rows - 1) / job.block_rows;
  job.per_worker = job.block_rows * a->kv_len + a->kv_len;
  size_t tasks = a->batch * a->q_heads * job.blocks;
  int threads = onnxc_num_threads();
  if (max_threads > 0 && max_threads < threads)
    threads = max_threads;
  if ((size_t)threads > tasks)
    threads = (int)tasks;
  job.scratch = malloc((size_t)threads * job.per_worker * sizeof(float));
  if (!job.scratch) {
    fill_y(a, NAN);
    return -1;
  }
  onnxc_parallel_for(tasks, threads, attention_task, &job);
  free(job.scratch);
  return 0;
}
