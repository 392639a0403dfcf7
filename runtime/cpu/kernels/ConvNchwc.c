/*===- ConvNchwc.c - Dispatch and threading of the NCHWc convolution ------===*
 *
 * Picks the micro-kernels of the ISA the GEMM uses (Gemm.c's CPUID check,
 * and its test hook onnxc_sgemm_force_isa) and spreads the output over the
 * thread pool: group 1 in tasks of (image, group of output blocks, row,
 * chunk of the row), ordered so that a worker's consecutive tasks share one
 * output block group's weights; depthwise in tasks of (image, block, row).
 * A 1x1 convolution with unit strides and no padding is a matrix product
 * over the pixels: its H x W pixels are one long row, so tiles span rows.
 *
 *===----------------------------------------------------------------------===*/

#include "ConvNchwc.h"
#include "../ThreadPool.h"
#include "ConvNchwcKernels.h"

static const onnxc_conv_nchwc_variant *active_variant(void) {
#if ONNXC_HAVE_X86_KERNELS
  switch (onnxc_sgemm_current_isa()) {
  case ONNXC_SGEMM_ISA_AVX512:
    return &onnxc_conv_nchwc_avx512_variant;
  case ONNXC_SGEMM_ISA_AVX2:
    return &onnxc_conv_nchwc_avx2_variant;
  default:
    break;
  }
#endif
  return &onnxc_conv_nchwc_portable_variant;
}

typedef struct conv_work {
  const onnxc_conv_nchwc_variant *variant;
  onnxc_conv_nchwc_job job;
  int64_t groups, chunk, chunks;
} conv_work;

static void conv_task(void *context, size_t task, int worker) {
  (void)worker;
  const conv_work *work = context;
  const onnxc_conv_nchwc_shape *s = &work->job.s;
  int64_t t = (int64_t)task;
  int64_t chunk = t % work->chunks;
  t /= work->chunks;
  int64_t oh = t % s->out_h;
  t /= s->out_h;
  int64_t group = t % work->groups;
  int64_t n = t / work->groups;
  int64_t mb = group * work->variant->max_nb;
  int64_t nb = work->job.out_blocks - mb;
  if (nb > work->variant->max_nb)
    nb = work->variant->max_nb;
  int64_t begin = chunk * work->chunk, end = begin + work->chunk;
  if (end > s->out_w)
    end = s->out_w;
  work->variant->rows(&work->job, n, mb, nb, oh, begin, end);
}

static void dw_task(void *context, size_t task, int worker) {
  (void)worker;
  const conv_work *work = context;
  const onnxc_conv_nchwc_shape *s = &work->job.s;
  int64_t t = (int64_t)task;
  int64_t oh = t % s->out_h;
  t /= s->out_h;
  int64_t cb = t % work->job.in_blocks;
  int64_t n = t / work->job.in_blocks;
  work->variant->dw_row(&work->job, n, cb, oh);
}

void onnxc_conv_nchwc(const onnxc_conv_nchwc_shape *shape, const float *x,
                      const float *w, const float *bias, const float *z,
                      float *y, const onnxc_sgemm_epilogue *epilogue,
                      int max_threads) {
  const int64_t B = ONNXC_NCHWC_BLOCK;
  conv_work work = {0};
  work.variant = active_variant();
  onnxc_conv_nchwc_job *job = &work.job;
  job->s = *shape;
  job->in_blocks = (shape->in_channels + B - 1) / B;
  job->out_blocks = (shape->out_channels + B - 1) / B;
  job->x = x;
  job->w = w;
  job->bias = bias;
  job->z = z;
  job->y = y;
  if (epilogue) {
    job->epilogue.activation = epilogue->activation;
    job->epilogue.activation_alpha = epilogue->activation_alpha;
    job->epilogue.activation_beta = epilogue->activation_beta;
  }
  onnxc_conv_nchwc_shape *s = &job->s;
  if (s->batch <= 0 || s->out_h <= 0 || s->out_w <= 0 || job->out_blocks <= 0)
    return;
  if (s->depthwise) {
    size_t tasks = (size_t)(s->batch * job->in_blocks * s->out_h);
    onnxc_parallel_for(tasks, max_threads, dw_task, &work);
    return;
  }
  if (s->kernel_h == 1 && s->kernel_w == 1 && s->stride_h == 1 &&
      s->stride_w == 1 && s->pad_top == 0 && s->pad_left == 0 &&
      s->in_h == s->out_h && s->in_w == s->out_w) {
    s->in_w = s->out_w = s->in_h * s->in_w;
    s->in_h = s->out_h = 1;
  }
  work.groups =
      (job->out_blocks + work.variant->max_nb - 1) / work.variant->max_nb;
  /* Whole rows, except long (flattened) ones: chunks of a few tiles. */
  work.chunk = s->out_w;
  if (work.chunk > 16 * work.variant->tile_w)
    work.chunk = 8 * work.variant->tile_w;
  work.chunks = (s->out_w + work.chunk - 1) / work.chunk;
  size_t tasks = (size_t)(s->batch * work.groups * s->out_h * work.chunks);
  onnxc_parallel_for(tasks, max_threads, conv_task, &work);
}
