/*===- MatMul.c - MatMul / Gemm of lowered code through the packed GEMM ---===*
 *
 * The CPU lowering turns f32 onnx.MatMul, onnx.Gemm, onnxc.FusedMatMul and
 * onnxc.FusedGemm into one call of _mlir_ciface_onnxc_rt_matmul_f32 with
 * unranked memrefs, so one entry point serves every rank: this file applies
 * numpy's MatMul rules (1-D promotion, broadcast batch dims) with strides
 * (0 on broadcast dims), folds batch dims into the rows when B is shared,
 * and runs one GEMM per batch otherwise (in parallel over batches when each
 * one is small).
 *
 *===----------------------------------------------------------------------===*/

#include "CpuRuntime.h"
#include "MemrefView.h"
#include "ThreadPool.h"
#include "kernels/Gemm.h"
#include "kernels/GemmPackedLayout.h"

#include <math.h>
#include <string.h>

enum { MAX_DIMS = ONNXC_MAX_RANK + 2 };

typedef onnxc_f32_view view;

/* The stride of `v`'s dim aligned to dim `d` of a rank-`rank` shape, or 0
 * where v lacks it or broadcasts it (size 1). Sets *size to v's size (1 when
 * missing). */
static int64_t aligned_stride(const view *v, int rank, int d, int64_t *size) {
  int vd = d - (rank - v->rank);
  if (vd < 0) {
    *size = 1;
    return 0;
  }
  *size = v->size[vd];
  return v->size[vd] == 1 ? 0 : v->stride[vd];
}

typedef struct batch_job {
  size_t m, n, k;
  float alpha;
  const float *a, *b, *bias;
  float *y;
  ptrdiff_t a_rs, a_cs, b_rs, b_cs, ldc;
  onnxc_sgemm_epilogue epilogue;
  int batch_rank;
  int64_t batch_size[MAX_DIMS];
  int64_t a_bstride[MAX_DIMS], b_bstride[MAX_DIMS], y_bstride[MAX_DIMS],
      bias_bstride[MAX_DIMS];
  onnxc_sgemm_packed_b **packed_b; /* B's cache slot, or NULL */
  int32_t packed_isa; /* b is packed in this ISA's layout; 0: b is plain */
} batch_job;

static void run_batch(const batch_job *job, size_t index, int max_threads) {
  ptrdiff_t a_off = 0, b_off = 0, y_off = 0, bias_off = 0;
  for (int d = job->batch_rank - 1; d >= 0; --d) {
    int64_t i = (int64_t)(index % (size_t)job->batch_size[d]);
    index /= (size_t)job->batch_size[d];
    a_off += i * job->a_bstride[d];
    b_off += i * job->b_bstride[d];
    y_off += i * job->y_bstride[d];
    bias_off += i * job->bias_bstride[d];
  }
  onnxc_sgemm_epilogue e = job->epilogue;
  if (e.bias)
    e.bias += bias_off;
  if (job->packed_isa)
    onnxc_sgemm_prepacked(job->m, job->n, job->k, job->alpha, job->a + a_off,
                          job->a_rs, job->a_cs, job->b, job->packed_isa, 0.0f,
                          job->y + y_off, job->ldc, &e, max_threads,
                          job->packed_b);
  else
    onnxc_sgemm_strided_cached(
        job->m, job->n, job->k, job->alpha, job->a + a_off, job->a_rs,
        job->a_cs, job->b + b_off, job->b_rs, job->b_cs, 0.0f, job->y + y_off,
        job->ldc, &e, max_threads, job->packed_b);
}

static void batch_task(void *context, size_t task, int worker) {
  (void)worker;
  run_batch(context, task, 1);
}

/* Whether dims [0, count) of a tensor with these sizes/strides, followed by
 * a dim of stride `inner_stride` and size `inner_size`, are one dim. */
static int folds(const int64_t *size, const int64_t *stride, int count,
                 int64_t inner_size, int64_t inner_stride) {
  int64_t expected = inner_stride * inner_size;
  for (int d = count - 1; d >= 0; --d) {
    if (size[d] == 1)
      continue; /* a unit dim's stride is free */
    if (stride[d] != expected)
      return 0;
    expected *= size[d];
  }
  return 1;
}

static void fill_nan(const view *y) {
  /* Y is freshly allocated and dense: reachable as one run. */
  int64_t total = 1;
  for (int d = 0; d < y->rank; ++d)
    total *= y->size[d];
  float *data = (float *)y->data;
  for (int64_t i = 0; i < total; ++i)
    data[i] = NAN;
}

/* `b` is B's view; with `packed_isa` set it is the logical K x N view of
 * a B the compiler packed (its data the packed floats, its strides
 * unused). */
static void matmul(onnxc_unranked_memref *a_ref, view b,
                   onnxc_unranked_memref *bias_ref,
                   onnxc_unranked_memref *y_ref, onnxc_sgemm_packed_b **slot,
                   int32_t packed_isa, int32_t flags, float alpha,
                   float bias_scale, int32_t activation, float activation_alpha,
                   float activation_beta) {
  view a, y, bias = {0};
  if (!onnxc_read_f32_view(a_ref, &a) || !onnxc_read_f32_view(y_ref, &y))
    return;
  int has_bias = (flags & ONNXC_MATMUL_BIAS) && onnxc_read_f32_view(bias_ref, &bias);
  int trans_a = (flags & ONNXC_MATMUL_TRANS_A) != 0;
  int trans_b = (flags & ONNXC_MATMUL_TRANS_B) != 0;
  if (a.rank < 1 || b.rank < 1)
    return;
  for (int d = 0; d < y.rank; ++d)
    if (y.size[d] == 0)
      return;

  /* numpy promotion: [K] is [1, K] on the left and [K, 1] on the right. */
  int a_vector = a.rank == 1, b_vector = b.rank == 1;
  if (a_vector) {
    a.size[1] = a.size[0];
    a.stride[1] = a.stride[0];
    a.size[0] = 1;
    a.stride[0] = 0;
    a.rank = 2;
  }
  if (b_vector) {
    b.size[1] = 1;
    b.stride[1] = 0;
    b.rank = 2;
  }
  int64_t m = a.size[a.rank - (trans_a ? 1 : 2)];
  int64_t k = a.size[a.rank - (trans_a ? 2 : 1)];
  int64_t kb = b.size[b.rank - (trans_b ? 1 : 2)];
  int64_t n = b.size[b.rank - (trans_b ? 2 : 1)];
  ptrdiff_t a_rs = a.stride[a.rank - (trans_a ? 1 : 2)];
  ptrdiff_t a_cs = a.stride[a.rank - (trans_a ? 2 : 1)];
  ptrdiff_t b_rs = b.stride[b.rank - (trans_b ? 1 : 2)];
  ptrdiff_t b_cs = b.stride[b.rank - (trans_b ? 2 : 1)];

  /* Y's dims: batch..., then M (unless A was a vector), N (unless B was). */
  int batch_rank = y.rank - !a_vector - !b_vector;
  int a_batch = a.rank - 2, b_batch = b.rank - 2;
  if (k != kb || batch_rank < 0 || batch_rank > ONNXC_MAX_RANK ||
      a_batch > batch_rank || b_batch > batch_rank ||
      (!a_vector && y.size[batch_rank] != m) ||
      (!b_vector && y.size[y.rank - 1] != n)) {
    /* Shapes the compiler could not check disagree at run time: NaNs
     * rather than reads out of bounds. */
    fill_nan(&y);
    return;
  }
  ptrdiff_t ldc = a_vector ? 0 : y.stride[batch_rank];
  if (a_vector)
    ldc = (ptrdiff_t)n; /* one row: never stepped */

  batch_job job;
  memset(&job, 0, sizeof job);
  job.m = (size_t)m;
  job.n = (size_t)n;
  job.k = (size_t)k;
  job.alpha = alpha;
  job.a = a.data;
  job.b = b.data;
  job.y = (float *)y.data;
  job.a_rs = a_rs;
  job.a_cs = a_cs;
  job.b_rs = b_rs;
  job.b_cs = b_cs;
  job.ldc = ldc;
  job.batch_rank = batch_rank;
  job.epilogue.activation = activation;
  job.epilogue.activation_alpha = activation_alpha;
  job.epilogue.activation_beta = activation_beta;

  /* Batch strides (0 where an operand broadcasts) and sizes. */
  size_t batches = 1;
  view a_batches = a, b_batches = b;
  a_batches.rank = a_batch;
  b_batches.rank = b_batch;
  for (int d = 0; d < batch_rank; ++d) {
    int64_t size_a, size_b;
    job.a_bstride[d] = aligned_stride(&a_batches, batch_rank, d, &size_a);
    job.b_bstride[d] = aligned_stride(&b_batches, batch_rank, d, &size_b);
    job.y_bstride[d] = y.stride[d];
    job.batch_size[d] = y.size[d];
    if ((size_a != 1 && size_a != y.size[d]) ||
        (size_b != 1 && size_b != y.size[d])) {
      fill_nan(&y);
      return;
    }
    batches *= (size_t)y.size[d];
  }

  /* The bias broadcasts onto Y (dims aligned from the right). */
  if (has_bias) {
    if (bias.rank > y.rank) {
      fill_nan(&y);
      return;
    }
    int64_t size;
    for (int d = 0; d < y.rank; ++d) {
      int64_t stride = aligned_stride(&bias, y.rank, d, &size);
      if (size != 1 && size != y.size[d]) {
        fill_nan(&y);
        return;
      }
      if (d < batch_rank)
        job.bias_bstride[d] = stride;
      else if (d == batch_rank && !a_vector)
        job.epilogue.bias_row_stride = stride;
      else
        job.epilogue.bias_col_stride = b_vector ? 0 : stride;
    }
    job.bias = bias.data;
    job.epilogue.bias = bias.data;
    job.epilogue.bias_scale = bias_scale;
  }

  /* One packed copy of B serves every batch when they share B. */
  int b_shared = 1;
  for (int d = 0; d < batch_rank; ++d)
    b_shared &= job.b_bstride[d] == 0;
  job.packed_b = b_shared ? slot : NULL;
  job.packed_isa = packed_isa;

  /* B shared by every batch and A, Y (and the bias) laid out so that the
   * batch dims continue the rows: one GEMM with batches * M rows. */
  if (batches > 1 && b_shared && !a_vector &&
      folds(job.batch_size, job.a_bstride, batch_rank, m, a_rs) &&
      folds(job.batch_size, job.y_bstride, batch_rank, m, ldc) &&
      (!has_bias || folds(job.batch_size, job.bias_bstride, batch_rank, m,
                          job.epilogue.bias_row_stride))) {
    int a_broadcast = 0;
    for (int d = 0; d < batch_rank; ++d)
      a_broadcast |= job.a_bstride[d] == 0 && job.batch_size[d] != 1;
    if (!a_broadcast) {
      job.m = (size_t)m * batches;
      job.batch_rank = 0;
      batches = 1;
    }
  }

  double flops = 2.0 * (double)m * (double)n * (double)k;
  if (batches > 1 && onnxc_num_threads() > 1 && flops < 4.0e6) {
    onnxc_parallel_for(batches, 0, batch_task, &job);
    return;
  }
  for (size_t i = 0; i < batches; ++i)
    run_batch(&job, i, 0);
}

void _mlir_ciface_onnxc_rt_matmul_f32(
    onnxc_unranked_memref *a, onnxc_unranked_memref *b,
    onnxc_unranked_memref *bias, onnxc_unranked_memref *y, int32_t flags,
    float alpha, float bias_scale, int32_t activation, float activation_alpha,
    float activation_beta) {
  view b_view;
  if (onnxc_read_f32_view(b, &b_view))
    matmul(a, b_view, bias, y, NULL, 0, flags, alpha, bias_scale, activation,
           activation_alpha, activation_beta);
}

/* The slot argument as the GEMM's cache pointer (NULL when absent). */
static onnxc_sgemm_packed_b **slot_pointer(onnxc_memref1 *slot) {
  return slot && slot->size >= 1
             ? (onnxc_sgemm_packed_b **)((int64_t *)slot->aligned +
                                         slot->offset)
             : NULL;
}

void _mlir_ciface_onnxc_rt_matmul_packed_f32(
    onnxc_unranked_memref *a, onnxc_unranked_memref *b,
    onnxc_unranked_memref *bias, onnxc_unranked_memref *y, onnxc_memref1 *slot,
    int32_t flags, float alpha, float bias_scale, int32_t activation,
    float activation_alpha, float activation_beta) {
  view b_view;
  if (onnxc_read_f32_view(b, &b_view))
    matmul(a, b_view, bias, y, slot_pointer(slot), 0, flags, alpha, bias_scale,
           activation, activation_alpha, activation_beta);
}

void _mlir_ciface_onnxc_rt_matmul_prepacked_f32(
    onnxc_unranked_memref *a, onnxc_unranked_memref *packed_b,
    onnxc_unranked_memref *bias, onnxc_unranked_memref *y, onnxc_memref1 *slot,
    int32_t packed_isa, int64_t k, int64_t n, int32_t flags, float alpha,
    float bias_scale, int32_t activation, float activation_alpha,
    float activation_beta) {
  view packed, y_view;
  onnxc_sgemm_b_layout layout;
  if (!onnxc_read_f32_view(packed_b, &packed) ||
      !onnxc_read_f32_view(y, &y_view))
    return;
  if (packed.rank != 1 || k < 1 || n < 1 ||
      !onnxc_sgemm_b_layout_for_isa(packed_isa, &layout) ||
      (size_t)packed.size[0] <
          onnxc_sgemm_packed_b_floats(&layout, (size_t)n, (size_t)k)) {
    /* Not what the compiler emits: NaNs rather than reads out of bounds. */
    fill_nan(&y_view);
    return;
  }
  /* B as the K x N matrix it stands for; the GEMM reads it through the
   * layout (kernels/GemmPackedLayout.h). It is never transposed: the
   * compiler packed op(B). */
  view b = {0};
  b.data = packed.data;
  b.rank = 2;
  b.size[0] = k;
  b.size[1] = n;
  b.stride[0] = n;
  b.stride[1] = 1;
  matmul(a, b, bias, y, slot_pointer(slot), packed_isa,
         flags & ~ONNXC_MATMUL_TRANS_B, alpha, bias_scale, activation,
         activation_alpha, activation_beta);
}
